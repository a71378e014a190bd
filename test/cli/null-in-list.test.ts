/**
 * A field written `null` inside a list item (a tool's `timeout: null`): a list is sent whole, so the
 * item has no such field. Against the embedded emulator, in the test's process: the apply sends the
 * list without it, and the plan after it has nothing to do.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { copyExampleProject, expectCode, runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

it('applies a list whose item clears a field, and then plans no changes', async () => {
  const dir = await copyExampleProject(await tempDir());
  const manifest = path.join(dir, 'agents.example.yaml');
  const text = await readFile(manifest, 'utf8');
  await writeFile(manifest, text.replace('          timeout: 5000\n', '          timeout: null\n').replace('{ name: treatment, required: false,', '{ name: treatment, required: null,'));
  const vx = (...args: string[]) => runCliInProcess([...args, '-f', 'agents.example.yaml', '--local'], { cwd: dir });

  const applied = expectCode(await vx('apply', '--auto-approve'), 0);
  expect(applied.stdout).toContain('Apply complete: 7 applied, 0 failed, 0 skipped.');
  const planned = expectCode(await vx('plan', '--detailed-exitcode'), 0);
  expect(planned.stdout).toMatch(/\nPlan: 0 to create, 0 to update, 7 unchanged\n/);
});
