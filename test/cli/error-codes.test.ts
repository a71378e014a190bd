/**
 * Every error shows its code (docs/errors.md), in text as in JSON: thrown errors from the CLI's one
 * error printer, manifest diagnostics from its one diagnostic printer.
 */
import { describe, expect, it } from 'vitest';
import { API_ERROR_CODES, COMMAND_ERROR_CODES, DIAGNOSTIC_CODES, PLAN_PROBLEM_CODES } from '../../src/error-codes.js';
import type { Diagnostic } from '../../src/manifest/types.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const MANIFEST = 'version: 1\nagents:\n  front-desk:\n    id: "-OKdqbqetEcM4ak369ym"\n';

/** The code the first line leads with, checked to be one docs/errors.md explains. */
function leadingCode(stderr: string): string {
  const code = /^error\[([a-z_]+)\]: /.exec(stderr)?.[1];
  expect(code, stderr).toBeDefined();
  expect([...COMMAND_ERROR_CODES, ...API_ERROR_CODES, ...PLAN_PROBLEM_CODES]).toContain(code);
  return code as string;
}

describe('the code leads every error in text', () => {
  it('an error a command stops with', async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST });
    const result = await runCliInProcess(['plan', '--local', '--target', 'agent.front-dsek'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(leadingCode(result.stderr)).toBe('target_unknown');
    expect(result.stderr).toBe(
      'error[target_unknown]: --target agent.front-dsek names no resource of the manifests; did you mean agent.front-desk?\n' +
        '  hint: Addresses look like agent.front-desk, phone.+15551230001, campaign.NAME, knowledge.NAME, credential.PROVIDER.\n',
    );
  });

  it.each([
    [['logs', '--format', 'table'], 'invalid_option', 'The value given to --format is not one it takes: choose text, json or ndjson.'],
    [['plan', '--parallelism', '0'], 'invalid_option', 'The value given to --parallelism is not a whole number from 1 to 256.'],
    [['plan', '--no-such-flag'], 'invalid_argument', '`voxform plan` has no option --no-such-flag.'],
    [['no-such-command'], 'invalid_argument', '`voxform` has no command of that name.'],
    [['keys', 'create'], 'invalid_argument', '`voxform keys create` needs --type <type>.'],
  ])('a usage mistake the argument parser finds: %j', async (args, code, message) => {
    const result = await runCliInProcess(args, { cwd: await tempDir({}) });
    expect(result.code).toBe(1);
    expect(leadingCode(result.stderr)).toBe(code);
    const [first, hint, end] = result.stderr.split('\n');
    expect([first, end]).toEqual([`error[${code}]: ${message}`, '']);
    expect(hint).toMatch(/^ {2}hint: Run `voxform [a-z ]*--help` for its (arguments|commands) and options\.$|^ {2}hint: For example: --parallelism 4\.$|^ {2}hint: Its commands: [a-z, ]+ \(`voxform --help` describes them\)\.$/);
  });

  it('JSON carries the same code in its envelope', async () => {
    const result = await runCliInProcess(['validate', '--format', 'json'], { cwd: await tempDir({}) });
    expect(result.code).toBe(1);
    expect((JSON.parse(result.stdout) as { error: { code: string } }).error.code).toBe('manifest_not_found');
  });
});

