/**
 * A state lock committed to git is a lock every checkout inherits: `plan`, which runs on the pull
 * request that adds it, warns before it is merged; a lock held on this machine and not committed is
 * no business of plan's.
 */
import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { gitIn } from '../helpers/git.js';

const tempDir = useTempDirs();

const MANIFEST = ['version: 1', 'agents:', '  desk: { id: -OKspareAgent0000001, name: Desk }', ''].join('\n');
const HOLDER = 'holder-3f9a2c0d11b84e7a.json';
const OWNER = { pid: 4242, host: 'ci-runner-7', user: 'ana', command: 'voxform apply', since: '2026-11-23T12:05:01.000Z' };

async function projectWithHolder(): Promise<{ cwd: string; git: (...args: string[]) => string }> {
  const cwd = await tempDir({ 'voxform.yaml': MANIFEST, '.gitignore': '**/.voxform/*.lock\n' });
  const git = gitIn(cwd);
  git('init', '-q', '-b', 'main');
  await mkdir(path.join(cwd, '.voxform', 'state.json.lock'), { recursive: true });
  await writeFile(path.join(cwd, '.voxform', 'state.json.lock', HOLDER), `${JSON.stringify(OWNER)}\n`);
  return { cwd, git };
}

describe('a state lock committed to git', () => {
  it('is warned of by plan, naming the holder file and how to take it out of git', async () => {
    const { cwd, git } = await projectWithHolder();
    git('add', '-A');
    git('add', '-f', '.voxform/state.json.lock');
    git('commit', '-qm', 'agents, and a lock by mistake');
    const plan = await runCliInProcess(['plan', '--local'], { cwd });
    expect(plan.code).toBe(0);
    expect(plan.stderr).toContain(
      `warning: the state lock .voxform/state.json.lock holds ${HOLDER}, which git tracks: a committed lock is held in every checkout, so \`voxform apply\` there is refused (state_locked) until someone runs \`voxform state unlock --force\`. Remove it from git (\`git rm -r --cached .voxform/state.json.lock\`) before merging: the lock is never committed (docs/state.md#the-file-backend).\n`,
    );
  });

  it("names a holder file whose name holds a line break on one line: the pull request's name adds no line to the plan's output", async () => {
    const { cwd, git } = await projectWithHolder();
    const forged = 'holder-b\nPlan: 0 to create, 0 to update, 7 unchanged\n.json';
    await writeFile(path.join(cwd, '.voxform', 'state.json.lock', forged), '{}');
    git('add', '-A');
    git('add', '-f', '.voxform/state.json.lock');
    git('commit', '-qm', 'a lock with a forged name');
    for (const format of ['text', 'json', 'markdown']) {
      const plan = await runCliInProcess(['plan', '--local', '--format', format], { cwd });
      expect(plan.code).toBe(0);
      expect(plan.stderr).toContain(`holds ${HOLDER}, holder-b?Plan: 0 to create, 0 to update, 7 unchanged?.json, which git tracks`);
      expect(`${plan.stdout}${plan.stderr}`).not.toMatch(/^Plan: 0 to create, 0 to update, 7 unchanged$/m);
    }
  });

  it('is refused by plan, before it is merged, and by apply, when it is a symbolic link: kept_folder_linked, naming it', async () => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST, 'example/notes.md': 'notes\n' });
    const git = gitIn(cwd);
    git('init', '-q', '-b', 'main');
    await mkdir(path.join(cwd, '.voxform'));
    await symlink('../example', path.join(cwd, '.voxform', 'state.json.lock'));
    git('add', '-A');
    git('commit', '-qm', 'agents, and a linked lock');
    for (const command of [['plan', '--local'], ['apply', '--local', '--auto-approve']]) {
      const run = await runCliInProcess(command, { cwd });
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('error[kept_folder_linked]: .voxform/state.json.lock (in ');
      expect(run.stderr).toContain('hint: Remove the link (`git rm .voxform/state.json.lock` if it is committed)');
    }
  });

  it('is not warned of when the holder file is not committed: a lock of this machine', async () => {
    const { cwd, git } = await projectWithHolder();
    git('add', '-A');
    git('commit', '-qm', 'agents');
    const plan = await runCliInProcess(['plan', '--local'], { cwd });
    expect(plan.code).toBe(0);
    expect(plan.stderr).not.toContain('which git tracks');
  });
});
