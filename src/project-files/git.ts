/**
 * The one way voxform runs `git`. The work tree is the pull request's, so nothing in it may make
 * git run code or pick another repository:
 * - **pinned**: git runs in the project root with GIT_CEILING_DIRECTORIES at its parent, and the
 *   operator's GIT_DIR and the like are not passed; without a `.git` there, git is not run.
 * - **no bare repositories found by looking** (`safe.bareRepository=explicit`).
 * - **no code from the repository**: no fsmonitor, no hooks, no network, and every filter driver
 *   the configuration defines emptied (`git status` runs clean filters, and `.gitattributes`
 *   chooses them); a driver whose name `-c` cannot spell (it holds `=`) stops the run instead.
 * - **no shell, a minimal environment** (GIT_ENV_PASSED): never VOXFORM_API_KEY or another secret;
 *   and the git of the operator's PATH, never one of the project (`foldersOutside`).
 * - **bounded**: a time-out per run, and at most GIT_MAX_OUTPUT read (or the larger cap a caller names).
 * Every failure is an answer of undefined: what git would have said is unknown.
 */
import { execFile } from 'node:child_process';
import { constants, realpathSync } from 'node:fs';
import { open, realpath, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { findProjectRoot, isInside, pathExists } from './guarded-read.js';
import { gitBlobHash } from '../util/hash.js';

type Env = Readonly<Record<string, string | undefined>>;

const GIT_TIMEOUT_MS = 5000;
/** Most output read from one run: the status of a work tree with more changes than fit is cut here. */
const GIT_MAX_OUTPUT = 64 * 1024;

/** The operator's environment variables passed to git: where git and its configuration are, and the language. */
const GIT_ENV_PASSED = ['PATH', 'HOME', 'XDG_CONFIG_HOME', 'LANG', 'LC_ALL', 'SYSTEMROOT', 'GIT_EXEC_PATH', 'GIT_CONFIG_NOSYSTEM', 'GIT_CONFIG_SYSTEM', 'GIT_CONFIG_GLOBAL'] as const;

/** The options every git run starts with. */
export const GIT_HARDENING = [
  '--no-pager',
  '--no-optional-locks',
  '-c',
  'safe.bareRepository=explicit',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.untrackedCache=false',
  '-c',
  'protocol.allow=never',
] as const;

/** What git said: its lines, and whether there were more than GIT_MAX_OUTPUT holds. */
export interface GitAnswer {
  lines: string[];
  cut: boolean;
}

/** What git wrote, byte for byte, and whether there was more than the cap holds. */
interface GitBytes {
  bytes: Buffer;
  cut: boolean;
}

/** A repository git may be asked about: `run` adds the whole rule to every call. */
export interface GitRepository {
  /** The work tree's root (a real path). */
  root: string;
  /**
   * Runs `git ARGS` there; undefined on any failure. `maxOutput` raises the cap on what is read (a
   * file's content from `git show`, at most its loader's own limit); `keepBlankLines` keeps its empty lines.
   */
  run(args: readonly string[], options?: { maxOutput?: number; keepBlankLines?: boolean }): Promise<GitAnswer | undefined>;
  /**
   * Runs `git ARGS` there under the same rule with `input` on its standard input, and answers what it
   * wrote unchanged (`git cat-file --batch`: contents that lines would garble); undefined on any failure.
   */
  runBytes(args: readonly string[], options: { input: string; maxOutput?: number }): Promise<GitBytes | undefined>;
}

interface RawAnswer {
  stdout: Buffer;
  /** The exit code, 0 on success; undefined when git did not run to an exit (not found, killed, time-out). */
  code: number | undefined;
  cut: boolean;
}

function gitEnvironment(env: Env, root: string): NodeJS.ProcessEnv {
  const passed: NodeJS.ProcessEnv = {};
  for (const name of GIT_ENV_PASSED) {
    const value = env[name];
    if (value !== undefined) passed[name] = value;
  }
  if (passed.PATH !== undefined) passed.PATH = foldersOutside(passed.PATH, root);
  return { ...passed, GIT_CEILING_DIRECTORIES: path.dirname(root), GIT_TERMINAL_PROMPT: '0' };
}

/**
 * The folders of a PATH that lie outside the project, by the path as written and where it leads:
 * git is looked up on the PATH it is given, and the checkout's folders are the pull request's. `npx`
 * and `npm run` put the project's `node_modules/.bin` first, and an empty or relative entry is a
 * folder of the project root, where git runs: a `git` committed there would run instead of git,
 * able to read voxform's environment, the API key with it.
 */
function foldersOutside(searchPath: string, root: string): string {
  return searchPath
    .split(path.delimiter)
    .filter((folder) => {
      if (!path.isAbsolute(folder) || isInside(root, folder)) return false;
      try {
        return !isInside(root, realpathSync(folder));
      } catch {
        // A folder that is not there holds no git.
        return false;
      }
    })
    .join(path.delimiter);
}

/** Runs git; `input`, when given, is written to its standard input, which is then closed. */
function execGit(args: readonly string[], root: string, env: NodeJS.ProcessEnv, maxOutput = GIT_MAX_OUTPUT, input?: string): Promise<RawAnswer> {
  return new Promise((resolve) => {
    try {
      const child = execFile('git', [...GIT_HARDENING, ...args], { cwd: root, env, timeout: GIT_TIMEOUT_MS, windowsHide: true, maxBuffer: maxOutput, shell: false, encoding: 'buffer' }, (error, stdout) => {
        const failure = error as (Error & { code?: unknown; killed?: boolean }) | null;
        const cut = failure?.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER';
        const code = !failure || cut ? 0 : typeof failure.code === 'number' && !failure.killed ? failure.code : undefined;
        resolve({ stdout, code, cut });
      });
      if (input !== undefined) {
        // A git that stops reading (it failed, or was killed at the cap) answers by its exit, not by a broken pipe.
        child.stdin?.on('error', () => undefined);
        child.stdin?.end(input);
      }
    } catch {
      resolve({ stdout: Buffer.alloc(0), code: undefined, cut: false });
    }
  });
}

/**
 * The `-c` settings that empty every filter driver listed by `git config -z --get-regexp` (entries
 * `filter.NAME.KEY\nVALUE`, NUL-ended); undefined when a name cannot be written as `-c` (holds `=`).
 */
export function filterOverrides(listing: string): string[] | undefined {
  const names = new Set<string>();
  for (const entry of listing.split('\0')) {
    const key = entry.split('\n', 1)[0] ?? '';
    const lastDot = key.lastIndexOf('.');
    if (!key.startsWith('filter.') || lastDot <= 'filter.'.length) continue;
    names.add(key.slice('filter.'.length, lastDot));
  }
  const settings: string[] = [];
  for (const name of names) {
    if (name.includes('=')) return undefined;
    settings.push('-c', `filter.${name}.clean=`, '-c', `filter.${name}.smudge=`, '-c', `filter.${name}.process=`, '-c', `filter.${name}.required=false`);
  }
  return settings;
}

/**
 * Runs `git ARGS` where ARGS ask for a `-z` answer: its entries, each as git wrote it (no quoting; a
 * name may hold a line break), and whether the answer was cut, when the entries are fewer than git
 * had (often none): a caller takes a cut answer as incomplete. Undefined on any failure.
 */
export async function runEntries(repository: GitRepository, args: readonly string[], options: { maxOutput?: number } = {}): Promise<{ entries: string[]; cut: boolean } | undefined> {
  const answer = await repository.run(args, { ...options, keepBlankLines: true });
  // Each entry ends in a NUL: what follows the last is nothing, or the part of an entry a cut left.
  return answer && { entries: answer.lines.join('\n').split('\0').slice(0, -1), cut: answer.cut };
}

/**
 * The root (a real path) of the git work tree holding folder `start`, as every git run here is
 * pinned to it; undefined when `start` is in none. Found without running git.
 */
export async function gitWorkTreeRoot(start: string): Promise<string | undefined> {
  const root = await findProjectRoot(start, start);
  return (await pathExists(path.join(root, '.git'), { follow: true })) ? root : undefined;
}

/** `file` (absolute) as a path from `root` with `/` separators, as git names it (`''` for `root` itself); undefined when it is not inside. */
export function pathFromRoot(root: string, file: string): string | undefined {
  return isInside(root, file) ? path.relative(root, file).split(path.sep).join('/') : undefined;
}

/** The repository of the project holding folder `start`; undefined without a `.git` or a listing of its filters. */
export async function openGitRepository(start: string, env: Env): Promise<GitRepository | undefined> {
  const root = await gitWorkTreeRoot(start);
  return root === undefined ? undefined : repositoryAt(root, env);
}

/** The repository whose work tree's root is `root` (from `gitWorkTreeRoot`); undefined without a listing of its filters. */
async function repositoryAt(root: string, env: Env): Promise<GitRepository | undefined> {
  const gitEnv = gitEnvironment(env, root);
  // A repository git refuses to open (its owner is another user: safe.directory) lists the operator's
  // filters all the same, as if it were opened: asking for its folder is what fails there.
  if ((await execGit(['rev-parse', '--git-dir'], root, gitEnv)).code !== 0) return undefined;
  // Exit code 1: no filter defined.
  const listing = await execGit(['config', '-z', '--get-regexp', '^filter\\.'], root, gitEnv);
  if (listing.cut || (listing.code !== 0 && listing.code !== 1)) return undefined;
  const overrides = filterOverrides(listing.code === 0 ? listing.stdout.toString() : '');
  if (!overrides) return undefined;
  return {
    root,
    async run(args, options = {}) {
      const answer = await execGit([...overrides, ...args], root, gitEnv, options.maxOutput);
      if (answer.code !== 0) return undefined;
      const lines = answer.stdout.toString().split('\n');
      // A cut answer ends in the middle of a line: only whole lines count.
      if (answer.cut) return { lines: lines.slice(0, -1), cut: true };
      return { lines: options.keepBlankLines ? lines : lines.filter((line) => line !== ''), cut: false };
    },
    async runBytes(args, { input, maxOutput }) {
      const answer = await execGit([...overrides, ...args], root, gitEnv, maxOutput, input);
      return answer.code === 0 ? { bytes: answer.stdout, cut: answer.cut } : undefined;
    },
  };
}

/**
 * The git repository holding `start` and the commit `ref` names in it: a pull-request job's base
 * revision. `refuse(why, hint)` makes each caller's error: for a `ref` git would read as an option
 * (it starts with "-"), a repository git cannot open (`noRepository`: why and how to fix, in the
 * caller's words), or a `ref` that names no commit.
 */
export async function openCommit(
  start: string,
  env: Env,
  ref: string,
  refuse: (why: string, hint?: string) => Error,
  noRepository: { why: string; hint?: string },
): Promise<{ repository: GitRepository; commit: string }> {
  if (ref.startsWith('-')) throw refuse('starts with "-"');
  const repository = await openGitRepository(start, env);
  if (!repository) throw refuse(noRepository.why, noRepository.hint);
  const commit = await repository.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (!commit || commit.lines.length === 0) throw refuse('is not a commit of this repository');
  const namesakes = await refsNamed(repository, ref);
  if (namesakes.length > 1) {
    throw refuse(`is ambiguous: ${namesakes.join(' and ')} both answer to it, and git would take one of them silently`, `Name the base by its full ref (such as refs/remotes/origin/main) or by its commit id.`);
  }
  return { repository, commit: commit.lines[0] as string };
}

/**
 * The refs git could take `ref` (its name, before any `~`, `^`, `@{` or `:`) for, by the order git
 * looks a short name up in. Anyone who may push a tag can add one: a tag `origin/main` comes before
 * the remote branch `origin/main`, and would swap the operator's base for a commit of the pull
 * request's choosing without a word. Two or more answers mean the name does not say which. A full
 * ref name (`refs/…`) and a full commit id always mean themselves.
 */
async function refsNamed(repository: GitRepository, ref: string): Promise<string[]> {
  // `@` alone may stand in a ref's name (`rel@x`); `@{` may not, and starts a suffix (`main@{1}`).
  const name = ref.split(/[~^:]|@\{/, 1)[0] ?? '';
  if (name === '@') return [];
  if (name === '' || /^[0-9a-f]{40}$/i.test(name)) return [];
  const lookedUp = new Set([`refs/${name}`, `refs/tags/${name}`, `refs/heads/${name}`, `refs/remotes/${name}`, `refs/remotes/${name}/HEAD`]);
  // Exit code 1: no ref ends in the name.
  const listed = (await repository.run(['show-ref', '--', name, `${name}/HEAD`])) ?? { lines: [] };
  const refs = listed.lines.map((line) => line.slice(line.indexOf(' ') + 1));
  if (name.startsWith('refs/') && refs.includes(name)) return [name];
  const namesakes = refs.filter((full) => lookedUp.has(full));
  // A short commit id is read as a ref of that name when there is one.
  const commits = /^[0-9a-f]{4,39}$/i.test(name) && namesakes.length > 0 ? ((await repository.run(['rev-parse', `--disambiguate=${name}`])) ?? { lines: [] }).lines : [];
  return [...commits.map((id) => `the object ${id}`), ...namesakes];
}

/** An entry of `git ls-tree -l -z`: `MODE TYPE OBJECT SIZE<TAB>PATH` (the path from the repository's root). */
export interface TreeEntry {
  mode: string;
  type: string;
  object: string;
  /** Bytes, for a blob. */
  size: number;
  path: string;
}

/** What one `git ls-tree` may print: far more files than any project or ledger holds. */
const MAX_TREE_LISTING_BYTES = 8 * 1024 * 1024;

/** Whether an entry is a regular file: not a link, not a submodule, not a folder. */
export function isRegularFile(entry: Pick<TreeEntry, 'mode' | 'type'>): boolean {
  return entry.type === 'blob' && (entry.mode === '100644' || entry.mode === '100755');
}

/**
 * The entries commit `commit` holds at `at` (paths from the root; every entry when empty), under it
 * too when `recursive`. The paths are literal: one holding `*` names that file, not a pattern. A
 * listing git cannot give, or one past what voxform lists, is `unreadable(why)`, `where` naming the place.
 */
export async function listTree(
  repository: GitRepository,
  commit: string,
  { at, recursive, where }: { at: readonly string[]; recursive: boolean; where: string },
  unreadable: (why: string) => Error,
): Promise<TreeEntry[]> {
  const answer = await runEntries(repository, ['--literal-pathspecs', 'ls-tree', ...(recursive ? ['-r'] : []), '-l', '-z', commit, '--', ...at], { maxOutput: MAX_TREE_LISTING_BYTES });
  if (!answer) throw unreadable(`cannot be listed at ${where}`);
  if (answer.cut) throw unreadable(`has more files at ${where} than voxform lists`);
  return answer.entries.flatMap((entry) => {
    const tab = entry.indexOf('\t');
    const [mode, type, object, size] = entry.slice(0, tab).split(/ +/);
    return tab > 0 && mode && type && object ? [{ mode, type, object, size: Number(size), path: entry.slice(tab + 1) }] : [];
  });
}

/**
 * The repository whose work tree holds `target` (a real path) and `target` as a path from its root:
 * 'outside' when no work tree holds it, undefined when git cannot be asked.
 */
async function repositoryHolding(target: string, env: Env): Promise<{ repository: GitRepository; fromRoot: string } | 'outside' | undefined> {
  const root = await gitWorkTreeRoot(path.dirname(target));
  if (root === undefined) return 'outside';
  const fromRoot = pathFromRoot(root, target);
  const repository = fromRoot === undefined ? undefined : await repositoryAt(root, env);
  return repository && fromRoot !== undefined ? { repository, fromRoot } : undefined;
}

/** What git tracks at `fromRoot` in `repository`, as paths from its root; undefined when git cannot say. */
async function trackedIn(repository: GitRepository, fromRoot: string): Promise<string[] | undefined> {
  // -z: every path as it is (no quoting of a name that is not ASCII).
  return (await runEntries(repository, ['--literal-pathspecs', 'ls-files', '-z', '--', fromRoot]))?.entries;
}

/**
 * What git tracks at `target` (a real path: a file, or a folder and what is under it), as paths from
 * the work tree's root: none when no work tree holds it, undefined when git cannot say. The path is
 * literal: one holding `*` names that file, not a pattern.
 */
export async function trackedAt(target: string, env: Env): Promise<string[] | undefined> {
  const holding = await repositoryHolding(target, env);
  if (holding === 'outside') return [];
  return holding && trackedIn(holding.repository, holding.fromRoot);
}

/**
 * Whether `file` (absolute, in an existing folder) came with the checkout: its bytes are those of the
 * regular file the commit checked out (HEAD) holds at its path, so a pull request may have written
 * them and their text is in git already. Anything else is the operator's: a file the commit does not
 * hold (untracked, ignored, only staged), one changed since (`apply --local` rewrites
 * `.voxform/local.json` with the operator's secrets in it), one outside a work tree, and one git
 * cannot be asked about (git missing or failing, a repository it cannot read). Taking the pull
 * request's text for the operator's only withholds more; taking the operator's secret for the pull
 * request's prints it. The bytes decide, not the index nor `git status`, which an operator's
 * `skip-worktree` or `assume-unchanged` bit silences, and they are hashed here as read: git's
 * `hash-object` would run the clean filters and line-ending conversion first. The emulator reads the
 * file itself (as it starts, and again whenever another process writes it), so this read is a second
 * one: a file rewritten between the two (another `--local` command's apply, a `git checkout` of it,
 * both the operator's own doing while the command runs) is decided by what this read saw.
 */
export async function cameWithCheckout(file: string, env: Env): Promise<boolean> {
  const real = await realpath(file).catch(() => undefined);
  // A link leading out of its folder the emulator does not read; one it reads is decided by its target.
  const folder = await realpath(path.dirname(file)).catch(() => undefined);
  if (real === undefined || folder === undefined || path.dirname(real) !== folder) return false;
  const holding = await repositoryHolding(real, env);
  if (holding === 'outside' || !holding) return false;
  const committed = await committedFile(holding.repository, holding.fromRoot);
  if (!committed) return false;
  // A repository of SHA-256 object ids names its objects with 64 hex digits, one of SHA-1 with 40.
  const algorithm = committed.object.length === 64 ? 'sha256' : 'sha1';
  return (await gitObjectId(real, algorithm, committed.size)) === committed.object;
}

/** The regular file HEAD holds at `fromRoot` (its object id and size); undefined when it holds none there or git cannot say. */
async function committedFile(repository: GitRepository, fromRoot: string): Promise<TreeEntry | undefined> {
  const entries = await listTree(repository, 'HEAD', { at: [fromRoot], recursive: false, where: fromRoot }, (why) => new Error(why)).catch(() => undefined);
  return entries?.find((entry) => entry.path === fromRoot && isRegularFile(entry));
}

/**
 * The git object id of the bytes of regular file `file` (a real path), by `algorithm`: what git
 * would store for them with no filter; undefined when they are not `expectedSize` long (they differ
 * from the commit's, unread) or the file cannot be read as it is opened.
 */
async function gitObjectId(file: string, algorithm: 'sha1' | 'sha256', expectedSize: number): Promise<string | undefined> {
  let handle: FileHandle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size !== expectedSize) return undefined;
    const bytes = await handle.readFile();
    if (bytes.length !== expectedSize) return undefined;
    return gitBlobHash(algorithm, bytes.length).update(bytes).digest('hex');
  } catch {
    return undefined;
  } finally {
    await handle.close().catch(() => undefined);
  }
}
