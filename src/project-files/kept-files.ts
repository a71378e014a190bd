/**
 * The one reader of the JSON files voxform keeps for itself (state, history records, lock holders,
 * the emulator's data, saved plans), under the guards of guarded-read.ts: a committed `.voxform/` is
 * the pull request's, so any may be a link to `/dev/urandom`, a FIFO or the CI machine's files. Each
 * must be a regular file, not linked out of its folder, within its size cap and JSON budget
 * (limits.ts); what fails to parse is never quoted back (it may be someone else's secret). A kept
 * file is read and written only in real folders (checkKeptFolder): a committed `.voxform` link would
 * otherwise send voxform's reads and writes wherever the pull request chose.
 */
import { constants } from 'node:fs';
import { lstat, mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { writeFileAtomic, type FileData } from '../util/atomic-write.js';
import { failureOf, inspect, isSymbolicLink, realFolder, type ReadFailure, type ReadPolicy } from './guarded-read.js';
import { formatSize } from '../util/size.js';
import { describeOverrun, JsonCounter, overrunOf, type JsonBudget } from '../util/json-budget.js';
import { formatCount } from '../util/plural.js';
import { shellWord } from '../util/shell-word.js';
import { jsonSyntaxError } from '../util/json-error-position.js';
import { textPosition } from '../util/text-position.js';
import { firstDuplicateKey } from './json-duplicate-key.js';
import { shorten } from '../util/shorten.js';

/**
 * Why a kept file was not read: the guards refused it, its JSON passes its budget, it is not JSON, or
 * (when its reader refuses them) an object in it holds a key twice.
 */
type KeptFileRefusal = 'refused' | 'over_budget' | 'not_json' | 'duplicate_key';

/**
 * What was found where a kept file should be: nothing yet, its value, or why it is refused (`problem`
 * completes "The file X …"); text that is not JSON says where it stops being JSON and what JSON wanted there.
 */
export type KeptFile<T> =
  | { found: false }
  | { found: true; ok: true; value: T }
  | { found: true; ok: false; reason: KeptFileRefusal; problem: string; syntax?: KeptJsonSyntax };

/** Where a kept file's text stops being JSON (1-based line and column) and what JSON `expected` there. */
interface KeptJsonSyntax {
  line: number;
  col: number;
  expected: string;
}

async function policyFor(file: string, maxBytes: number): Promise<ReadPolicy> {
  return { root: await realFolder(path.dirname(file)), maxBytes };
}

/**
 * The outermost folder that is a symbolic link, from `folder` (absolute) up to the git work tree
 * holding it (outside git: `folder` itself only), and that work tree; undefined when none is a link.
 * A folder that is itself a link is not a work tree (its `.git` is elsewhere).
 */
async function linkedFolderOf(folder: string): Promise<{ link: string; root: string | undefined } | undefined> {
  let link: string | undefined;
  for (let dir = folder; ; dir = path.dirname(dir)) {
    if (await isSymbolicLink(dir)) link = dir;
    else if (await isThere(path.join(dir, '.git'))) return link === undefined ? undefined : { link, root: dir };
    if (path.dirname(dir) === dir) return (await isSymbolicLink(folder)) ? { link: folder, root: undefined } : undefined;
  }
}

/**
 * Refuses a folder of kept files (to read or write one there) that is a symbolic link, or is inside
 * one in its git work tree: the checkout's link could lead to another project's state or to any
 * folder of the machine, and voxform would read its secrets or write there.
 */
export async function checkKeptFolder(folder: string): Promise<void> {
  const absolute = path.resolve(folder);
  const found = await linkedFolderOf(absolute);
  if (found === undefined) return;
  const shown = (where: string) => (found.root === undefined ? where : path.relative(found.root, where));
  const where = `${shown(absolute)}${found.root === undefined ? '' : ` (in ${found.root})`}`;
  const what = found.link === absolute ? `${where} is a symbolic link` : `${where} is inside ${shown(found.link)}, a symbolic link`;
  throw new VoxformError(
    'kept_folder_linked',
    `${what}: voxform reads and writes its own files (the state, its history and lock, the local account, saved plans, caches, recordings, ci run's outputs) only in real folders, never where a link leads.`,
    { hint: `Remove the link (\`git rm ${shellWord(shown(found.link))}\` if it is committed), or name a file in a real folder (--state, --out, --out-dir).` },
  );
}

/** Creates a folder for kept files (and those above it), once checkKeptFolder allows it. */
export async function makeKeptFolder(folder: string): Promise<void> {
  await checkKeptFolder(folder);
  await mkdir(folder, { recursive: true });
}

/** Writes a kept file atomically (writeFileAtomic, `flushed` and `evenOnStop` as there), once checkKeptFolder allows its folder. */
export async function writeKeptFile(file: string, data: FileData, options: { flushed?: boolean; evenOnStop?: boolean } = {}): Promise<void> {
  await checkKeptFolder(path.dirname(file));
  await writeFileAtomic(file, data, undefined, options);
}

/**
 * Whether anything at all is at the path (a link to nothing is something). Unlike pathExists, a place
 * that cannot be looked at is there: a kept file voxform may not read is refused, never taken for none.
 */
function isThere(file: string): Promise<boolean> {
  return lstat(file).then(
    () => true,
    (error: NodeJS.ErrnoException) => error.code !== 'ENOENT' && error.code !== 'ENOTDIR',
  );
}

/** Why the guards refused a file that is there: "missing" then means a link to nothing (or to a pipe). */
function refusal(reason: ReadFailure, message: string): KeptFile<never> {
  if (reason === 'missing') return { found: true, ok: false, reason: 'refused', problem: 'is a symbolic link to nothing voxform can read' };
  return { found: true, ok: false, reason: 'refused', problem: reason === 'outside' ? 'is a symbolic link leading out of its folder' : message };
}

/** Whether a file has gone since it was looked at (a lock's holder another run removed): not found, not refused. */
async function goneMeanwhile(file: string): Promise<boolean> {
  return !(await isThere(file));
}

/** What a kept file may be: its size, and what its JSON may make voxform build. */
export interface KeptJsonLimits extends JsonBudget {
  maxBytes: number;
  /**
   * Refuse an object that holds a key twice (JSON.parse would keep the last copy, where a reviewer
   * reads the first): for files whose content must be what was reviewed, such as recordings.
   */
  uniqueKeys?: boolean;
}

/** Bytes read between two turns of the event loop. */
const CHUNK_BYTES = 1024 * 1024;

/**
 * The file's JSON value, read under the guards and counted against its budget as the bytes arrive
 * (refused before it is read whole or parsed), a chunk at a time so Ctrl-C stops a long load.
 */
export async function readKeptJson(file: string, limits: KeptJsonLimits): Promise<KeptFile<unknown>> {
  await checkKeptFolder(path.dirname(file));
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
    if (info.size > limits.maxBytes) return refusal('too_large', tooLarge(info.size, limits));
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
  return parseCounted(bytes.toString('utf8'), limits);
}

/** Text within its JSON budget, parsed. */
function parseCounted(text: string, options: Pick<KeptJsonLimits, 'uniqueKeys'> = {}): Exclude<KeptFile<unknown>, { found: false }> {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch {
    // The parser's message quotes the text, which may be anyone's secret: only the place and what JSON wanted are said.
    // Read again by the grammar, which recurses per level: the budget bounded the nesting.
    const error = jsonSyntaxError(text);
    const syntax = error === undefined ? undefined : { ...textPosition(text, error.at), expected: error.expected };
    return { found: true, ok: false, reason: 'not_json', problem: NOT_JSON, ...(syntax === undefined ? {} : { syntax }) };
  }
  const duplicate = options.uniqueKeys === true ? firstDuplicateKey(text) : undefined;
  if (duplicate === undefined) return { found: true, ok: true, value };
  // The key is named (quoted as JSON: it may hold a control character), never a value.
  const { line, col } = textPosition(text, duplicate.at);
  return { found: true, ok: false, reason: 'duplicate_key', problem: `holds the key ${JSON.stringify(shorten(duplicate.key, 60))} twice in one object (again at line ${line}, col ${col}): JSON keeps the last copy, a reader sees the first` };
}

const NOT_JSON = 'is not valid JSON';

/**
 * Why readKeptJson would refuse these bytes under `limits` ("is … bytes; the limit is …", "holds more
 * than … JSON values, the limit"), or undefined:
 * a writer checks what it is about to write with the limits its reader uses, so it never writes a
 * file voxform then refuses to read.
 */
export function keptJsonRefusal(bytes: Uint8Array, limits: KeptJsonLimits): string | undefined {
  if (bytes.length > limits.maxBytes) return tooLarge(bytes.length, limits);
  const overrun = overrunOf(bytes, limits);
  return overrun === undefined ? undefined : describeOverrun(overrun);
}

function tooLarge(size: number, limits: KeptJsonLimits): string {
  return `is ${formatCount(size)} bytes; the limit is ${formatSize(limits.maxBytes)}`;
}

/**
 * Text in pieces as the bytes of a file, checked as they pass as keptJsonRefusal checks them: once
 * they pass a limit, no byte more is given, and at the end `refuse` is thrown with what keptJsonRefusal
 * would say (the size counted to the end).
 */
export function* keptJsonBytes(pieces: Iterable<string>, limits: KeptJsonLimits, refuse: (problem: string) => Error): Generator<Uint8Array> {
  const counter = new JsonCounter(limits);
  let size = 0;
  let overrun: ReturnType<JsonCounter['feed']>;
  for (const piece of pieces) {
    const bytes = Buffer.from(piece);
    size += bytes.length;
    if (size > limits.maxBytes || overrun) continue;
    overrun = counter.feed(bytes);
    if (!overrun) yield bytes;
  }
  if (size > limits.maxBytes) throw refuse(tooLarge(size, limits));
  if (overrun) throw refuse(describeOverrun(overrun));
}

/** JSON text kept elsewhere than in a file (a database row), parsed within the same budget. */
export function parseKeptJson(text: string, budget: JsonBudget): Exclude<KeptFile<unknown>, { found: false }> {
  const overrun = overrunOf(text, budget);
  if (overrun) return { found: true, ok: false, reason: 'over_budget', problem: describeOverrun(overrun) };
  return parseCounted(text);
}
