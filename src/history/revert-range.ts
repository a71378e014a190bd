/**
 * Whether `git revert` can undo what was deployed after a restored commit: the commits from it to
 * the last commit deployed, each merge against its first parent, add up to the way back exactly
 * when the restored commit is on that commit's first-parent history (the main line a merge into
 * it follows). Asked of git through src/project-files/git.ts, as every git run is.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../project-files/guarded-read.js';
import { openGitRepository } from '../project-files/git.js';
import { COMMIT } from './source.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface RevertRange {
  /** True or false as git answered; undefined when it could not be asked (no repository here, a commit not in this clone). */
  onFirstParentLine: boolean | undefined;
  /** The repository's root as a path from `from`, when `from` is outside it: the `git -C` the printed commands need. */
  gitFolder?: string | undefined;
}

/**
 * Whether `restored` is on the first-parent history of `deployed` (both full commit ids), asked in
 * the repository holding folder `cwd`. The first-parent walk from `deployed` stops at the first commit
 * `restored` can reach; `restored` is on the line exactly when that commit is `restored` itself, the
 * first parent of the oldest commit listed. `from` is the folder the user runs the printed commands in.
 */
export async function revertRange(cwd: string, env: Env, restored: string, deployed: string, from: string): Promise<RevertRange> {
  const repository = COMMIT.test(restored) && COMMIT.test(deployed) ? await openGitRepository(cwd, env) : undefined;
  if (!repository) return { onFirstParentLine: undefined };
  const where = await realpath(from).catch(() => from);
  const gitFolder = isInside(repository.root, where) ? undefined : path.relative(where, repository.root) || '.';
  // Oldest first: a listing cut at the output cap still holds the line asked about.
  const answer = await repository.run(['rev-list', '--first-parent', '--reverse', '--parents', `${restored}..${deployed}`, '--']);
  if (!answer) return { onFirstParentLine: undefined, gitFolder };
  const [, firstParent] = (answer.lines[0] ?? '').split(' ');
  return { onFirstParentLine: firstParent === restored, gitFolder };
}
