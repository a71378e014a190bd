/**
 * A recording is a repository file: what it keeps of the configuration a run sent (its keyed field
 * fingerprints, for `--mode auto`) holds no secret a guess could be tested against offline, sent
 * `--with-secrets` too. Under `--local` the fingerprints' key comes from the folder's account, which
 * the checkout holds (the default one is documented), so the fields are fingerprinted withheld.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { DEFAULT_PRIVATE_KEY } from '../../src/emulator/default-seed.js';
import { fingerprintKey, keyedHash } from '../../src/util/hash.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const SECRET = 'HookSecret-7f3a9c2e41';

it('--local --with-secrets --mode record: no field fingerprint is the keyed hash of a secret sent', async () => {
  const project = await tempDir({
    'voxform.yaml':
      'version: 1\nagents:\n  front-desk:\n    id: -OKdqbqetEcM4ak369ym\n    config:\n      first_message: Hello there\n      session_data_webhook: { url: "https://hooks.example.com/end", headers: { x-hook-token: "${env:HOOK_TOKEN}" } }\n',
    'tests/greet.test.yaml': 'agent: front-desk\ntests:\n  - name: greets\n    turns: [{ expect: [{ contains: Hello }] }]\n',
  });
  const env = { VOXFORM_ENV_ALLOW: 'HOOK_TOKEN', HOOK_TOKEN: SECRET };
  const recorded = await runCliInProcess(['test', 'tests', '--local', '--with-secrets', '--mode', 'record'], { cwd: project, env });
  expect(recorded.code, `${recorded.stdout}${recorded.stderr}`).toBe(0);
  const recording = JSON.parse(await readFile(path.join(project, 'tests', 'greet.recording.json'), 'utf8')) as { sent_configs: Array<{ fields: Record<string, string> }> };
  const fields = recording.sent_configs.flatMap((sent) => Object.entries(sent.fields));
  expect(fields.map(([field]) => field)).toContain('config.session_data_webhook.headers.x-hook-token');
  const guess = keyedHash(fingerprintKey(DEFAULT_PRIVATE_KEY), SECRET);
  expect(fields.filter(([, hash]) => hash === guess)).toEqual([]);
  // Still told apart from a change: the first message's fingerprint is its own.
  expect(Object.fromEntries(fields)['config.first_message']).toBe(keyedHash(fingerprintKey(DEFAULT_PRIVATE_KEY), 'Hello there'));
});
