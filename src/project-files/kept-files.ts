/**
 * The files voxform keeps for itself beside the project — the state file (`.voxform/state.json`)
 * and the embedded emulator's data (`.voxform/local.json`) — are read under the guards of every
 * project file (guarded-read.ts). A committed `.voxform/` is the pull request's, and `plan --local`
 * reads both before review: either may be a symbolic link to `/dev/urandom`, to a FIFO or to the
 * CI machine's own files. So each must be a regular file, not linked out of its own folder, within
 * its size cap; and what fails to parse is never quoted back (it may be someone else's secret).
 */
import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { inspect, readGuarded, realFolder, type ReadFailure, type ReadPolicy } from './guarded-read.js';

/** What was found where a kept file should be: nothing yet, its bytes (or real path), or why it is refused. */
export type KeptFile<T> = { found: false } | { found: true; ok: true; value: T } | { found: true; ok: false; problem: string };

async function policyFor(file: string, maxBytes: number): Promise<ReadPolicy> {
  return { root: await realFolder(path.dirname(file)), maxBytes };
}

/** Whether anything at all is at the path (a link to nothing is something). */
function isThere(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== 'ENOENT' && error.code !== 'ENOTDIR',
  );
}

/**
 * Why the guards refused a file that is there: "missing" then means a link to nothing (or to a
 * pipe, which has no path: `/dev/stdin`), never read and never taken for a missing file.
 */
function refusal(reason: ReadFailure, message: string): KeptFile<never> {
  if (reason === 'missing') return { found: true, ok: false, problem: 'is a symbolic link to nothing voxform can read' };
  return { found: true, ok: false, problem: reason === 'outside' ? 'is a symbolic link leading out of its folder' : message };
}

/** The file's bytes, read under the guards (opened once, without following a last link, read up to the cap). */
export async function readKeptFile(file: string, maxBytes: number): Promise<KeptFile<Buffer>> {
  if (!(await isThere(file))) return { found: false };
  const outcome = await readGuarded(file, await policyFor(file, maxBytes));
  if (outcome.ok) return { found: true, ok: true, value: outcome.bytes };
  return (await goneMeanwhile(file)) ? { found: false } : refusal(outcome.reason, outcome.message);
}

/**
 * Whether a file that was there when it was looked at has gone since: a lock's holder that another
 * run removed, with its folder, between the look and the read. Its read then fails as a missing
 * file outside the (vanished) folder would; it is not found, not refused: the caller looks again.
 */
async function goneMeanwhile(file: string): Promise<boolean> {
  return !(await isThere(file));
}

/**
 * The file's real path once it has passed every guard but the read itself, for a reader that takes
 * a path: it then reads a regular file inside its folder, within the cap.
 */
export async function checkKeptFile(file: string, maxBytes: number): Promise<KeptFile<string>> {
  if (!(await isThere(file))) return { found: false };
  const outcome = await inspect(file, await policyFor(file, maxBytes));
  if (outcome.ok) return { found: true, ok: true, value: outcome.real };
  return (await goneMeanwhile(file)) ? { found: false } : refusal(outcome.reason, outcome.message);
}
