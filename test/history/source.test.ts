import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ciSource, deployer, detectDeploySource, gitSource, projectFilesChanged } from '../../src/history/source.js';
import { useTempDirs } from '../helpers/cli.js';
import { commitAll, git } from '../helpers/git.js';

const tempDir = useTempDirs();
const SHA = '0123456789abcdef0123456789abcdef01234567';

/** The files a deploy was made from, absolute: `voxform.yaml` and `others` in `dir`. */
function deployed(dir: string, ...others: string[]): string[] {
  return ['voxform.yaml', ...others].map((file) => path.join(dir, file));
}

/**
 * The repository every `gitRepo` starts as, made once for the file: each test takes a copy of it, so
 * none sees what another changed, and the four git runs that make one are not run again per test.
 */
let template: { dir: string; commit: string };
beforeAll(async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'voxform-git-template-'));
  await writeFile(path.join(dir, 'voxform.yaml'), 'agents: {}\n');
  git(dir, 'init', '-q', '-b', 'feature/x');
  template = { dir, commit: commitAll(dir, 'c1') };
});
afterAll(async () => {
  if (template) await rm(template.dir, { recursive: true, force: true });
});

/** A git repository with one commit on `feature/x` (a copy of the file's template); resolves to its folder and the commit id. */
async function gitRepo(): Promise<{ dir: string; commit: string }> {
  const dir = await tempDir();
  await cp(template.dir, dir, { recursive: true });
  return { dir, commit: template.commit };
}

describe('ciSource', () => {
  it('reads GitHub Actions: the pull request head branch, its number and the run link', () => {
    const env = {
      GITHUB_ACTIONS: 'true',
      GITHUB_SHA: SHA,
      GITHUB_REF: 'refs/pull/42/merge',
      GITHUB_REF_NAME: '42/merge',
      GITHUB_HEAD_REF: 'feature/prompt',
      GITHUB_SERVER_URL: 'https://github.com',
      GITHUB_REPOSITORY: 'acme/agents',
      GITHUB_RUN_ID: '987',
    };
    expect(ciSource(env)).toEqual({ commit: SHA, branch: 'feature/prompt', pullRequest: 42, ciJobUrl: 'https://github.com/acme/agents/actions/runs/987' });
  });

  it('reads GitHub Actions on a push: the branch from GITHUB_REF_NAME, no pull request', () => {
    expect(ciSource({ GITHUB_ACTIONS: 'true', GITHUB_SHA: SHA, GITHUB_REF: 'refs/heads/main', GITHUB_REF_NAME: 'main', GITHUB_HEAD_REF: '' })).toEqual({ commit: SHA, branch: 'main' });
  });

  it('reads GitLab CI: the merge request and the job link', () => {
    const env = { GITLAB_CI: 'true', CI_COMMIT_SHA: SHA, CI_COMMIT_REF_NAME: 'feature/a', CI_MERGE_REQUEST_IID: '7', CI_JOB_URL: 'https://gitlab.example.com/acme/agents/-/jobs/55' };
    expect(ciSource(env)).toEqual({ commit: SHA, branch: 'feature/a', pullRequest: 7, ciJobUrl: 'https://gitlab.example.com/acme/agents/-/jobs/55' });
  });

  it('drops values of the wrong shape instead of recording them', () => {
    const env = { GITLAB_CI: 'true', CI_COMMIT_SHA: 'not-a-sha', CI_COMMIT_REF_NAME: 'bad\nbranch', CI_MERGE_REQUEST_IID: '7; rm', CI_JOB_URL: 'https://user:pw@gitlab.example.com/x' };
    expect(ciSource(env)).toEqual({});
  });

  it('is undefined outside a CI', () => {
    expect(ciSource({ GITHUB_SHA: SHA })).toBeUndefined();
  });
});

