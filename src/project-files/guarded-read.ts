/**
 * Reading a file a manifest names, without trusting the manifest (the pull request's): a path must
 * not reach the CI machine's own files (`/proc/self/environ`, a symbolic link out), block on a FIFO,
 * or stream `/dev/zero` forever. Before a file is opened, its real path must lie inside the project
 * root (the git work tree holding the manifest), and it must be a regular file within its size cap.
 * It is then opened without following a last link and without blocking, checked again on the
 * descriptor, and read up to the cap only (a file in `/proc` reports size 0 and has content).
 */
import { closeSync, constants, fstatSync, lstat, openSync, readSync, realpath, realpathSync, stat, statSync, type Stats } from 'node:fs';
import path from 'node:path';
import type { DiagnosticCode } from '../error-codes.js';
import { inSlice } from '../util/sync-slices.js';
import { formatCount } from '../util/plural.js';
import { formatSize } from '../util/size.js';

export type ReadFailure =
  | 'missing'
  | 'folder'
  | 'unreadable'
  /** Its real path is outside the project root. */
  | 'outside'
  /** It is (or its real path is) inside a KEPT_FOLDERS folder. */
  | 'kept_folder'
  /** A FIFO, socket or device. */
  | 'not_regular'
  | 'too_large'
  /** In a CI job, not what the commit under review holds at its path (checkout-files.ts). */
  | 'uncommitted';

/** The diagnostic for each reason a file was not read. */
export const READ_FAILURE_CODES: Record<ReadFailure, DiagnosticCode> = {
  missing: 'file_missing',
  folder: 'file_unreadable',
  unreadable: 'file_unreadable',
  outside: 'file_outside_project',
  kept_folder: 'file_outside_project',
  not_regular: 'file_not_regular',
  too_large: 'file_too_large',
  uncommitted: 'file_not_committed',
};

export type ReadOutcome =
  | { ok: true; bytes: Buffer }
  | {
      ok: false;
      reason: ReadFailure;
      message: string;
      /** Refused by its budget (`ReadPolicy.budget`), the files before it taking the rest: it may be within its own cap. */
      pastBudget?: true;
    };

/** Where a file may be and how large it may be. */
export interface ReadPolicy {
  /** The folder the file must be inside, as a real path (see findProjectRoot, realFolder). */
  root: string;
  maxBytes: number;
  /** Bytes left for all the files read under this budget (shared, charged before each read). */
  budget?: { remaining: number; limit: number; noun: string };
}

/**
 * The project root (a real path) of folder `start`, found from the path as written, not from where
 * its links lead (a link in the checkout is the pull request's): the nearest folder holding `start`
 * with a `.git` (its git work tree), else `cwd` when it holds `start`, else `start`. A folder that is
 * itself a symbolic link is never taken for the work tree: its `.git` is that of wherever it leads.
 * Only the folder found is then resolved; a file's real path must lie inside it (inspectNow).
 */
export async function findProjectRoot(start: string, cwd: string): Promise<string> {
  const workingDirectory = path.resolve(cwd);
  const written = path.resolve(workingDirectory, start);
  for (let dir = written; ; dir = path.dirname(dir)) {
    // `.git` is a folder in a clone and a file in a worktree or submodule: either marks the work tree.
    if ((await pathExists(path.join(dir, '.git'), { follow: true })) && !(await isSymbolicLink(dir))) return realFolder(dir);
    if (path.dirname(dir) === dir) break;
  }
  return realFolder(isInside(workingDirectory, written) ? workingDirectory : written);
}

/** `root` (from findProjectRoot with `start` the folder of the manifest the operator named) and how it was found, for messages. */
export async function describeProjectRoot(root: string, cwd: string): Promise<string> {
  if (await pathExists(path.join(root, '.git'), { follow: true })) return `${root} (the git work tree holding the manifest)`;
  return root === (await realFolder(path.resolve(cwd)))
    ? `${root} (the folder voxform runs in, which holds the manifest and is in no git work tree)`
    : `${root} (the manifest's folder, which is in no git work tree)`;
}

/** Whether `file` (a real path) is `root` or inside it. */
export function isInside(root: string, file: string): boolean {
  const relative = path.relative(root, file);
  return relative === '' || (!relative.startsWith(`..${path.sep}`) && relative !== '..' && !path.isAbsolute(relative));
}

/** A read's bytes with the real path they were read at, or why they were not read. */
export type GuardedOutcome = (Extract<ReadOutcome, { ok: true }> & { real: string }) | Extract<ReadOutcome, { ok: false }>;

/**
 * Reads a file under a policy, answering why not instead of throwing; a refused file is never
 * opened. Run in synchronous slices (sync-slices.ts): no call here can wait on another process.
 * A project's files are read through `readProjectFile` (checkout-files.ts), which adds what a CI
 * job may read to these guards.
 */
export function readGuarded(file: string, policy: ReadPolicy): Promise<GuardedOutcome> {
  return inSlice(() => readGuardedNow(file, policy));
}

