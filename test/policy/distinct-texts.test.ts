/**
 * A text many places share (a YAML alias, a prompt file every agent names) is searched by each
 * built-in rule once, however many agents share it: a pull request of thousands of agents with one
 * long prompt made validate (and the plan on every pull request) search it thousands of times.
 * Each agent still gets its own finding, at its own place. The work is counted, not timed.
 */
import { describe, expect, it, vi } from 'vitest';
import { useTempDirs } from '../helpers/cli.js';
import { policyOf } from './helpers.js';
import { perDistinctText } from '../../src/policy/distinct-texts.js';

const tempDir = useTempDirs();

/** A prompt with a phone number, an e-mail address, a card number and talk of a transfer, `lines` lines long. */
function promptOf(lines: number): string {
  const filler = 'Greet callers warmly and confirm the booking dates back to them.\n'.repeat(lines);
  return `${filler}Call +1 555 123 4567 or mail desk@example.com, card 4111 1111 1111 1111; transfer when asked.`;
}

/** A manifest of `agents` agents that all share one prompt, as a prompt file or as an alias. */
function project(agents: number, shape: 'file' | 'alias', prompt: string): Record<string, string> {
  const lines = ['version: 1', 'agents:'];
  for (let i = 0; i < agents; i++) {
    lines.push(`  a${i}:`, `    id: ag_${i}`, '    config:');
    if (shape === 'file') lines.push('      prompt: { file: prompt.md }');
    else if (i === 0) lines.push('      prompt: &shared |', ...prompt.split('\n').map((line) => `        ${line}`));
    else lines.push('      prompt: *shared');
  }
  return { 'voxform.yaml': `${lines.join('\n')}\n`, 'prompt.md': `${prompt}\n` };
}

/** `agents` agents naming the prompt files `prompts` in turn. */
function projectInTurns(agents: number, prompts: readonly string[]): Record<string, string> {
  const lines = ['version: 1', 'agents:'];
  for (let i = 0; i < agents; i++) lines.push(`  a${i}:`, `    id: ag_${i}`, '    config:', `      prompt: { file: prompt-${i % prompts.length}.md }`);
  return { 'voxform.yaml': `${lines.join('\n')}\n`, ...Object.fromEntries(prompts.map((prompt, i) => [`prompt-${i}.md`, prompt])) };
}

/** How many times a pattern searched one of `texts` (matchAll, exec) while the policy was checked, and the findings. */
async function searchesOf(files: Record<string, string>, ...texts: string[]) {
  const dir = await tempDir(files);
  const matchAll = vi.spyOn(String.prototype, 'matchAll');
  const exec = vi.spyOn(RegExp.prototype, 'exec');
  try {
    const report = await policyOf(dir);
    const searched = (subject: unknown) => texts.includes(String(subject));
    const searches = matchAll.mock.contexts.filter(searched).length + exec.mock.calls.filter(([subject]) => searched(subject)).length;
    return { searches, report };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('a text shared by many agents', () => {
  // Below and above the length past which a string's hash is its length (distinct-texts.ts).
  for (const [size, lines] of [['short', 4], ['long', 400]] as const) {
    for (const shape of ['file', 'alias'] as const) {
      it(`is searched as often for 30 agents as for one (${size} prompt, shared as a ${shape}), and each agent has its own findings`, async () => {
        const prompt = promptOf(lines);
        // A literal block keeps its final line break; a prompt file's is dropped.
        const text = shape === 'alias' ? `${prompt}\n` : prompt;
        const one = await searchesOf(project(1, shape, prompt), text);
        const many = await searchesOf(project(30, shape, prompt), text);
        expect(one.searches).toBeGreaterThan(0);
        expect(many.searches).toBe(one.searches);
        for (const rule of ['pii-phone-number', 'pii-email-address', 'pii-card-number', 'behaviour-transfer-target']) {
          const findings = many.report.findings.filter((finding) => finding.rule === rule);
          expect(findings.map((finding) => finding.resource).sort()).toEqual(Array.from({ length: 30 }, (_, i) => `agent.a${i}`).sort());
          const [first] = one.report.findings.filter((finding) => finding.rule === rule);
          if (shape === 'file') for (const finding of findings) expect(finding.location).toEqual(first?.location);
          else expect(new Set(findings.map((finding) => `${finding.location.line}:${finding.location.col}`)).size).toBe(30);
        }
      });
    }
  }

  it('is searched as often for 30 agents as for two when two long prompts of one length take turns', async () => {
    const prompts = [promptOf(400), promptOf(400).replace('Greet', 'Treat')];
    const two = await searchesOf(projectInTurns(2, prompts), ...prompts);
    const many = await searchesOf(projectInTurns(30, prompts), ...prompts);
    expect(two.searches).toBeGreaterThan(0);
    expect(many.searches).toBe(two.searches);
    expect(many.report.findings.filter((finding) => finding.rule === 'pii-phone-number')).toHaveLength(30);
  });
});

describe('perDistinctText', () => {
  it('computes once per distinct text, long texts of one length that take turns included', () => {
    const computed: string[] = [];
    const lengthOf = perDistinctText((text: string) => (computed.push(text.slice(0, 1)), text.length));
    const [a, b] = ['a', 'b'].map((letter) => letter.repeat(20_000));
    for (const text of [a, a, 'short', b, b, 'short', a, b, a]) lengthOf(text as string);
    expect(computed).toEqual(['a', 's', 'b']);
  });

  it('tells long texts of one length apart wherever they differ, and knows a text again in another string', () => {
    const base = 'x'.repeat(20_000);
    const withAt = (text: string, at: number) => `${text.slice(0, at)}y${text.slice(at + 1)}`;
    const texts = [base, withAt(base, 0), withAt(base, 9_999), withAt(base, 19_999), withAt(withAt(base, 9_999), 19_999), withAt(withAt(base, 5), 19_999)];
    let computations = 0;
    const idOf = perDistinctText(() => computations++);
    const ids = texts.map(idOf);
    expect(ids).toEqual(texts.map((_, index) => index));
    for (const index of [5, 0, 3, 1, 4, 2, 2, 5]) {
      expect(idOf(texts[index] as string)).toBe(index);
      expect(idOf(`${texts[index]}.`.slice(0, -1))).toBe(index);
    }
    expect(computations).toBe(texts.length);
  });
});