describe('the code leads every manifest diagnostic in text, as in JSON', () => {
  // An error (a string where a number belongs) and a warning (vars without a template).
  const BROKEN = 'version: 1\nagents:\n  front-desk:\n    id: "-OKdqbqetEcM4ak369ym"\n    vars: { clinic: Ava }\n    config:\n      llm: { temperature: "hot" }\n';

  it('validate prints `file:line:col  severity[code]: message` for each diagnostic its JSON lists', async () => {
    const dir = await tempDir({ 'voxform.yaml': BROKEN });
    const json = await runCliInProcess(['validate', '--format', 'json'], { cwd: dir });
    const { diagnostics } = JSON.parse(json.stdout) as { diagnostics: Diagnostic[] };
    expect(diagnostics.map((d) => [d.severity, d.code])).toEqual([
      ['warning', 'vars_without_template'],
      ['error', 'type_mismatch'],
    ]);
    const text = await runCliInProcess(['validate'], { cwd: dir });
    expect(text.code).toBe(1);
    const lines = text.stderr.split('\n');
    for (const d of diagnostics) {
      expect(DIAGNOSTIC_CODES).toContain(d.code);
      expect(lines).toContain(`${d.file}:${d.line}:${d.col}  ${d.severity}[${d.code}]: ${d.message}`);
    }
    expect(text.stderr).toMatch(/^voxform\.yaml:5:5 {2}warning\[vars_without_template\]: /);
    expect(text.stderr).toContain('voxform.yaml:7:27  error[type_mismatch]: llm.temperature: expected a number, found a string ("hot")\n');
  });

  it('a command that loads manifests prints them the same way before it stops', async () => {
    const dir = await tempDir({ 'voxform.yaml': BROKEN });
    const result = await runCliInProcess(['plan', '--local'], { cwd: dir });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('voxform.yaml:7:27  error[type_mismatch]: llm.temperature: expected a number, found a string ("hot")\n');
    expect(result.stderr).toMatch(/\nerror\[manifest_invalid\]: The manifests have 1 error \(listed above\); nothing was planned\.\n/);
  });

  it('in JSON the envelope carries the diagnostics validate lists, and its sentence points at them there', async () => {
    const dir = await tempDir({ 'voxform.yaml': BROKEN });
    const validated = JSON.parse((await runCliInProcess(['validate', '--format', 'json'], { cwd: dir })).stdout) as { diagnostics: Diagnostic[] };
    const result = await runCliInProcess(['plan', '--local', '--format', 'json'], { cwd: dir });
    expect(result.code).toBe(1);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string; details: { diagnostics: Diagnostic[]; omitted: number } } };
    expect(error.code).toBe('manifest_invalid');
    expect(error.message).toBe('The manifests have 1 error (listed in details.diagnostics); nothing was planned.');
    expect(error.details).toEqual({ diagnostics: validated.diagnostics, omitted: 0 });
    // A JSON format gives them in the JSON only, as validate does: no text frames on stderr.
    expect(result.stderr).toBe('');
  });

  it('in JSON a plan of manifests with only warnings carries them in `diagnostics`, as validate lists them: no text frames on stderr', async () => {
    const planted = 'planted-hook-value-7d2f';
    const manifest = `${MANIFEST}    vars: { clinic: ${planted} }\n    config:\n      session_data_webhook: { url: "https://hooks.example.com/end", headers: { x-token: "\${env:HOOK_TOKEN}" } }\n`;
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const env = { HOOK_TOKEN: planted };
    const validated = JSON.parse((await runCliInProcess(['validate', '--format', 'json'], { cwd: dir, env })).stdout) as { diagnostics: Diagnostic[] };
    expect(validated.diagnostics.map((d) => [d.severity, d.code])).toEqual([['warning', 'vars_without_template']]);
    const result = await runCliInProcess(['plan', '--local', '--format', 'json'], { cwd: dir, env });
    expect(result.code, result.stderr).toBe(0);
    expect((JSON.parse(result.stdout) as { diagnostics: Diagnostic[] }).diagnostics).toEqual(validated.diagnostics);
    expect(result.stderr).not.toContain('warning[');
    expect(`${result.stdout}${result.stderr}`).not.toContain(planted);
    // In text (and Markdown) they are listed on stderr, as before.
    const text = await runCliInProcess(['plan', '--local'], { cwd: dir, env });
    expect(text.stderr).toContain('warning[vars_without_template]');
  });

  it('in JSON a test file with a mistake gives its diagnostics in the envelope too', async () => {
    const dir = await tempDir({ 'voxform.yaml': MANIFEST, 'tests/a.test.yaml': 'agent: frnt-desk\ntests:\n  - name: x\n    turns:\n      - user: hi\n        expect: [{ not_contains: never-said }]\n' });
    const result = await runCliInProcess(['test', '--local', '--format', 'json'], { cwd: dir });
    expect(result.code).toBe(1);
    const { error } = JSON.parse(result.stdout) as { error: { code: string; message: string; details: { diagnostics: Diagnostic[] } } };
    expect([error.code, error.message]).toEqual(['tests_invalid', 'The test files have 1 error (listed in details.diagnostics); no test was run.']);
    expect(error.details.diagnostics.map((d) => [d.severity, d.code, d.file, d.line, d.col])).toEqual([['error', 'reference_missing', 'tests/a.test.yaml', 1, 8]]);
    expect(result.stderr).toBe('');
  });

  it('a secret the manifests read is redacted in the diagnostics the envelope carries', async () => {
    const planted = 'planted-hook-value-5c1e';
    const manifest = `${MANIFEST}    ${planted}: true\n    config:\n      session_data_webhook: { url: "https://hooks.example.com/end", headers: { x-token: "\${env:HOOK_TOKEN}" } }\n`;
    const dir = await tempDir({ 'voxform.yaml': manifest });
    const result = await runCliInProcess(['plan', '--local', '--format', 'json'], { cwd: dir, env: { HOOK_TOKEN: planted } });
    expect(result.code).toBe(1);
    const { error } = JSON.parse(result.stdout) as { error: { details: { diagnostics: Diagnostic[] } } };
    expect(error.details.diagnostics.map((d) => d.code)).toEqual(['unknown_field']);
    expect(error.details.diagnostics[0]?.frame).toContain('(sensitive): true');
    expect(`${result.stdout}${result.stderr}`).not.toContain(planted);
  });
});
