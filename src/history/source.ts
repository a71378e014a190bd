/**
 * Where an apply came from, for the ledger: what the CI environment names (GitHub Actions, GitLab CI),
 * else what `git` says, and who ran it. Each value is checked for shape, a strange one dropped.
 * `git` runs only through src/project-files/git.ts: pinned to the project's repository, nothing from it that
 * runs code, no shell. `uncommitted` is asked in CI too: a commit names what was deployed only when
 * nothing the deploy was made from was edited beside it. Git is asked about those files alone (the
 * manifests and every file the loader read for them): a saved plan, CI output or notes beside them,
 * and voxform's own files (`.voxform/`: state, ledger, locks), are never the deploy's changes.
 */
import { realpath } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { openGitRepository, pathFromRoot, runEntries, type GitAnswer, type GitRepository } from '../project-files/git.js';
import { httpUrl } from '../util/http-url.js';
import { isPositiveWhole } from '../util/json-shape.js';
import { ciReviewNumber, gitHubRunUrl, osUser } from '../util/run-identity.js';
import type { DeploySource } from './types.js';
import { requireOptions } from '../util/required-options.js';

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

function withoutUndefined(source: DeploySource): DeploySource {
  return Object.fromEntries(Object.entries(source).filter(([, value]) => value !== undefined)) as DeploySource;
}

/** GitHub Actions: the commit, the branch (the pull request's head branch on a pull request), its number, the run's link. */
function gitHubSource(env: Env): DeploySource {
  return withoutUndefined({
    commit: commitOf(env.GITHUB_SHA),
    branch: branchOf(env.GITHUB_HEAD_REF) ?? branchOf(env.GITHUB_REF_NAME),
    pullRequest: ciReviewNumber('github', env),
    ciJobUrl: httpUrl(gitHubRunUrl(env) ?? '')?.href,
  });
}

/** GitLab CI: the commit, the branch (the merge request's source branch in a merge request pipeline), its number, the job's link. */
function gitLabSource(env: Env): DeploySource {
  return withoutUndefined({
    commit: commitOf(env.CI_COMMIT_SHA),
    branch: branchOf(env.CI_MERGE_REQUEST_SOURCE_BRANCH_NAME) ?? branchOf(env.CI_COMMIT_REF_NAME),
    pullRequest: ciReviewNumber('gitlab', env),
    ciJobUrl: httpUrl(env.CI_JOB_URL ?? '')?.href,
  });
}

/** The CI's view of the change, when the environment is a CI's. */
export function ciSource(env: Env): DeploySource | undefined {
  if (env.GITHUB_ACTIONS === 'true') return gitHubSource(env);
  if (env.GITLAB_CI === 'true') return gitLabSource(env);
  return undefined;
}

/**
 * The literal pathspecs of `files` inside the repository, after `--`: each file as named (a symbolic
 * link is what git tracks) and where it leads. None for a file outside it (a package's template).
 */
async function pathspecs(repository: GitRepository, files: readonly string[]): Promise<string[]> {
  const places = await Promise.all(
    files.map(async (file) => {
      const absolute = path.resolve(file);
      const folder = await realpath(path.dirname(absolute)).catch(() => path.dirname(absolute));
      return [path.join(folder, path.basename(absolute)), await realpath(absolute).catch(() => absolute)];
    }),
  );
  const inside = new Set<string>();
  for (const place of places.flat()) {
    const relative = pathFromRoot(repository.root, place);
    if (relative) inside.add(`:(literal)${relative}`);
  }
  return ['--', ...[...inside].sort()];
}

/**
 * How the deploy's files are asked about: untracked files count, no rename detection (it would read
 * the contents of files, which a partial clone fetches).
 */
const STATUS = ['status', '--porcelain=v2', '--untracked-files=normal', '--ignore-submodules=dirty', '--no-renames'] as const;

/**
 * The porcelain v2 status of `files` (the branch headers come first, so a cut status still names
 * both).
 */
async function workTreeStatus(cwd: string, env: Env, files: readonly string[]): Promise<GitAnswer | undefined> {
  const repository = await openGitRepository(cwd, env);
  if (!repository) return undefined;
  const paths = await pathspecs(repository, files);
  // No file of the deploy in the repository: nothing of it can differ, and `--` alone would mean every
  // file, so the pathspec excludes them all (`*` matches every path): the headers alone remain.
  const scope = paths.length > 1 ? paths : ['--', ':(exclude)*'];
  return repository.run([...STATUS, '--branch', ...scope]);
}

/** A header of the porcelain v2 status (`# branch.oid 0a1b…`), or undefined. */
function header(status: GitAnswer, name: string): string | undefined {
  const prefix = `# ${name} `;
  return status.lines.find((line) => line.startsWith(prefix))?.slice(prefix.length);
}

/** Whether a file of the deploy changed beside the commit (a new unignored one counts); a cut status does. */
function hasChanges(status: GitAnswer): boolean {
  return status.cut || status.lines.some((line) => !line.startsWith('# '));
}

/**
 * The paths in git's `-z` answer (runEntries) to `args` about the deploy's `files` (their pathspecs
 * follow `args`). `pathOf` reads an entry's path (undefined: none); each is given as a path from
 * `from`, sorted. None when no file of the deploy is in the repository; undefined when git cannot
 * tell (no repository, no answer, or one cut).
 */
