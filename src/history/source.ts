/**
 * Where an apply came from, for the ledger: what the CI environment names (GitHub Actions, GitLab CI),
 * else what `git` says, and who ran it. Each value is checked for shape, a strange one dropped.
 * `git` runs only through src/project-files/git.ts: pinned to the project's repository, nothing from it that
 * runs code, no shell. `uncommitted` is asked in CI too: a commit names what was deployed only when
 * nothing was edited beside it. voxform's own files (`.voxform/` at any depth: state, ledger, locks)
 * are never the project's changes: every apply writes them, and docs/ci.md has them committed after it.
 */
import { hostname } from 'node:os';
import { openGitRepository, type GitAnswer } from '../project-files/git.js';
import { gitHubRunUrl, osUser } from '../util/run-identity.js';
import type { DeploySource } from './types.js';

type Env = Readonly<Record<string, string | undefined>>;

/** A full commit id: SHA-1, or SHA-256 in a repository that uses it. */
export const COMMIT = /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/;
/** A branch name as git allows it, printable, not absurdly long. */
export const BRANCH = /^[^\s\x00-\x1f\x7f~^:?*[\\]{1,255}$/;

function commitOf(value: string | undefined): string | undefined {
  const trimmed = value?.trim().toLowerCase();
  return trimmed && COMMIT.test(trimmed) ? trimmed : undefined;
}

function branchOf(value: string | undefined): string | undefined {
  const trimmed = value?.trim();
  return trimmed && BRANCH.test(trimmed) ? trimmed : undefined;
}

function numberOf(value: string | undefined): number | undefined {
  return value && /^[1-9][0-9]{0,9}$/.test(value.trim()) ? Number(value.trim()) : undefined;
}

function httpUrlOf(value: string | undefined): string | undefined {
  if (!value) return undefined;
  try {
    const url = new URL(value);
    // No credentials in a recorded link, ever.
    return (url.protocol === 'https:' || url.protocol === 'http:') && !url.username && !url.password ? url.href : undefined;
  } catch {
    return undefined;
  }
}

function withoutUndefined(source: DeploySource): DeploySource {
  return Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined)) as DeploySource;
}

/** GitHub Actions: the commit, the branch (the pull request's head branch on a pull request), its number, the run's link. */
function gitHubSource(env: Env): DeploySource {
  const pull = /^refs\/pull\/(\d+)\/merge$/.exec(env.GITHUB_REF ?? '');
  return withoutUndefined({
    commit: commitOf(env.GITHUB_SHA),
    branch: branchOf(env.GITHUB_HEAD_REF) ?? branchOf(env.GITHUB_REF_NAME),
    pullRequest: numberOf(pull?.[1]),
    ciJobUrl: httpUrlOf(gitHubRunUrl(env)),
  });
}

/** GitLab CI: the commit, the branch (the merge request's source branch in a merge request pipeline), its number, the job's link. */
function gitLabSource(env: Env): DeploySource {
  return withoutUndefined({
    commit: commitOf(env.CI_COMMIT_SHA),
    branch: branchOf(env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME) ?? branchOf(env.CI_COMMIT_REF_NAME),
    pullRequest: numberOf(env.CI_MERGE_REQUEST_IID),
    ciJobUrl: httpUrlOf(env.CI_JOB_URL),
  });
}

/** The CI's view of the change, when the environment is a CI's. */
export function ciSource(env: Env): DeploySource | undefined {
  if (env.GITHUB_ACTIONS === 'true') return gitHubSource(env);
  if (env.GITLAB_CI === 'true') return gitLabSource(env);
  return undefined;
}

/** The pathspec of the whole work tree but voxform's own files (`.voxform/` at any depth). */
const PROJECT_FILES = ['--', '.', ':(exclude,glob)**/.voxform/**'] as const;

