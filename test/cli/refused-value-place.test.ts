/**
 * A value the service refuses in an agent's update (a 422 at `body.config.…`) is one the manifests
 * wrote: the failure's hint names where, as `file:line:col`, so the fix starts at the line and not at
 * the service's path. Against the embedded emulator, in the test's process.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { copyExampleProject, expectCode, runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

it('names the manifest line that wrote a value the service refused', async () => {
  const dir = await copyExampleProject(await tempDir());
  const manifest = path.join(dir, 'agents.example.yaml');
  const text = await readFile(manifest, 'utf8');
  // A knowledge file id written by hand that the account does not have: only the service can tell.
  await writeFile(manifest, text.replace('      first_message: Hi! I can help you book', '      knowledge_base: { files: [kf_not_on_the_account] }\n      first_message: Hi! I can help you book'));
  const line = text.slice(0, text.indexOf('      first_message: Hi! I can help you book')).split('\n').length;

  const failed = expectCode(await runCliInProcess(['apply', '--auto-approve', '-f', 'agents.example.yaml', '--local'], { cwd: dir }), 1);
  expect(failed.stdout).toContain('422 body.config.knowledge_base.files.0: Value error, no knowledge file with this id');
  expect(failed.stdout).toContain(`hint: The service rejected the values named above; agents.example.yaml:${line}:33 writes config.knowledge_base.files[0].`);
});
