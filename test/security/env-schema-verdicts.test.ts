/**
 * No verdict a pull request reads depends on a value of the environment (docs/security.md §5): the
 * schema checks a string that holds an `${env:…}` reference as written, never filled in, so padding
 * around a reference cannot test a secret's length or characters.
 */
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

function agent(config: string, rest = ''): string {
  return `version: 1\nagents:\n  a:\n    id: ag_1\n${rest}    config:\n      prompt: hi\n${config}`;
}

const RECEPTIONIST_VARS = '      business: Acme\n      business_description: dental\n      opening_hours: 9-5\n      transfer_number: "+1${env:HOOK_TOKEN}"\n';

/** Two planted values: one all digits of a phone number's length, one that is no number at all. */
const DIGITS = '1234567';
const LETTERS = 'abcdefghij';

async function outputs(files: Record<string, string>, token: string): Promise<string[]> {
  const dir = await tempDir(files);
  const env = { HOOK_TOKEN: token, VOXFORM_ENV_ALLOW: 'HOOK_TOKEN' };
  const text = await runCliInProcess(['validate'], { cwd: dir, env });
  const json = await runCliInProcess(['validate', '--format', 'json'], { cwd: dir, env });
  return [String(text.code), text.stdout, text.stderr, String(json.code), json.stdout, json.stderr];
}

describe('the schema checks a value from ${env:…} as written', () => {
  const cases: Record<string, Record<string, string>> = {
    'a transfer number padded before the reference': { 'voxform.yaml': agent('      flow:\n        call_transfer: { phone: "+1555${env:HOOK_TOKEN}", instruction: t }\n') },
    'a transfer number in a template variable': { 'voxform.yaml': `version: 1\nagents:\n  a:\n    id: ag_1\n    template: receptionist\n    vars:\n${RECEPTIONIST_VARS}` },
  };
  for (const [name, files] of Object.entries(cases)) {
    it(`${name}: byte-identical output for two values, in text and JSON`, async () => {
      expect(await outputs(files, DIGITS)).toEqual(await outputs(files, LETTERS));
    });
  }

  it('an ignore entry: byte-identical output for a field that exists and one that does not', async () => {
    const files = { 'voxform.yaml': agent('', '    ignore: ["${env:HOOK_TOKEN}"]\n') };
    expect(await outputs(files, 'config.llm')).toEqual(await outputs(files, 'config.lml'));
  });

  it('a padded transfer number is valid, as the service will judge the value itself on apply', async () => {
    const [code, stdout] = await outputs(cases['a transfer number padded before the reference'] as Record<string, string>, LETTERS);
    expect(code).toBe('0');
    expect(stdout).toContain('is valid');
  });

  it('a transfer number that is one reference still validates; a literal that is no number is still refused', async () => {
    const dir = await tempDir({ 'voxform.yaml': agent('      flow:\n        call_transfer: { phone: "${env:TRANSFER_PHONE}", instruction: t }\n') });
    const valid = await runCliInProcess(['validate'], { cwd: dir, env: { TRANSFER_PHONE: '+15551239999' } });
    expect(valid.code, valid.stderr).toBe(0);
    const literal = await tempDir({ 'voxform.yaml': agent('      flow:\n        call_transfer: { phone: "+1555x", instruction: t }\n') });
    const refused = await runCliInProcess(['validate'], { cwd: literal });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('flow.call_transfer.phone: "+1555x" is not an E.164 phone number');
  });

  it('a credential provider never comes from the environment (env_forbidden), in an overlay not in use too', async () => {
    const dir = await tempDir({
      'voxform.yaml': `version: 1\ncredentials:\n  - { provider: "${'${env:HOOK_TOKEN}'}", api_key: k-123456 }\nenvironments:\n  prod:\n    credentials:\n      - { provider: "${'${env:OTHER}'}", api_key: k-123456 }\n`,
    });
    const result = await runCliInProcess(['validate', '--env', 'prod'], { cwd: dir, env: { HOOK_TOKEN: DIGITS } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("error[env_forbidden]: ${env:…} cannot be used in a credential's provider");
  });
});
