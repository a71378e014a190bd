/**
 * The state (and its deploy history) is kept per folder, as the `--local` account: run from a
 * subfolder of a project whose folder has a state, a command starts a new one there and says where
 * the project's is (docs/state.md), so an apply from there is not a silent second history.
 */
import { execFileSync } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { STAGED_MANIFEST } from '../helpers/project.js';

const tempDir = useTempDirs();
const STATE = path.join('.voxform', 'state.json');
const NOTE = `note: voxform keeps the state and its deploy history per folder: this folder has none yet, so it starts a new one in ${STATE}; the project's is in ${path.join('..', STATE)}, used when voxform runs from .., or with --state ${path.join('..', STATE)}.\n`;

async function appliedProject(): Promise<string> {
  const dir = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
  execFileSync('git', ['init', '-q'], { cwd: dir });
  await mkdir(path.join(dir, 'sub'));
  const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir });
  expect(apply.code, apply.stderr).toBe(0);
  expect(apply.stderr).not.toContain('deploy history per folder');
  return dir;
}

describe('the state from a subfolder', () => {
  it("says that it starts a new state there, where the project's is, and how to use it", async () => {
    const dir = await appliedProject();
    const below = await runCliInProcess(['plan', '--local', '-f', '..'], { cwd: path.join(dir, 'sub') });
    expect(below.code, below.stderr).toBe(0);
    expect(below.stderr).toContain(NOTE);

    // Named by the operator, the project's state is used and nothing needs saying.
    const named = await runCliInProcess(['plan', '--local', '-f', '..', '--state', path.join('..', STATE)], { cwd: path.join(dir, 'sub') });
    expect(named.code, named.stderr).toBe(0);
    expect(named.stderr).not.toContain('deploy history per folder');
    const fromEnv = await runCliInProcess(['plan', '--local', '-f', '..'], { cwd: path.join(dir, 'sub'), env: { VOXFORM_STATE: path.join('..', STATE) } });
    expect(fromEnv.stderr).not.toContain('deploy history per folder');
  });

  it('says nothing when the run stops on its manifests: it reaches no state', async () => {
    const dir = await appliedProject();
    for (const args of [['plan', '--local'], ['diff', '--local', '--env', 'staging', '--env', 'production'], ['promote', '--local', '--to', 'production']]) {
      const stopped = await runCliInProcess(args, { cwd: path.join(dir, 'sub') });
      expect(stopped.code).toBe(1);
      expect(stopped.stderr).toContain('error[manifest_not_found]');
      expect(stopped.stderr).not.toContain('deploy history per folder');
    }
  });

  it('says nothing once the subfolder has a state of its own, nor outside a git work tree', async () => {
    const dir = await appliedProject();
    const sub = path.join(dir, 'sub');
    expect((await runCliInProcess(['apply', '--local', '--auto-approve', '-f', '..'], { cwd: sub })).code).toBe(0);
    expect((await runCliInProcess(['plan', '--local', '-f', '..'], { cwd: sub })).stderr).not.toContain('deploy history per folder');

    const loose = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    await mkdir(path.join(loose, 'sub'));
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: loose })).code).toBe(0);
    expect((await runCliInProcess(['plan', '--local', '-f', '..'], { cwd: path.join(loose, 'sub') })).stderr).not.toContain('deploy history per folder');
  });
});
