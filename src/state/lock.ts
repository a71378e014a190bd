import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rename, rm, rmdir, unlink, writeFile } from 'node:fs/promises';
import { isDead, ownRecord, thisRun, type RunIdentity } from '../util/run-identity.js';
import path from 'node:path';
import { isVoxformError, VoxformError } from '../errors.js';
import { describeHolder, forcedOpenOf, isLockId, lockedError, STATE_OPTION, waitingNotice, waitToRetryLock, type AcquireOptions, type ForcedOpen, type LockHolder } from './backend.js';
import { checkKeptFolder, makeKeptFolder, readKeptJson, writeKeptFile } from '../project-files/kept-files.js';
import { describeWriteFailure } from '../util/atomic-write.js';
import { stateWriteRemedy } from './write-failure.js';
import { LOCK_HOLDER_JSON_LIMITS } from '../project-files/limits.js';

/** Who holds a state lock: written into the lock so a refused run can name its owner. */
interface LockOwner extends RunIdentity {
  /** ISO 8601. */
  since: string;
}

export interface StateLock {
  owner: LockOwner;
  /** The holder file's nonce: names this holding for `voxform state unlock --force LOCK_ID`. */
  lockId: string;
  /** Whether the holder file is still in place (false once someone forced the lock open). */
  stillHeld(): Promise<boolean>;
  /** Gives the lock up; safe to call twice, and never removes a lock someone else took since. */
  release(): Promise<void>;
}

/**
 * The lock is the directory `state.json.lock` holding one file, `holder-<nonce>.json`, naming its
 * owner. Every step that changes who holds it is one atomic operation, so exactly one run holds it:
 * - Taking it: the owner file is written into a staging directory, renamed to the lock; a rename
 *   onto a non-empty directory fails, and the lock is never empty while held.
 * - Taking over a dead holder's lock: remove that holder's file by its unique name, then `rmdir`,
 *   which fails if a faster run moved in. (`proper-lockfile`'s stat–rmdir–mkdir takeover can remove
 *   a lock another run just took.)
 * - Releasing: remove the own file, then `rmdir` (harmless if a new holder moved in).
 * A holder is judged dead only on its own host, by pid (`isDead`): one of this host and pid that this
 * process did not write was left by an earlier process with the same pid, and is dead too.
 */
export async function acquireStateLock(stateFile: string, options: AcquireOptions, chosenWith: string = STATE_OPTION): Promise<StateLock> {
  const lockDir = lockPathOf(stateFile);
  try {
    return await takeLock(stateFile, lockDir, options);
  } catch (error) {
    if (isVoxformError(error)) throw error;
    throw new VoxformError('state_lock_failed', `Could not take the state lock ${lockDir}: ${describeWriteFailure(error)}.`, {
      hint: `${stateWriteRemedy(error)}; ${chosenWith} names the state file.`,
      cause: error,
    });
  }
}

async function takeLock(stateFile: string, lockDir: string, options: AcquireOptions): Promise<StateLock> {
  await makeKeptFolder(path.dirname(lockDir));
  const owner: LockOwner = { ...thisRun(options.command, options.ciJobUrl), since: new Date().toISOString() };
  const nonce = randomBytes(8).toString('hex');
  const ownerFile = `holder-${nonce}.json`;
  const staging = `${lockDir}.${nonce}.tmp`;
  await mkdir(staging);
  // Noted before it is written: another acquire in this process never takes it for a dead holder's.
  const forget = ownRecord(ownerFile);
  let held = false;
  try {
    await writeFile(path.join(staging, ownerFile), `${JSON.stringify(owner)}\n`);
    const deadline = Date.now() + options.timeoutSeconds * 1000;
    let waiting = false;
    for (;;) {
      if (await moveInto(staging, lockDir)) {
        held = true;
        return heldLock(owner, lockDir, ownerFile, nonce, forget);
      }
      const holder = await readHolder(lockDir);
      if (holder === 'gone') continue;
      // A holder voxform cannot name is never judged dead: it may be running.
      if (holder.owner && isDead(holder.owner, holder.file)) {
        options.warn(`Taking over the state lock left by ${describeHolder({ ...holder.owner, lockId: lockIdOf(holder) })}, which no longer runs.`);
        await removeDeadHolder(lockDir, holder);
        continue;
      }
      if (Date.now() >= deadline) throw refusal(stateFile, lockDir, holder, options);
      if (!waiting) options.warn(waitingNotice(`The state file ${stateFile}`, describeHolder(holderOf(holder)), options));
      waiting = true;
      await waitToRetryLock(Math.min(500, Math.max(50, deadline - Date.now())), options.signal);
    }
  } finally {
    if (!held) {
      forget();
      await rm(staging, { recursive: true, force: true });
    }
  }
}

