/**
 * The one reader of the JSON files voxform keeps for itself — the state file (`.voxform/state.json`),
 * the history records, the lock's holder files, the embedded emulator's data (`.voxform/local.json`)
 * and saved plans. They are read under the guards of every project file (guarded-read.ts): a
 * committed `.voxform/` is the pull request's, and `plan --local` reads it before review, so any of
 * them may be a symbolic link to `/dev/urandom`, to a FIFO or to the CI machine's own files. Each
 * must be a regular file, not linked out of its own folder, within its size cap and its budget of
 * JSON values and depth (limits.ts); and what fails to parse is never quoted back (it may be
 * someone else's secret).
 */
import { constants } from 'node:fs';
import { lstat, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { failureOf, formatSize, inspect, realFolder, type ReadFailure, type ReadPolicy } from './guarded-read.js';
import { describeOverrun, JsonCounter, overrunOf, type JsonBudget } from './json-budget.js';

/**
 * Why a kept file was not read: the guards refused it (where or what it is, its size), its JSON
 * passes its budget, or its text is not JSON.
 */
export type KeptFileRefusal = 'refused' | 'over_budget' | 'not_json';

/** What was found where a kept file should be: nothing yet, its value, or why it is refused (`problem` completes "The file X …"). */
export type KeptFile<T> = { found: false } | { found: true; ok: true; value: T } | { found: true; ok: false; reason: KeptFileRefusal; problem: string };

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
  if (reason === 'missing') return { found: true, ok: false, reason: 'refused', problem: 'is a symbolic link to nothing voxform can read' };
  return { found: true, ok: false, reason: 'refused', problem: reason === 'outside' ? 'is a symbolic link leading out of its folder' : message };
}

/**
 * Whether a file that was there when it was looked at has gone since: a lock's holder that another
 * run removed, with its folder, between the look and the read. Its read then fails as a missing
 * file outside the (vanished) folder would; it is not found, not refused: the caller looks again.
 */
async function goneMeanwhile(file: string): Promise<boolean> {
  return !(await isThere(file));
}

/** What a kept file may be: its size, and what its JSON may make voxform build. */
export interface KeptJsonLimits extends JsonBudget {
  maxBytes: number;
}

/** Bytes read between two turns of the event loop. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The file's JSON value, read under the guards (opened once, without following a last link, read up
 * to the cap) and within its budget of values and depth (json-budget.ts), counted as the bytes
 * arrive: a file over budget is refused there, before it is read whole or parsed. The file is read
 * a chunk at a time with the event loop served in between, so Ctrl-C and SIGTERM (the CLI's
 * handlers) stop a long load. Text that is not JSON is refused, never quoted.
 */
export async function readKeptJson(file: string, limits: KeptJsonLimits): Promise<KeptFile<unknown>> {
  if (!(await isThere(file))) return { found: false };
  const checked = await inspect(file, await policyFor(file, limits.maxBytes));
  if (!checked.ok) return (await goneMeanwhile(file)) ? { found: false } : refusal(checked.reason, checked.message);
  let handle: FileHandle;
  try {
    handle = await open(checked.real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const failure = failureOf(error);
    return (await goneMeanwhile(file)) ? { found: false } : refusal(failure.reason, failure.message);
  }
  let bytes: Buffer;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.ino !== checked.info.ino || info.dev !== checked.info.dev) return { found: true, ok: false, reason: 'refused', problem: 'changed while it was being read' };
    if (info.size > limits.maxBytes) return refusal('too_large', `is ${info.size.toLocaleString('en-US')} bytes; the limit is ${formatSize(limits.maxBytes)}`);
    // The file as it was when it was opened: its size then, however it grows.
    bytes = Buffer.allocUnsafe(info.size);
    const counter = new JsonCounter(limits);
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, Math.min(CHUNK_BYTES, bytes.length - filled), filled);
      if (bytesRead === 0) break;
      const overrun = counter.feed(bytes, filled, filled + bytesRead);
      if (overrun) return { found: true, ok: false, reason: 'over_budget', problem: describeOverrun(overrun) };
      filled += bytesRead;
    }
    bytes = bytes.subarray(0, filled);
  } finally {
    await handle.close();
  }
  try {
    return { found: true, ok: true, value: JSON.parse(bytes.toString('utf8')) as unknown };
  } catch {
    // The parser's message quotes the text, which may be anyone's secret.
    return { found: true, ok: false, reason: 'not_json', problem: NOT_JSON };
  }
}

const NOT_JSON = 'is not valid JSON';

/**
 * JSON text kept elsewhere than in a file (a database row), parsed within the same budget.
 */
export function parseKeptJson(text: string, budget: JsonBudget): Exclude<KeptFile<unknown>, { found: false }> {
  const overrun = overrunOf(text, budget);
  if (overrun) return { found: true, ok: false, reason: 'over_budget', problem: describeOverrun(overrun) };
  try {
    return { found: true, ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { found: true, ok: false, reason: 'not_json', problem: NOT_JSON };
  }
}