describe('git', () => {
  it('finds the commit and the branch of the project folder', async () => {
    const { dir, commit } = await gitRepo();
    expect(await gitSource(dir, { PATH: process.env.PATH ?? '' }, deployed(dir))).toEqual({ commit, branch: 'feature/x', uncommitted: false });
  });

  it('says when the work tree holds changes the commit does not: edited, staged, new; ignored files do not count', async () => {
    const env = { PATH: process.env.PATH ?? '' };
    const edited = await gitRepo();
    await writeFile(path.join(edited.dir, 'voxform.yaml'), 'agents: { a: {} }\n');
    expect(await gitSource(edited.dir, env, deployed(edited.dir))).toEqual({ commit: edited.commit, branch: 'feature/x', uncommitted: true });
    const staged = await gitRepo();
    await writeFile(path.join(staged.dir, 'voxform.yaml'), 'agents: { b: {} }\n');
    git(staged.dir, 'add', 'voxform.yaml');
    expect((await gitSource(staged.dir, env, deployed(staged.dir))).uncommitted).toBe(true);
    const added = await gitRepo();
    await mkdir(path.join(added.dir, 'prompts'));
    await writeFile(path.join(added.dir, 'prompts', 'new.md'), 'A new prompt.\n');
    expect((await gitSource(added.dir, env, deployed(added.dir, 'prompts/new.md'))).uncommitted).toBe(true);
    const ignoring = await gitRepo();
    await writeFile(path.join(ignoring.dir, '.gitignore'), '.voxform/\n');
    git(ignoring.dir, 'add', '.gitignore');
    git(ignoring.dir, 'commit', '-qm', 'c2');
    await mkdir(path.join(ignoring.dir, '.voxform'));
    await writeFile(path.join(ignoring.dir, '.voxform', 'state.json'), '{}');
    expect((await gitSource(ignoring.dir, env, deployed(ignoring.dir))).uncommitted).toBe(false);
  });

  it("never counts voxform's own files (.voxform/ at any depth) as changes, ignored or not, new or edited", async () => {
    const env = { PATH: process.env.PATH ?? '' };
    const { dir, commit } = await gitRepo();
    // What `voxform init` ignores, and no more: the state and the ledger are meant to be committed.
    await writeFile(path.join(dir, '.gitignore'), '**/.voxform/local.json\n**/.voxform/*.lock\n');
    await mkdir(path.join(dir, '.voxform', 'history'), { recursive: true });
    await writeFile(path.join(dir, '.voxform', 'state.json'), '{}');
    commitAll(dir, 'state');
    await writeFile(path.join(dir, '.voxform', 'state.json'), '{"edited":true}');
    await writeFile(path.join(dir, '.voxform', 'history', 'r1.json'), '{}');
    await mkdir(path.join(dir, 'agents', '.voxform'), { recursive: true });
    await writeFile(path.join(dir, 'agents', '.voxform', 'state.json'), '{}');
    expect((await gitSource(dir, env, deployed(dir))).uncommitted).toBe(false);
    expect((await detectDeploySource({ env: { ...env, GITHUB_ACTIONS: 'true', GITHUB_SHA: commit, GITHUB_REF_NAME: 'main' }, cwd: dir, files: deployed(dir) })).uncommitted).toBe(false);
    // A file beside them still counts, even one whose name merely ends like the folder.
    await mkdir(path.join(dir, 'x.voxform'));
    await writeFile(path.join(dir, 'x.voxform', 'prompt.md'), 'A prompt.\n');
    expect((await gitSource(dir, env, deployed(dir, 'x.voxform/prompt.md'))).uncommitted).toBe(true);
  });

  it("takes two commits for the same project files when they differ only in voxform's own files", async () => {
    const env = { PATH: process.env.PATH ?? '' };
    const { dir, commit } = await gitRepo();
    await mkdir(path.join(dir, '.voxform', 'history'), { recursive: true });
    await writeFile(path.join(dir, '.voxform', 'state.json'), '{}');
    await writeFile(path.join(dir, '.voxform', 'history', 'r1.json'), '{}');
    const stateCommitted = commitAll(dir, 'state');
    expect(await projectFilesChanged(dir, env, commit, stateCommitted, deployed(dir))).toEqual([]);
    await writeFile(path.join(dir, 'voxform.yaml'), 'agents: { edited: {} }\n');
    const edited = commitAll(dir, 'edit');
    expect(await projectFilesChanged(dir, env, commit, edited, deployed(dir))).toEqual(['voxform.yaml']);
    expect(await projectFilesChanged(dir, env, stateCommitted, edited, deployed(dir))).toEqual(['voxform.yaml']);
    // Named from where the user is: the manifests' folder asked, a parent's path given.
    expect(await projectFilesChanged(dir, env, stateCommitted, edited, deployed(dir), path.dirname(dir))).toEqual([path.join(path.basename(dir), 'voxform.yaml')]);
    // A commit this clone does not hold: not known to be the same.
    expect(await projectFilesChanged(dir, env, commit, SHA, deployed(dir))).toBeUndefined();
  });

  it('asks only about the files the deploy was made from: a saved plan, notes or CI output beside them never count', async () => {
    const env = { PATH: process.env.PATH ?? '' };
    const { dir, commit } = await gitRepo();
    await mkdir(path.join(dir, 'prompts'));
    await writeFile(path.join(dir, 'prompts', 'desk.md'), 'You are the front desk.\n');
    await writeFile(path.join(dir, 'prompts', 'p*.md'), 'A prompt whose name is a glob.\n');
    const head = commitAll(dir, 'prompts');
    const files = deployed(dir, 'prompts/desk.md', 'prompts/p*.md');
    await writeFile(path.join(dir, 'plan.json'), '{}');
    await writeFile(path.join(dir, 'notes.txt'), 'to do\n');
    await mkdir(path.join(dir, 'voxform-ci', 'staging'), { recursive: true });
    await writeFile(path.join(dir, 'voxform-ci', 'staging', 'plan.json'), '{}');
    // A file the deploy did not read, even one a glob among the files read would match: named literally.
    await writeFile(path.join(dir, 'prompts', 'pending.md'), 'A draft.\n');
    expect(await gitSource(dir, env, files)).toEqual({ commit: head, branch: 'feature/x', uncommitted: false });
    expect((await detectDeploySource({ env: { ...env, GITLAB_CI: 'true', CI_COMMIT_SHA: head }, cwd: dir, files })).uncommitted).toBe(false);
    // A template or other file outside the repository is not git's to answer for.
    expect((await gitSource(dir, env, [...files, path.join(path.dirname(dir), 'templates', 'template.yaml')])).uncommitted).toBe(false);
    // A commit that adds only such files holds the same deploy.
    const withPlan = commitAll(dir, 'plan');
    expect(await projectFilesChanged(dir, env, head, withPlan, files)).toEqual([]);
    expect(await projectFilesChanged(dir, env, commit, withPlan, files)).toEqual(['prompts/desk.md', 'prompts/p*.md']);
    // An edited prompt the deploy read still counts.
    await writeFile(path.join(dir, 'prompts', 'desk.md'), 'You are the night desk.\n');
    expect((await gitSource(dir, env, files)).uncommitted).toBe(true);
  });

  it('counts a status too long to read as uncommitted changes, not as unknown', async () => {
    const { dir, commit } = await gitRepo();
    // 400 new knowledge files of long names: each a line of short status over 180 bytes long, more
    // in all than the 64 KiB git's answer is read for (and few files to write: size is the point).
    const files = Array.from({ length: 400 }, (_, i) => `untracked-file-${'with-a-long-name-'.repeat(10)}${String(i).padStart(5, '0')}.md`);
    await Promise.all(files.map((file) => writeFile(path.join(dir, file), '')));
    // The commit and the branch come first in git's answer: what is cut is only the count of changes.
    expect(await gitSource(dir, { PATH: process.env.PATH ?? '' }, deployed(dir, ...files))).toEqual({ commit, branch: 'feature/x', uncommitted: true });
  });

  it('names no branch on a detached checkout, and no commit before the first', async () => {
    const { dir, commit } = await gitRepo();
    const env = { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1' };
    git(dir, 'checkout', '-q', '--detach');
    expect(await gitSource(dir, env, deployed(dir))).toEqual({ commit, uncommitted: false });
    const fresh = await tempDir({ 'voxform.yaml': 'agents: {}\n' });
    git(fresh, 'init', '-q', '-b', 'main');
    expect(await gitSource(fresh, env, deployed(fresh))).toEqual({ branch: 'main' });
  });

  it('gives nothing, without failing, outside a repository and when git is absent', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'agents: {}\n' });
    await writeFile(path.join(dir, 'x'), '');
    expect(await gitSource(dir, { PATH: process.env.PATH ?? '', GIT_CEILING_DIRECTORIES: path.dirname(dir) }, deployed(dir))).toEqual({});
    const { dir: repo } = await gitRepo();
    expect(await gitSource(repo, { PATH: path.join(dir, 'no-such-bin') }, deployed(repo))).toEqual({});
  });

  it('prefers the CI commit, and falls back to git when the CI names none', async () => {
    const { dir, commit } = await gitRepo();
    const env = { PATH: process.env.PATH ?? '' };
    expect(await detectDeploySource({ env: { ...env, GITHUB_ACTIONS: 'true', GITHUB_SHA: SHA, GITHUB_REF_NAME: 'main' }, cwd: dir, files: deployed(dir) })).toEqual({ commit: SHA, branch: 'main', uncommitted: false });
    expect(await detectDeploySource({ env: { ...env, GITLAB_CI: 'true', CI_JOB_URL: 'https://gitlab.example.com/j/1' }, cwd: dir, files: deployed(dir) })).toEqual({
      commit,
      branch: 'feature/x',
      uncommitted: false,
      ciJobUrl: 'https://gitlab.example.com/j/1',
    });
    expect(await detectDeploySource({ env, cwd: dir, files: deployed(dir) })).toEqual({ commit, branch: 'feature/x', uncommitted: false });
  });

  it('takes the pull request the CI host found (the one that merged the commit) when the runner names none; the runner\'s own wins', async () => {
    const { dir } = await gitRepo();
    const env = { PATH: process.env.PATH ?? '', GITHUB_ACTIONS: 'true', GITHUB_SHA: SHA };
    expect(await detectDeploySource({ env: { ...env, GITHUB_REF: 'refs/heads/main', GITHUB_REF_NAME: 'main' }, cwd: dir, files: deployed(dir), review: 7 })).toEqual({ commit: SHA, branch: 'main', pullRequest: 7, uncommitted: false });
    expect((await detectDeploySource({ env: { ...env, GITHUB_REF: 'refs/pull/9/merge' }, cwd: dir, review: 7 })).pullRequest).toBe(9);
    expect((await detectDeploySource({ env, cwd: dir, review: 0 })).pullRequest).toBeUndefined();
    expect((await detectDeploySource({ env: { PATH: env.PATH }, cwd: dir, review: 7 })).pullRequest).toBeUndefined();
  });

  it('does not ask about the work tree for a deploy of something else (a rollback): no uncommitted, from CI or git', async () => {
    const { dir, commit } = await gitRepo();
    const env = { PATH: process.env.PATH ?? '' };
    await writeFile(path.join(dir, 'voxform.yaml'), 'agents: { edited: {} }\n');
    expect(await detectDeploySource({ env, cwd: dir })).toEqual({ commit, branch: 'feature/x' });
    expect(await detectDeploySource({ env: { ...env, GITHUB_ACTIONS: 'true', GITHUB_SHA: SHA, GITHUB_REF_NAME: 'main' }, cwd: dir })).toEqual({ commit: SHA, branch: 'main' });
    expect((await detectDeploySource({ env, cwd: dir, files: deployed(dir) })).uncommitted).toBe(true);
  });

  it('asks git for uncommitted changes in CI too, and leaves them unknown where there is no repository', async () => {
    const { dir } = await gitRepo();
    const env = { PATH: process.env.PATH ?? '' };
    await writeFile(path.join(dir, 'generated.yaml'), 'agents: {}\n');
    expect(await detectDeploySource({ env: { ...env, GITHUB_ACTIONS: 'true', GITHUB_SHA: SHA, GITHUB_REF_NAME: 'main' }, cwd: dir, files: deployed(dir, 'generated.yaml') })).toEqual({ commit: SHA, branch: 'main', uncommitted: true });
    const outside = await tempDir({ 'voxform.yaml': 'agents: {}\n' });
    const ceiling = { ...env, GIT_CEILING_DIRECTORIES: path.dirname(outside) };
    expect(await detectDeploySource({ env: { ...ceiling, GITHUB_ACTIONS: 'true', GITHUB_SHA: SHA, GITHUB_REF_NAME: 'main' }, cwd: outside, files: deployed(outside) })).toEqual({ commit: SHA, branch: 'main' });
  });
});

describe('deployer', () => {
  it('is the CI user when the CI names one, else the account, at the host', () => {
    expect(deployer({ GITHUB_ACTOR: 'octocat' }, 'runner-1')).toBe('octocat@runner-1');
    expect(deployer({ GITLAB_USER_LOGIN: 'dev.one' }, 'h')).toBe('dev.one@h');
    expect(deployer({ GITHUB_ACTOR: 'bad name\n' }, 'h')).toMatch(/^[^\n ]+@h$/);
  });
});