async function pathsAnswered(cwd: string, env: Env, files: readonly string[], args: readonly string[], from: string, pathOf: (entry: string) => string | undefined): Promise<string[] | undefined> {
  const repository = await openGitRepository(cwd, env);
  if (!repository) return undefined;
  const paths = await pathspecs(repository, files);
  if (paths.length === 1) return [];
  const answer = await runEntries(repository, [...args, ...paths]);
  if (!answer || answer.cut) return undefined;
  const found = answer.entries.flatMap((entry) => pathOf(entry) ?? []);
  const here = await realpath(from).catch(() => from);
  return found.map((file) => path.relative(here, path.join(repository.root, file)) || '.').sort();
}

/**
 * What `git` says: the commit, the branch (none when detached), and with `files` (what the deploy is
 * made from, absolute) whether any of them differs from the commit, all from one `git status` (each
 * `git` started costs a copy of the memory map); without them the work tree is not asked about.
 */
export async function gitSource(cwd: string, env: Env, files?: readonly string[]): Promise<DeploySource> {
  if (!files) {
    const repository = await openGitRepository(cwd, env);
    if (!repository) return {};
    const [commit, branch] = await Promise.all([repository.run(['rev-parse', '--verify', 'HEAD']), repository.run(['branch', '--show-current'])]);
    return withoutUndefined({ commit: commitOf(commit?.lines[0]), branch: branchOf(branch?.lines[0]) });
  }
  const status = await workTreeStatus(cwd, env, files);
  if (!status) return {};
  const commit = commitOf(header(status, 'branch.oid'));
  const branch = header(status, 'branch.head');
  // Without a commit, "changes beside it" means nothing.
  return withoutUndefined({ commit, branch: branch === '(detached)' ? undefined : branchOf(branch), uncommitted: commit ? hasChanges(status) : undefined });
}

/**
 * Which of `files` (what a deploy is made from, absolute, as for `gitSource`) differ from the commit
 * of the repository holding folder `cwd`, each as a path from `from` (the user's working folder,
 * which may be outside it), sorted (a folder git does not track as the folder); undefined when git
 * cannot tell. Asked only to say which.
 */
export async function uncommittedFiles(cwd: string, env: Env, files: readonly string[], from = cwd): Promise<string[] | undefined> {
  // A separate run from gitSource's: a cut -z answer would lose its branch headers, which gitSource needs.
  return pathsAnswered(cwd, env, files, [...STATUS, '-z'], from, (entry) => {
    // Porcelain v2: "1 XY sub mH mI mW hH hI PATH", "u XY sub m1 m2 m3 mW h1 h2 h3 PATH", "? PATH".
    const fields = { '1': 8, u: 10, '?': 1 }[entry[0] as string];
    return fields === undefined ? undefined : entry.split(' ').slice(fields).join(' ');
  });
}

/**
 * Which of `files` (what a deploy is made from, absolute, as for `gitSource`) commits `a` and `b`
 * hold differently, each as a path from `from` (default `cwd`), sorted: none, and the same manifests
 * made them, so a commit of the state (or of anything else) after an apply is still the source that
 * apply deployed. Compares trees by their object ids alone: no file content is read, no diff program
 * run. Undefined when git cannot tell (a commit not in this clone, an answer past what is read).
 */
export async function projectFilesChanged(cwd: string, env: Env, a: string, b: string, files: readonly string[], from = cwd): Promise<string[] | undefined> {
  if (!COMMIT.test(a) || !COMMIT.test(b)) return undefined;
  if (a === b) return [];
  return pathsAnswered(cwd, env, files, ['diff', '--name-only', '-z', '--no-renames', '--no-ext-diff', '--no-textconv', a, b], from, (entry) => entry);
}

/**
 * The source of an apply run in `cwd`: the CI's, else git's. `files`: what the deploy is made from
 * (absolute), asked about for uncommitted changes; absent when what is deployed is not the work tree's.
 * `review`: the pull or merge request the CI's host names for the commit (the one that merged it, on
 * the push to main), when the runner's variables name none.
 */
export async function detectDeploySource(options: { env: Env; cwd: string; files?: readonly string[] | undefined; review?: number | undefined }): Promise<DeploySource> {
  requireOptions('detectDeploySource', options, { env: 'object', cwd: 'text' });
  const ci = ciSource(options.env);
  const review = isPositiveWhole(options.review) ? options.review : undefined;
  const fromCi = ci && withoutUndefined({ ...ci, pullRequest: ci.pullRequest ?? review });
  if (fromCi && fromCi.commit) {
    // The CI's commit is what is deployed; git is asked only whether the deploy's files hold more.
    const status = options.files ? await workTreeStatus(options.cwd, options.env, options.files) : undefined;
    return withoutUndefined({ ...fromCi, uncommitted: status ? hasChanges(status) : undefined });
  }
  const fromGit = await gitSource(options.cwd, options.env, options.files);
  return { ...fromGit, ...fromCi };
}

/** `user@host`: the CI's user who started the run when the CI names one, else the account running voxform. */
export function deployer(env: Env, host: string = hostname()): string {
  const ciUser = [env.GITHUB_ACTOR, env.GITLAB_USER_LOGIN].find((value) => value !== undefined && /^[\w.@-]{1,100}$/.test(value));
  return `${ciUser ?? osUser()}@${host}`;
}