function readGuardedNow(file: string, policy: ReadPolicy): GuardedOutcome {
  const checked = inspectNow(file, policy);
  if (!checked.ok) return checked;
  const refused = policy.budget && chargeBudget(policy.budget, checked.info.size);
  if (refused) return refused;
  const read = readOpened(checked.real, checked.info, policy.maxBytes);
  return read.ok ? { ...read, real: checked.real } : read;
}

/** Takes `size` bytes from the budget; the refusal, taking nothing, when fewer are left. */
export function chargeBudget(budget: NonNullable<ReadPolicy['budget']>, size: number): Extract<ReadOutcome, { ok: false }> | undefined {
  if (size > budget.remaining) {
    return { ok: false, reason: 'too_large', message: `would take the ${budget.noun} of this manifest past ${formatSize(budget.limit)} together; that is the limit`, pastBudget: true };
  }
  budget.remaining -= size;
  return undefined;
}

const OUTSIDE: Extract<ReadOutcome, { ok: false }> = { ok: false, reason: 'outside', message: 'is outside the project' };

/** Folders that hold no project file: `.git/config` can hold the CI job's token, `.voxform/` the state and keys. */
const KEPT_FOLDERS: Record<string, string> = {
  '.git': "git's own folder (its config can hold the CI job's token)",
  '.voxform': "voxform's own folder (the state and the local emulator's account)",
};

/** The refusal of a path (absolute) inside a kept folder of `root`, at any depth; undefined for any other path. */
function inKeptFolder(root: string, file: string, where = 'is inside'): Extract<ReadOutcome, { ok: false }> | undefined {
  const folder = keptFolderOf(root, file);
  if (folder === undefined) return undefined;
  return { ok: false, reason: 'kept_folder', message: `${where} ${folder}: voxform reads no file there; keep the file elsewhere in the project` };
}

/**
 * The kept folder (`.git`, `.voxform`) of `root` that `file` (absolute) is inside, at any depth, named
 * with why it is kept ("`.git`, git's own folder (…)"); undefined for any other path.
 */
export function keptFolderOf(root: string, file: string): string | undefined {
  if (!isInside(root, file)) return undefined;
  const folder = path.relative(root, file).split(path.sep).slice(0, -1).find((part) => Object.hasOwn(KEPT_FOLDERS, part));
  return folder === undefined ? undefined : `${folder}, ${KEPT_FOLDERS[folder]}`;
}

/** The real path of the deepest folder above `file` that exists. */
function existingAncestor(file: string): string {
  for (let dir = path.dirname(path.resolve(file)); ; dir = path.dirname(dir)) {
    const real = attempt(() => realpathSync.native(dir));
    if (real !== undefined || path.dirname(dir) === dir) return real ?? dir;
  }
}

type Inspection = { ok: true; real: string; info: Stats } | Extract<ReadOutcome, { ok: false }>;

/** The real path and its stat, once the path has passed every check that needs no open. */
export function inspect(file: string, policy: ReadPolicy): Promise<Inspection> {
  return inSlice(() => inspectNow(file, policy));
}

function inspectNow(file: string, policy: ReadPolicy): Inspection {
  // As written first (nothing is looked up in there, not even for a suggestion), then where links lead.
  const absolute = path.resolve(file);
  const written = inKeptFolder(policy.root, absolute);
  if (written) return written;
  let real: string;
  try {
    real = realpathSync.native(absolute);
  } catch (error) {
    // A missing file outside the project is "outside", not "missing": its folder is not listed for suggestions.
    const failure = failureOf(error);
    if (failure.reason === 'missing' && !isInside(policy.root, existingAncestor(file))) return OUTSIDE;
    return failure;
  }
  if (!isInside(policy.root, real)) {
    const linked = isInside(policy.root, path.resolve(file));
    return linked ? { ok: false, reason: 'outside', message: 'is a symbolic link leading outside the project' } : OUTSIDE;
  }
  const kept = inKeptFolder(policy.root, real, 'is a symbolic link into');
  if (kept) return kept;
  let info: Stats;
  try {
    info = statSync(real);
  } catch (error) {
    return failureOf(error);
  }
  return checkKind(real, info, policy.maxBytes);
}

/** A regular file within its cap passes; a folder, a FIFO, a socket, a device or a larger file does not. */
function checkKind(real: string, info: Stats, maxBytes: number): Inspection {
  if (info.isDirectory()) return { ok: false, reason: 'folder', message: 'is a folder, not a file' };
  if (!info.isFile()) return { ok: false, reason: 'not_regular', message: `is ${kindOf(info)}, not a regular file` };
  if (info.size > maxBytes) return tooLarge(info.size, maxBytes);
  return { ok: true, real, info };
}

/**
 * Reads a file the operator names on the command line (`emulator --seed`, a traffic profile): it may
 * be anywhere, links followed, but like every file voxform reads it must be a regular file within its
 * cap, opened without blocking: a FIFO would hold the open forever, past Ctrl-C, and `/dev/zero` never end.
 */
export function readOperatorFile(file: string, maxBytes: number): Promise<ReadOutcome> {
  return inSlice(() => {
    let real: string;
    let info: Stats;
    try {
      real = realpathSync.native(path.resolve(file));
      info = statSync(real);
    } catch (error) {
      return failureOf(error);
    }
    const checked = checkKind(real, info, maxBytes);
    return checked.ok ? readOpened(checked.real, checked.info, maxBytes) : checked;
  });
}

