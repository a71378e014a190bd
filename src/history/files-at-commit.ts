/**
 * Which of a deploy's files a commit holds: the files `git restore` puts back to keep a rollback to
 * that commit. Only those: the commits since also hold voxform's own files (state, history), which
 * must stay as they are. Asked of git through src/project-files/git.ts, as every git run is.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../project-files/guarded-read.js';
import { openGitRepository, pathFromRoot, runEntries } from '../project-files/git.js';
import { COMMIT } from './source.js';

type Env = Readonly<Record<string, string | undefined>>;

interface FilesAtCommit {
  /**
   * The files the commit holds, as paths the printed command names them by (from `from`, else from
   * the repository's root with `gitFolder`), in the order given; undefined when git could not be
   * asked (no repository here, a commit not in this clone): then every file given, from `from`.
   */
  held: string[] | undefined;
  /** Every file given, named as `held` names them: what to print when git could not tell which the commit holds. */
  given: string[];
  /** The repository's root as a path from `from`, when `from` is outside it: the `git -C` the printed commands need. */
  gitFolder?: string | undefined;
}

/** `file` as a path from `from`, with `/` between its parts as git and a POSIX shell take it. */
function pathFrom(from: string, file: string): string {
  return path.relative(from, file).split(path.sep).join('/');
}

/**
 * Which of `files` (absolute) `commit` (a full id) holds, asked in the repository holding folder
 * `cwd`. A file outside that repository is none of the commit's. `from` is the folder the user
 * runs the printed commands in.
 */
export async function filesAtCommit(cwd: string, env: Env, commit: string, files: readonly string[], from: string): Promise<FilesAtCommit> {
  const where = await realpath(from).catch(() => from);
  // Their folders' real paths, as the repository's root is one; a file that is a link stays the link.
  const real = await Promise.all(files.map(async (file) => path.join(await realpath(path.dirname(file)).catch(() => path.dirname(file)), path.basename(file))));
  const repository = COMMIT.test(commit) ? await openGitRepository(cwd, env) : undefined;
  if (!repository) return { held: undefined, given: real.map((file) => pathFrom(where, file)) };
  const gitFolder = isInside(repository.root, where) ? undefined : path.relative(where, repository.root) || '.';
  const named = (file: string): string => (gitFolder === undefined ? pathFrom(where, file) : (pathFromRoot(repository.root, file) as string));
  const inside = real.filter((file) => pathFromRoot(repository.root, file) !== undefined);
  const given = inside.map(named);
  if (inside.length === 0) return { held: [], given, gitFolder };
  // Literal: a file named `*` is that file, not every file of the commit.
  const listed = await runEntries(repository, ['--literal-pathspecs', 'ls-tree', '-r', '-z', '--name-only', commit, '--', ...inside.map((file) => pathFromRoot(repository.root, file) as string)]);
  if (!listed || listed.cut) return { held: undefined, given, gitFolder };
  const inCommit = new Set(listed.entries);
  return { held: inside.filter((file) => inCommit.has(pathFromRoot(repository.root, file) as string)).map(named), given, gitFolder };
}
