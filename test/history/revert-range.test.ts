/**
 * revertRange: whether the commits deployed after a restored commit can be reverted back to it, as
 * git answers for the three shapes of history (linear, a merge into main, a commit off main's line)
 * and when git cannot answer.
 */
import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { revertRange } from '../../src/history/revert-range.js';
import { useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

/** A repository in `project/` of a temp folder, and a way to commit a version of its manifest. */
async function repository() {
  const base = await tempDir({ 'project/voxform.yaml': 'version: 1\n' });
  const dir = path.join(base, 'project');
  const env = { PATH: process.env.PATH ?? '', HOME: base, GIT_CONFIG_NOSYSTEM: '1' };
  const git = (...args: string[]) => execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.com', ...args], { cwd: dir, env }).toString().trim();
  git('init', '-q', '-b', 'main');
  const commit = async (text: string): Promise<string> => {
    await writeFile(path.join(dir, 'voxform.yaml'), `version: 1\n# ${text}\n`);
    git('commit', '-qam', text);
    return git('rev-parse', 'HEAD');
  };
  git('add', '-A');
  git('commit', '-qm', 'start');
  return { base, dir, env, git, commit };
}

describe('revertRange', () => {
  it('a linear history: the restored commit is on the line', async () => {
    const { dir, env, commit } = await repository();
    const restored = await commit('v1');
    await commit('v2');
    const deployed = await commit('v3');
    expect(await revertRange(dir, env, restored, deployed, dir)).toEqual({ onFirstParentLine: true, gitFolder: undefined });
  });

  it('a merge into main: main before the merge is on the line, the merged branch is not', async () => {
    const { dir, env, git, commit } = await repository();
    const restored = await commit('main');
    git('checkout', '-q', '-b', 'feature');
    const branch = await commit('feature');
    git('checkout', '-q', 'main');
    await writeFile(path.join(dir, 'other.yaml'), 'x: 1\n');
    git('add', 'other.yaml');
    git('commit', '-qm', 'other');
    git('merge', '-q', '--no-ff', '-m', 'merge', 'feature');
    const deployed = git('rev-parse', 'HEAD');
    expect((await revertRange(dir, env, restored, deployed, dir)).onFirstParentLine).toBe(true);
    expect((await revertRange(dir, env, branch, deployed, dir)).onFirstParentLine).toBe(false);
  });

  it('a commit the deployed one does not descend from, or deployed before it: not on the line', async () => {
    const { dir, env, git, commit } = await repository();
    const older = await commit('older');
    git('checkout', '-q', '-b', 'other');
    const aside = await commit('aside');
    git('checkout', '-q', 'main');
    const deployed = await commit('main');
    expect((await revertRange(dir, env, aside, deployed, dir)).onFirstParentLine).toBe(false);
    expect((await revertRange(dir, env, deployed, older, dir)).onFirstParentLine).toBe(false);
  });

  it('unknown when git cannot answer (a commit not in this clone, no repository), and the folder to run git in from outside', async () => {
    const { base, dir, env, commit } = await repository();
    const restored = await commit('v1');
    const missing = 'f'.repeat(40);
    expect(await revertRange(dir, env, restored, missing, dir)).toEqual({ onFirstParentLine: undefined, gitFolder: undefined });
    expect(await revertRange(base, env, restored, missing, base)).toEqual({ onFirstParentLine: undefined });
    const deployed = await commit('v2');
    expect(await revertRange(dir, env, restored, deployed, base)).toEqual({ onFirstParentLine: true, gitFolder: 'project' });
  });
});