/** A lock as `status` and `state list` show it: held, by an owner, or by a run voxform cannot name (`unreadable` says why). */
export interface HeldStateLock {
  owner: LockOwner | undefined;
  /** The nonce of its holder file; empty for a lock of an older voxform, or one without a holder file. */
  lockId: string;
  unreadable?: string | undefined;
  /** Its holder no longer runs (see `isDead`): the next run takes the lock over. */
  noLongerRuns?: true | undefined;
}

/** Whether the lock of `stateFile` is held, and by whom; one voxform cannot read is held, with the reason. */
export async function readStateLockWithId(stateFile: string): Promise<HeldStateLock | undefined> {
  const lockDir = lockPathOf(stateFile);
  let holder: Holder;
  try {
    holder = await readHolder(lockDir);
  } catch (error) {
    if (isVoxformError(error)) throw error;
    return { owner: undefined, lockId: '', unreadable: `the lock ${lockDir} cannot be read (${(error as NodeJS.ErrnoException).code ?? String(error)})` };
  }
  if (holder === 'gone') return undefined;
  return { owner: holder.owner, lockId: lockIdOf(holder), unreadable: holder.unreadable, ...(holder.owner && isDead(holder.owner, holder.file) ? { noLongerRuns: true } : {}) };
}

function lockIdOf(holder: { file: string }): string {
  return HOLDER_FILE.exec(path.basename(holder.file))?.[1] ?? '';
}

const HOLDER_FILE = /^holder-([0-9a-f]+)\.json$/;

/**
 * Opens the lock held under `lockId` (`state unlock --force`), another id's lock left alone;
 * undefined if none. Who forced it is recorded first, so the holder finds the record as it finds
 * its lock gone.
 */
export async function forceUnlockState(stateFile: string, lockId: string, by: RunIdentity, chosenWith: string, now: Date = new Date()): Promise<HeldStateLock | undefined> {
  const lockDir = lockPathOf(stateFile);
  if (!isLockId(lockId)) return undefined;
  const file = path.join(lockDir, `holder-${lockId}.json`);
  const holder = await readHolderFile(file).catch(() => 'gone' as const);
  if (holder === 'gone') return undefined;
  const record: ForcedOpen = { lockId, by, at: now.toISOString() };
  try {
    await writeKeptFile(forcedOpenPathOf(stateFile), `${JSON.stringify(record)}\n`, { evenOnStop: true });
  } catch (error) {
    if (isVoxformError(error)) throw error;
    throw new VoxformError('state_lock_failed', `Could not record who opens the state lock in ${forcedOpenPathOf(stateFile)}: ${describeWriteFailure(error)}; the lock was left as it was.`, {
      hint: `${stateWriteRemedy(error)} (${chosenWith} names the state file), then run the unlock again.`,
      cause: error,
    });
  }
  await removeDeadHolder(lockDir, { file });
  return { owner: holder.owner, lockId, unreadable: holder.unreadable };
}

/** The last forced open of the lock of `stateFile`; undefined when none was recorded, or the record is not one voxform wrote. */
export async function readLastForcedOpen(stateFile: string): Promise<ForcedOpen | undefined> {
  const read = await readKeptJson(forcedOpenPathOf(stateFile), LOCK_HOLDER_JSON_LIMITS);
  return read.found && read.ok ? forcedOpenOf(read.value) : undefined;
}

/** The record of the last forced open: `state.json.forced-open.json` beside the state file and its lock. */
function forcedOpenPathOf(stateFile: string): string {
  return `${stateFile}.forced-open.json`;
}

/** The lock's path: `state.json.lock` beside the state file. */
export function lockPathOf(stateFile: string): string {
  return `${stateFile}.lock`;
}

/** Renames the staging directory to the lock; false when the lock is already there (held). */
async function moveInto(staging: string, lockDir: string): Promise<boolean> {
  try {
    await rename(staging, lockDir);
    return true;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    // ENOTEMPTY/EEXIST: a holder's directory; ENOTDIR: a lock file of an older voxform.
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') return false;
    // EPERM: Windows refuses to rename onto any existing directory; elsewhere it is a real refusal.
    if (code === 'EPERM' && (await lstat(lockDir).then(() => true, () => false))) return false;
    throw error;
  }
}

/**
 * The current holder: its owner and the path that names it, or no owner and why (`unreadable`: a
 * holder file voxform did not write, a lock folder without one); `gone` when there is none.
 */
type Holder = { owner: LockOwner; file: string; unreadable?: undefined } | { owner: undefined; file: string; unreadable: string } | 'gone';

const isHolderName = (name: string) => name.startsWith('holder-') && name.endsWith('.json');

/** The names of the holder files in the lock folder of `stateFile`: none when there is no lock folder. Nothing is read from them. */
export async function holderFileNames(stateFile: string): Promise<string[]> {
  return (await readdir(lockPathOf(stateFile)).catch(() => [] as string[])).filter(isHolderName);
}

