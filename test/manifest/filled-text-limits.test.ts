/**
 * Filling in `{{variables}}` and `${env:…}` is held to the length limits of src/project-files/limits.ts:
 * one text, and all the texts of a load together, counted from the pieces before the text is built.
 * A few bytes of placeholder stand for a long value, so without them a 5 MB manifest filled in a
 * string past what JavaScript can hold ("Invalid string length", reported as a bug). The limits are
 * lowered here so that the files stay small.
 */
import { describe, expect, it, vi } from 'vitest';
import { loadTree, summarize } from './helpers.js';

vi.mock('../../src/project-files/limits.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/project-files/limits.js')>()),
  MAX_FILLED_TEXT_CHARS: 2000,
  MAX_FILLED_TEXT_CHARS_TOTAL: 5000,
  MIN_FILLED_ENV_VALUE_CHARS: 100,
}));

const ONE_TEXT = 'with the variables of template "desk" filled in, this text would be longer than 2,000 characters, the limit for one text (no longer one fits in an agent\'s update); use shorter values or fewer references to them';
const ALL_TEXTS = 'with the variables of template "desk" filled in, this text would take the texts filled in for these manifests past 5,000 characters together; that is the limit; use shorter values or fewer references to them';

const desk = {
  'templates/desk/template.yaml': [
    'description: A front desk.',
    'variables:',
    '  business: { description: The business name, required: true }',
    'agent:',
    '  config:',
    '    prompt: { file: prompt.md }',
    '    first_message: "Hello from {{business}}"',
  ].join('\n'),
  'templates/desk/prompt.md': 'You answer for {{business}}.\n',
};

/** Agents on the desk template, each with `business` and `config` as given. */
function agents(entries: Array<{ business: string; config?: string }>): string {
  const lines = entries.map(({ business, config }, i) => `  a${i}:\n    id: ag_${i}\n    template: desk\n    vars: { business: ${business} }\n${config ? `    config: ${config}\n` : ''}`);
  return `agents:\n${lines.join('')}`;
}

function load(manifest: string, env: Record<string, string> = {}) {
  return loadTree({ ...desk, 'voxform.yaml': manifest }, { templatesDir: 'templates', env });
}

describe('filled-in text limits', () => {
  it('a string of the manifest that would fill in past the limit is refused at its place, and one at the limit is built', async () => {
    // 10 characters a placeholder: 200 of them make 2,000 characters, 201 one text too many.
    const atLimit = await load(agents([{ business: 'yyyyyyyyyy', config: `{ first_message: "${'{{business}}'.repeat(200)}" }` }]));
    expect(summarize(atLimit)).toEqual([]);
    expect(atLimit.state!.agents.get('a0')!.config.first_message).toBe('y'.repeat(2000));
    const pastLimit = await load(agents([{ business: 'yyyyyyyyyy', config: `{ first_message: "${'{{business}}'.repeat(201)}" }` }]));
    expect(summarize(pastLimit)).toEqual([`voxform.yaml:6:30 text_too_long ${ONE_TEXT}`]);
  });

  it("a template's own string grown past the limit by the manifest's value is reported at the line that uses the template", async () => {
    const result = await load(agents([{ business: 'z'.repeat(1995) }]));
    // The template's prompt, filled in with the same value, is reported in its own file.
    expect(summarize(result)).toEqual([`voxform.yaml:4:15 text_too_long ${ONE_TEXT}`, `templates/desk/prompt.md:1:16 text_too_long ${ONE_TEXT}`]);
  });

  it('texts each within the limit are refused once together they pass the total: a prompt filled in for every agent counts each time', async () => {
    // Each agent's prompt is 1,617 characters and its first message 1,611: the second agent passes 5,000.
    const business = 'b'.repeat(1600);
    const result = await load(agents([{ business }, { business }, { business }]));
    const problems = summarize(result);
    expect(problems.length).toBeGreaterThan(0);
    expect(problems.every((line) => line.endsWith(`text_too_long ${ALL_TEXTS}`))).toBe(true);
    const within = await load(agents([{ business }]));
    expect(summarize(within)).toEqual([]);
  });

  it('${env:…} references count as many characters whatever the length of their values: the verdict tells no secret\'s length', async () => {
    const manifest = (references: number) => `agents:\n  a:\n    id: ag_1\n    config: { first_message: "${'${env:TOKEN}'.repeat(references)}" }\n`;
    const refusal = 'voxform.yaml:4:30 text_too_long with ${env:…} references filled in, this text would be longer than 2,000 characters, the limit for one text (no longer one fits in an agent\'s update); use shorter values or fewer references to them';
    for (const token of ['s3cr3t-value-1', 's3cr3t-value-'.padEnd(90, '9')]) {
      const within = await load(manifest(20), { TOKEN: token });
      expect(summarize(within).filter((line) => line.includes('text_too_long'))).toEqual([]);
      const past = await load(manifest(21), { TOKEN: token });
      expect(summarize(past)).toEqual([refusal]);
      expect(JSON.stringify(past.diagnostics)).not.toContain(token);
    }
    // A value longer than the least a reference counts for counts as the least power of two times it that holds it.
    const long = await load(manifest(20), { TOKEN: 't'.repeat(101) });
    expect(summarize(long)).toEqual([refusal]);
  });

  it('a value longer than the least a reference counts for gives the same verdict whatever its length within a power of two of it', async () => {
    // 1,700 characters of the pull request's own beside one reference: a value counted as 200 fits, one counted as 400 does not.
    const manifest = `agents:\n  a:\n    id: ag_1\n    config: { first_message: "${'w'.repeat(1700)}\${env:TOKEN}" }\n`;
    for (const length of [101, 150, 200]) expect(summarize(await load(manifest, { TOKEN: 'k'.repeat(length) })), `${length}`).toEqual([]);
    // Had a value counted as long as it is, 201 to 300 characters would fit and 301 not: the verdict would tell the length.
    for (const length of [201, 250, 300, 400]) expect(summarize(await load(manifest, { TOKEN: 'k'.repeat(length) })).map((line) => line.split(' ')[1]), `${length}`).toEqual(['text_too_long']);
  });
});
