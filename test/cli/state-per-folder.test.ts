/**
 * The state (and its deploy history) is kept per folder, as the `--local` account: run from a
 * subfolder of a project whose folder has a state, a command starts a new one there and says where
 * the project's is (docs/state.md), so an apply from there is not a silent second history; and
 * whenever the manifests named with -f sit in a folder holding another state, it says so.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { STAGED_MANIFEST } from '../helpers/project.js';

const tempDir = useTempDirs();
const STATE = path.join('.voxform', 'state.json');
const NOTE = `note: voxform keeps the state and its deploy history per folder: this folder has none yet, so it starts a new one in ${STATE}; the manifests' folder .. holds another, ${path.join('..', STATE)}, used when voxform runs from .., or with --state ${path.join('..', STATE)}.\n`;
/** The manifests of the folder voxform runs from: the project's state is found as the git work tree's. */
const NOTE_ENCLOSING = `note: voxform keeps the state and its deploy history per folder: this folder has none yet, so it starts a new one in ${STATE}; the project's is in ${path.join('..', STATE)}, used when voxform runs from .., or with --state ${path.join('..', STATE)}.\n`;

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

    // Manifests of the subfolder's own: the enclosing folder of the git work tree holds the project's state.
    await writeFile(path.join(dir, 'sub', 'voxform.yaml'), STAGED_MANIFEST);
    const own = await runCliInProcess(['plan', '--local', '-f', 'voxform.yaml'], { cwd: path.join(dir, 'sub') });
    expect(own.code, own.stderr).toBe(0);
    expect(own.stderr).toContain(NOTE_ENCLOSING);
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

  it("says so whenever the manifests' folder holds another state: once the subfolder has its own, and outside a git work tree", async () => {
    const dir = await appliedProject();
    const sub = path.join(dir, 'sub');
    expect((await runCliInProcess(['apply', '--local', '--auto-approve', '-f', '..'], { cwd: sub })).code).toBe(0);
    expect((await runCliInProcess(['plan', '--local', '-f', '..'], { cwd: sub })).stderr).toContain(
      `note: voxform keeps the state and its deploy history per folder: this run uses this folder's, ${STATE}; the manifests' folder .. holds another, ${path.join('..', STATE)}, used when voxform runs from .., or with --state ${path.join('..', STATE)}.\n`,
    );

    const loose = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    await mkdir(path.join(loose, 'sub'));
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: loose })).code).toBe(0);
    expect((await runCliInProcess(['plan', '--local', '-f', path.join('..', 'voxform.yaml')], { cwd: path.join(loose, 'sub') })).stderr).toContain(
      `note: voxform keeps the state and its deploy history per folder: this folder has none yet, so it starts a new one in ${STATE}; the manifests' folder .. holds another,`,
    );
  });

  it('says nothing outside a git work tree when the manifests are named from their own folder', async () => {
    const loose = await tempDir({ 'voxform.yaml': STAGED_MANIFEST });
    await mkdir(path.join(loose, 'sub'));
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: loose })).code).toBe(0);
    await writeFile(path.join(loose, 'sub', 'voxform.yaml'), STAGED_MANIFEST);
    expect((await runCliInProcess(['plan', '--local'], { cwd: path.join(loose, 'sub') })).stderr).not.toContain('deploy history per folder');
    expect((await runCliInProcess(['plan', '--local', '-f', 'voxform.yaml'], { cwd: path.join(loose, 'sub') })).stderr).not.toContain('deploy history per folder');
  });
});