/** The work tree's porcelain v2 status: the branch headers come first, so a cut status still names both. */
async function workTreeStatus(cwd: string, env: Env): Promise<GitAnswer | undefined> {
  const repository = await openGitRepository(cwd, env);
  // No rename detection: it would read the contents of files, which a partial clone fetches.
  return repository?.run(['status', '--porcelain=v2', '--branch', '--untracked-files=normal', '--ignore-submodules=dirty', '--no-renames', ...PROJECT_FILES]);
}

/** A header of the porcelain v2 status (`# branch.oid 0a1b…`), or undefined. */
function header(status: GitAnswer, name: string): string | undefined {
  const prefix = `# ${name} `;
  return status.lines.find((line) => line.startsWith(prefix))?.slice(prefix.length);
}

/** Whether the work tree holds changes (new unignored files count: a manifest may read any); a cut status does. */
function hasChanges(status: GitAnswer): boolean {
  return status.cut || status.lines.some((line) => !line.startsWith('# '));
}

/**
 * What `git` says: the commit, the branch (none when detached), and with `workTree` whether anything
 * beside the commit changed, all from one `git status` (each `git` started costs a copy of the memory
 * map); without it the work tree is not scanned.
 */
export async function gitSource(cwd: string, env: Env, workTree = true): Promise<DeploySource> {
  if (!workTree) {
    const repository = await openGitRepository(cwd, env);
    if (!repository) return {};
    const [commit, branch] = await Promise.all([repository.run(['rev-parse', '--verify', 'HEAD']), repository.run(['branch', '--show-current'])]);
    return withoutUndefined({ commit: commitOf(commit?.lines[0]), branch: branchOf(branch?.lines[0]) });
  }
  const status = await workTreeStatus(cwd, env);
  if (!status) return {};
  const commit = commitOf(header(status, 'branch.oid'));
  const branch = header(status, 'branch.head');
  // Without a commit, "changes beside it" means nothing.
  return withoutUndefined({ commit, branch: branch === '(detached)' ? undefined : branchOf(branch), uncommitted: commit ? hasChanges(status) : undefined });
}

/**
 * Whether commits `a` and `b` hold the same files but voxform's own: then the same manifests made
 * them, and a commit of the state after an apply is still the source that apply deployed. Compares
 * trees by their object ids alone: no file content is read, no diff program run. False when git
 * cannot tell (a commit not in this clone).
 */
export async function sameProjectFiles(cwd: string, env: Env, a: string, b: string): Promise<boolean> {
  if (!COMMIT.test(a) || !COMMIT.test(b)) return false;
  if (a === b) return true;
  const repository = await openGitRepository(cwd, env);
  const answer = await repository?.run(['diff', '--name-only', '--no-renames', '--no-ext-diff', '--no-textconv', a, b, ...PROJECT_FILES]);
  return answer !== undefined && !answer.cut && answer.lines.length === 0;
}

/** The source of an apply run in `cwd`: the CI's, else git's. `workTree: false` when it is not what is deployed. */
export async function detectDeploySource(options: { env: Env; cwd: string; workTree?: boolean }): Promise<DeploySource> {
  const workTree = options.workTree ?? true;
  const fromCi = ciSource(options.env);
  if (fromCi && fromCi.commit) {
    // The CI's commit is what is deployed; git is asked only whether the work tree holds more.
    const status = workTree ? await workTreeStatus(options.cwd, options.env) : undefined;
    return withoutUndefined({ ...fromCi, uncommitted: status ? hasChanges(status) : undefined });
  }
  const fromGit = await gitSource(options.cwd, options.env, workTree);
  return { ...fromGit, ...fromCi };
}

/** `user@host`: the CI's user who started the run when the CI names one, else the account running voxform. */
export function deployer(env: Env, host: string = hostname()): string {
  const ciUser = [env.GITHUB_ACTOR, env.GITLAB_USER_LOGIN].find((value) => value !== undefined && /^[\w.@-]{1,100}$/.test(value));
  return `${ciUser ?? osUser()}@${host}`;
}
