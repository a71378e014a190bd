/**
 * A state lock committed to git. The lock folder beside the state file (`state.json.lock`) is one
 * machine's, and `.gitignore` keeps it out; a holder file committed anyway (added by a pull request)
 * is a lock every checkout inherits: an apply on main is refused (`state_locked`) until someone
 * forces it open. `plan`, which runs on the pull request, says so before it is merged.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { trackedAt } from '../project-files/git.js';
import type { StateBackend } from './backend.js';
import { FileStateBackend } from './file-backend.js';
import { holderFileNames, lockPathOf } from './lock.js';
import { controlsAsQuestionMarks } from '../util/printable.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The holder files in the lock folder of the state file `file` that git tracks; git is asked only when there is one. */
async function trackedHolderFiles(file: string, env: Env): Promise<string[]> {
  const holders = await holderFileNames(file);
  if (holders.length === 0) return [];
  const lockDir = await realpath(lockPathOf(file)).catch(() => undefined);
  // Where git cannot say, no warning: it is about a lock git tracks.
  const tracked = lockDir === undefined ? undefined : await trackedAt(lockDir, env);
  const trackedNames = new Set((tracked ?? []).map((file) => path.posix.basename(file)));
  return holders.filter((name) => trackedNames.has(name));
}

/** The warning of a state file whose lock folder holds a holder file git tracks; undefined otherwise (and for a database, whose lock is no file). */
export async function committedLockWarning(backend: StateBackend, env: Env): Promise<string | undefined> {
  if (!(backend instanceof FileStateBackend)) return undefined;
  const tracked = await trackedHolderFiles(backend.file, env);
  if (tracked.length === 0) return undefined;
  const lock = lockPathOf(backend.display);
  // The names are the pull request's: each on one line, so none adds a line of its own to the output.
  return `the state lock ${lock} holds ${tracked.map(controlsAsQuestionMarks).join(', ')}, which git tracks: a committed lock is held in every checkout, so \`voxform apply\` there is refused (state_locked) until someone runs \`voxform state unlock --force\`. Remove it from git (\`git rm -r --cached ${lock}\`) before merging: the lock is never committed (docs/state.md#the-file-backend).`;
}
