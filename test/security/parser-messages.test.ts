/**
 * A JSON or YAML parser's message quotes the text it refused (`Unexpected token 'z', "zq9XKv7Wpl"...
 * is not valid JSON`), and that text may hold a secret: voxform never passes such a message on. It
 * says where the text stops being JSON or YAML, and what was wrong there, in its own words
 * (src/secrets/error-message.ts, src/project-files/document-text.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDocument } from 'yaml';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { SecretRegistry } from '../../src/secrets/redact.js';
import { errorMessage, errorStack, JSON_PARSE_REFUSED } from '../../src/secrets/error-message.js';
import { yamlErrorSentence } from '../../src/yaml/error-sentence.js';
import { runCli, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { oneAgent } from '../policy/helpers.js';
import { rawExchange, startTestEmulator } from '../emulator/helpers.js';

const tempDir = useTempDirs();

/** Secret-like text of no word any message uses. */
const PLANTED = 'zq9XKv7WplRT3mmHJd4yFbN0';

/** Not one piece of `secret` four characters long is in `text`. */
function expectNoPieceOf(text: string, secret = PLANTED): void {
  for (let start = 0; start + 4 <= secret.length; start++) expect(text).not.toContain(secret.slice(start, start + 4));
}

function thrownBy(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  throw new Error('nothing was thrown');
}

describe("a parser's message", () => {
  it("quotes a prefix of the text, which the scrub of the run's secrets does not catch", () => {
    const error = thrownBy(() => JSON.parse(PLANTED)) as Error;
    expect(error.message).toContain(PLANTED.slice(0, 10));
    const secrets = new SecretRegistry();
    secrets.add(PLANTED);
    // Cut to ten characters, the quote is no registered value.
    expect(secrets.redact(error.message)).toContain(PLANTED.slice(0, 10));
  });

  it('is never shown as the parser wrote it, nor in the stack a debug log prints', () => {
    for (const error of [thrownBy(() => JSON.parse(PLANTED)), thrownBy(() => JSON.parse(`{"key": ${PLANTED}}`)), thrownBy(() => JSON.parse(`"${PLANTED}`))]) {
      expect(errorMessage(error)).toBe(JSON_PARSE_REFUSED);
      expectNoPieceOf(errorStack(error));
    }
    const yamlError = parseDocument(`key: !${PLANTED} x`, { prettyErrors: true }).warnings[0];
    expect(yamlError).toBeDefined();
    expectNoPieceOf(errorMessage(yamlError));
    expect(errorMessage(new Error('an error of our own'))).toBe('an error of our own');
  });

  it.each([
    ['a block scalar header', `key: |${PLANTED}`],
    ['a tag', `key: !${PLANTED} x`],
    ['a directive', `%${PLANTED} x\n---\na: 1`],
  ])('of YAML quoting %s says what was wrong without it', (_what, text) => {
    const document = parseDocument(text, { prettyErrors: true });
    const [first] = [...document.errors, ...document.warnings];
    expect(first?.message).toContain(PLANTED.slice(0, 4));
    const sentence = yamlErrorSentence(first?.message ?? '');
    expect(sentence.length).toBeGreaterThan(5);
    expectNoPieceOf(sentence);
  });
});

describe("the emulator's control routes", () => {
  let emulator: RunningEmulator;
  beforeAll(async () => {
    ({ emulator } = await startTestEmulator());
  });
  afterAll(() => emulator.close());

  const send = (method: string, target: string, type: string, body: string) => {
    const host = `localhost:${new URL(emulator.url).port}`;
    const head = [`${method} ${target} HTTP/1.1`, `Host: ${host}`, `Content-Type: ${type}`, `Content-Length: ${Buffer.byteLength(body)}`];
    return rawExchange(emulator.url, head.join('\r\n'), body);
  };

  it.each([
    ['a JSON seed', 'POST /_emulator/seed', 'application/json', `{"keys": [{"type": "private", "key": ${PLANTED}}]}`, 'the seed is not valid JSON at line 1, column 38: expected a value'],
    ['a YAML seed', 'POST /_emulator/seed', 'application/yaml', `keys:\n  - type: private\n    key: |${PLANTED}\n`, 'the seed is not valid YAML at line 3, column 11: block scalar header includes extra characters'],
    ['a fault rule', 'PUT /_emulator/faults', 'application/json', `[{"path": ${PLANTED}}]`, 'the body is not valid JSON at line 1, column 11: expected a value'],
  ])('answer %s that is not valid with the place and what was wrong, quoting none of it', async (_what, request, type, body, said) => {
    const [method = '', target = ''] = request.split(' ');
    const answer = await send(method, target, type, body);
    expect(answer.status).toBe(400);
    expect(answer.body).toContain(said);
    expectNoPieceOf(answer.body);
  });
});

describe('an operator pack that meets text that is not JSON', () => {
  /** A project folder beside `packs`, holding these files; the project's folder. */
  async function projectAndPacks(packs: Record<string, string>): Promise<string> {
    const files: Record<string, string> = { 'project/voxform.yaml': oneAgent('first_message: Hi.') };
    for (const [name, text] of Object.entries(packs)) files[`packs/${name}`] = text;
    return `${await tempDir(files)}/project`;
  }

  it('says where a JSON file it imports stops being JSON, and what a check that parsed such text threw, quoting neither', async () => {
    const dir = await projectAndPacks({
      'settings.json': `{\n  "token": ${PLANTED}\n}\n`,
      'imports.mjs': "import settings from './settings.json' with { type: 'json' };\nexport const rules = [];\n",
      'parses.mjs': [
        "import { readFileSync } from 'node:fs';",
        "export const rules = [{ id: 'acme-parses', level: 'mandatory', summary: 'S.', hint: 'H.', check() { return JSON.parse(readFileSync(new URL('./settings.json', import.meta.url), 'utf8')); } }];",
        '',
      ].join('\n'),
    });
    // Registered as a secret of the run too: the quote is a prefix, which the scrub misses.
    const env = { VOXFORM_API_KEY: PLANTED };
    // Node's own loader reads the JSON module (the tests' loader would read it its own way): the built CLI.
    const imported = await runCli(['validate'], { cwd: dir, env: { ...env, VOXFORM_POLICY_PACKS: '../packs/imports.mjs' } });
    expect(imported.code).toBe(1);
    expect(imported.stderr).toMatch(/error\[policy_pack_invalid\]: policy pack \.\.\/packs\/imports\.mjs \(VOXFORM_POLICY_PACKS\) could not be loaded: it imports \S+\/packs\/settings\.json, which is not valid JSON at line 2, column 12: expected a value .*, found "z"\./);
    const parsed = await runCliInProcess(['validate', '--format', 'json'], { cwd: dir, env: { ...env, VOXFORM_POLICY_PACKS: '../packs/parses.mjs' } });
    expect(parsed.code).toBe(1);
    expect(JSON.parse(parsed.stdout)).toMatchObject({ error: { code: 'policy_pack_invalid', message: `policy pack ../packs/parses.mjs (VOXFORM_POLICY_PACKS) has rule "acme-parses" whose check threw: ${JSON_PARSE_REFUSED}.` } });
    for (const run of [imported, parsed]) expectNoPieceOf(run.stdout + run.stderr);
  });
});