async function readHolder(lockDir: string): Promise<Holder> {
  try {
    const info = await lstat(lockDir);
    // No run holds a link (a run makes a real folder): one committed would lead the lock anywhere.
    if (info.isSymbolicLink()) await checkKeptFolder(lockDir);
    if (info.isFile()) return await readHolderFile(lockDir);
    if (!info.isDirectory()) return { owner: undefined, file: lockDir, unreadable: 'the lock is neither a folder nor a file' };
    const names = (await readdir(lockDir)).filter(isHolderName);
    if (names.length === 0) return await withoutHolderFile(lockDir);
    const file = path.join(lockDir, names[0] as string);
    return await readHolderFile(file);
  } catch (error) {
    // ENOENT: released meanwhile; EISDIR/ENOTDIR: an older lock file replaced by a directory (or the
    // reverse) between the look and the read. Either way: look again.
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EISDIR' || code === 'ENOTDIR') return 'gone';
    throw error;
  }
}

/**
 * A lock folder without a holder file. Empty: removed (rmdir fails once a holder has moved in). Not
 * empty: a holder that moved in meanwhile, or something voxform never writes, which holds the lock.
 */
async function withoutHolderFile(lockDir: string): Promise<Holder> {
  const code = await rmdir(lockDir).then(() => undefined, (error: NodeJS.ErrnoException) => error.code ?? 'EIO');
  if (code === undefined || code === 'ENOENT') return 'gone';
  if ((await readdir(lockDir).catch(() => [] as string[])).some(isHolderName)) return 'gone';
  return { owner: undefined, file: lockDir, unreadable: 'the lock folder holds no holder file' };
}

/**
 * A holder file (or an older voxform's lock file), read under the guards of kept files: it may be a
 * link to `/dev/urandom`, a FIFO or a file outside. A refused one holds the lock, unreadable.
 */
async function readHolderFile(file: string): Promise<Holder> {
  const read = await readKeptJson(file, LOCK_HOLDER_JSON_LIMITS);
  if (!read.found) return 'gone';
  const unreadable = { owner: undefined, file, unreadable: `its ${holderFileName(file)} is not one voxform wrote` };
  if (!read.ok) return read.reason === 'not_json' ? unreadable : { owner: undefined, file, unreadable: `its ${holderFileName(file)} ${read.problem}` };
  const owner = read.value as Partial<LockOwner> | null;
  if (typeof owner?.pid !== 'number' || typeof owner.host !== 'string') return unreadable;
  const parsed: LockOwner = { pid: owner.pid, host: owner.host, user: String(owner.user), command: String(owner.command), since: String(owner.since) };
  if (typeof owner.ciJobUrl === 'string') parsed.ciJobUrl = owner.ciJobUrl;
  return { file, owner: parsed };
}

function holderFileName(file: string): string {
  return file.endsWith('.lock') ? 'lock file' : `holder file ${path.basename(file)}`;
}

/** Removes a dead holder's file by its own name, then the directory if empty (`unlink` never removes a directory). */
async function removeDeadHolder(lockDir: string, holder: { file: string }): Promise<void> {
  await unlink(holder.file).catch(ignoreCodes('ENOENT', 'EISDIR', 'EPERM'));
  if (holder.file !== lockDir) await rmdir(lockDir).catch(ignoreCodes('ENOENT', 'ENOTEMPTY', 'EEXIST'));
}

function heldLock(owner: LockOwner, lockDir: string, ownerFile: string, lockId: string, forget: () => void): StateLock {
  let released = false;
  return {
    owner,
    lockId,
    stillHeld: () => lstat(path.join(lockDir, ownerFile)).then(() => true, () => false),
    release: async () => {
      if (released) return;
      released = true;
      await unlink(path.join(lockDir, ownerFile)).catch(ignoreCodes('ENOENT'));
      forget();
      await rmdir(lockDir).catch(ignoreCodes('ENOENT', 'ENOTEMPTY', 'EEXIST'));
    },
  };
}

function refusal(stateFile: string, lockDir: string, holder: Exclude<Holder, 'gone'>, options: AcquireOptions): VoxformError {
  const lockId = lockIdOf(holder);
  const details = holder.owner ? { ...holder.owner } : { unreadable: holder.unreadable };
  return lockedError(`The state file ${stateFile}`, holderOf(holder), options, {
    // A lock folder without a holder file has no id to unlock by.
    ...(lockId ? {} : { opens: `removing ${lockDir} opens it` }),
    details: { holder: { ...details, ...(lockId ? { lockId } : {}) } },
  });
}

/** A holder as the backends name it; one voxform cannot name, with the reason. */
function holderOf(holder: Exclude<Holder, 'gone'>): LockHolder {
  const lockId = lockIdOf(holder);
  return holder.owner ? { ...holder.owner, lockId } : { lockId, user: 'unknown', host: 'unknown', pid: 0, command: 'unknown', since: 'unknown', unreadable: holder.unreadable };
}

function ignoreCodes(...codes: string[]): (error: unknown) => void {
  return (error) => {
    if (!codes.includes((error as NodeJS.ErrnoException).code ?? '')) throw error;
  };
}