/** Opens the inspected file without following a link or blocking, checks it is still that file, reads at most `maxBytes`. */
function readOpened(real: string, expected: Stats, maxBytes: number): ReadOutcome {
  let fd: number;
  try {
    fd = openSync(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    return failureOf(error);
  }
  try {
    const info = fstatSync(fd);
    if (!info.isFile() || info.ino !== expected.ino || info.dev !== expected.dev) {
      return { ok: false, reason: 'unreadable', message: 'changed while it was being read' };
    }
    if (info.size > maxBytes) return tooLarge(info.size, maxBytes);
    return readUpTo(fd, maxBytes, info.size);
  } catch (error) {
    return failureOf(error);
  } finally {
    closeSync(fd);
  }
}

/**
 * Reads from `fd` the size it reported (`fstat`) into one buffer of that size, or, for a file that
 * reports none (`/proc`), in 64 KiB buffers until its end or one byte past `maxBytes` (too large).
 */
function readUpTo(fd: number, maxBytes: number, reportedSize: number): ReadOutcome {
  const chunks: Buffer[] = [];
  let total = 0;
  let buffer = Buffer.allocUnsafe(reportedSize > 0 ? reportedSize : Math.min(64 * 1024, maxBytes + 1));
  let filled = 0;
  const whole = (): ReadOutcome => {
    // An empty file's answer must not hold on to a 64 KiB buffer.
    const last = filled === 0 ? Buffer.alloc(0) : buffer.subarray(0, filled);
    return { ok: true, bytes: chunks.length === 0 ? last : Buffer.concat([...chunks, last], total) };
  };
  for (;;) {
    if (filled === buffer.length) {
      chunks.push(buffer);
      buffer = Buffer.allocUnsafe(Math.min(64 * 1024, maxBytes + 1 - total));
      filled = 0;
    }
    const count = readSync(fd, buffer, filled, buffer.length - filled, null);
    if (count === 0) return whole();
    filled += count;
    total += count;
    if (total > maxBytes) return tooLarge(total, maxBytes, true);
    if (total === reportedSize) return whole();
  }
}

function tooLarge(size: number, maxBytes: number, atLeast = false): Extract<ReadOutcome, { ok: false }> {
  const limit = formatSize(maxBytes);
  if (atLeast) return { ok: false, reason: 'too_large', message: `is more than ${limit}; the limit is ${limit}` };
  // Rounded, a size just over the limit would read as the limit ("1.0 MiB; the limit is 1 MiB"): then exact.
  if (unitOf(size) * Number((size / unitOf(size)).toFixed(1)) > maxBytes) return { ok: false, reason: 'too_large', message: `is ${formatSize(size)}; the limit is ${limit}` };
  const bytes = (count: number) => `${formatCount(count)} bytes`;
  return { ok: false, reason: 'too_large', message: `is ${bytes(size)}; the limit is ${limit} (${bytes(maxBytes)})` };
}

const unitOf = (bytes: number): number => (bytes >= 1024 * 1024 ? 1024 * 1024 : bytes >= 1024 ? 1024 : 1);


function kindOf(info: Stats): string {
  if (info.isFIFO()) return 'a FIFO (named pipe)';
  if (info.isSocket()) return 'a socket';
  if (info.isCharacterDevice() || info.isBlockDevice()) return 'a device';
  return 'not a file';
}

export function failureOf(error: unknown): Extract<ReadOutcome, { ok: false }> {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === 'ENOENT' || code === 'ENOTDIR') return { ok: false, reason: 'missing', message: 'does not exist' };
  if (code === 'EISDIR') return { ok: false, reason: 'folder', message: 'is a folder, not a file' };
  if (code === 'ELOOP') return { ok: false, reason: 'unreadable', message: 'is a loop of symbolic links' };
  return { ok: false, reason: 'unreadable', message: `cannot be read (${code ?? (error as Error).message})` };
}

/** The real path of a folder (itself when it cannot be resolved: then nothing inside it resolves either). */
export function realFolder(folder: string): Promise<string> {
  return realpathOf(folder).catch(() => path.resolve(folder));
}

function realpathOf(file: string): Promise<string> {
  return new Promise((resolve, reject) => realpath.native(file, (error, resolved) => (error ? reject(error) : resolve(resolved))));
}

/** `read()`'s value, or undefined when it throws. */
function attempt<T>(read: () => T): T | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * Whether anything is at `file`: with `follow`, where a link leads (a link to nothing is nothing);
 * without, the path itself. A place that cannot be looked at counts as nothing.
 */
export function pathExists(file: string, options: { follow: boolean }): Promise<boolean> {
  return new Promise((resolve) => (options.follow ? stat : lstat)(file, (error) => resolve(!error)));
}

export function isSymbolicLink(file: string): Promise<boolean> {
  return new Promise((resolve) => lstat(file, (error, info) => resolve(!error && info.isSymbolicLink())));
}
