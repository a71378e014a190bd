/**
 * Where voxform keeps its state, its apply lock and its deploy ledger: the operator's choice
 * (`--state` or `VOXFORM_STATE`, never a manifest). Two implementations: the state file
 * (src/state/file-backend.ts) and PostgreSQL (src/state/postgres/backend.ts). Everything that reads
 * or writes state — plan, apply, status, `voxform state …` — goes through this interface.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { VoxformError } from '../errors.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import type { HistoryRecord, HistoryStore } from '../history/types.js';
import type { LastApply, WorkspaceState } from './types.js';

/** A workspace as stored, with the serial a compare-and-set write must name. */
export interface StoredWorkspace {
  workspace: WorkspaceState;
  /** 0 when nothing was ever stored for it. */
  serial: number;
  /** Whether anything is stored for it (false: `workspace` is empty). */
  exists: boolean;
}

export interface WriteResult {
  /** The serial the workspace is stored at now. */
  serial: number;
}

/** Who holds an apply lock: readable by every run that is refused, and by `voxform state list`. */
export interface LockHolder {
  /** Names this holding of the lock for `voxform state unlock --force LOCK_ID`. */
  lockId: string;
  user: string;
  host: string;
  pid: number;
  /** What the holder runs (`voxform apply plan.json`). */
  command: string;
  /** ISO 8601: when the lock was taken. */
  since: string;
  /** The CI job that runs the holder, when the CI environment names it. */
  ciJobUrl?: string | undefined;
  /**
   * Set when the lock is held by a run voxform cannot name (its holder file is not one voxform
   * wrote): why. `user`, `host`, `command` and `since` are then `unknown`, `pid` 0.
   */
  unreadable?: string | undefined;
}

export interface HeldLock {
  holder: LockHolder;
  /**
   * Aborts when the lock is lost while held (the database connection that holds it dropped, or an
   * operator forced it open): the apply then sends no new write, and reports what reached the service.
   */
  lost: AbortSignal;
  /** Why `lost` fired, once it has. */
  lostReason(): string | undefined;
  /** Gives the lock up; safe to call twice. */
  release(): Promise<void>;
}

/** How a run takes an apply lock: the one options type of every backend's lock. */
export interface AcquireOptions {
  /** What the holder is doing, shown to a run that is refused. */
  command: string;
  /** How long to wait for a holder to finish before refusing (0: refuse at once). */
  timeoutSeconds: number;
  /** Receives warnings that do not stop the run (a dead holder's lock taken over). */
  warn: (message: string) => void;
  /** The CI job URL to name in the holder, when known. */
  ciJobUrl?: string | undefined;
  /** Ends a wait for the lock (Ctrl-C) with the `interrupted` error, nothing held or left behind. */
  signal?: AbortSignal | undefined;
  /**
   * A refusal's advice on waiting, for a command without `--lock-timeout` (`voxform state migrate`);
   * by default `Wait for it to finish (or pass --lock-timeout SECONDS to wait).`
   */
  waitAdvice?: string | undefined;
  /** Added to the unlock command a refusal names, for a lock of another backend than `--state` names (`--state moved/state.json`). */
  unlockOptions?: string | undefined;
}

export const DEFAULT_WAIT_ADVICE = 'Wait for it to finish (or pass --lock-timeout SECONDS to wait).';

/** The unlock command a refusal names, as an operator types it. */
export function unlockCommand(lockId: string, options: Pick<AcquireOptions, 'unlockOptions'>): string {
  return `\`voxform state unlock --force ${lockId}${options.unlockOptions ? ` ${options.unlockOptions}` : ''}\``;
}

/**
 * Waits `ms` before a lock is tried again; an abort of `signal` ends the wait with the `interrupted`
 * error instead, at once, so the caller's own clean-up runs (the file lock's staging folder).
 */
export async function waitToRetryLock(ms: number, signal: AbortSignal | undefined): Promise<void> {
  const interrupted = () => new VoxformError('interrupted', 'Interrupted while waiting for the state lock; nothing was changed.');
  if (signal?.aborted) throw interrupted();
  try {
    await delay(ms, undefined, signal ? { signal } : undefined);
  } catch (error) {
    if (signal?.aborted) throw interrupted();
    throw error;
  }
}

/** One workspace in `voxform state list`. */
export interface WorkspaceSummary {
  key: string;
  serial: number;
  lastApply: LastApply | undefined;
  lock: LockHolder | undefined;
}

export interface StateBackend {
  readonly kind: 'file' | 'postgres';
  /** Where the state is, as it may be shown: a path, or the database URL without its password. */
  readonly display: string;
  /** The deploy ledger kept beside the state. */
  readonly history: HistoryStore;
  readWorkspace(key: string): Promise<StoredWorkspace>;
  /**
   * Stores the workspace if its serial is still `expectedSerial` and resolves to the new serial; a
   * writer that read an older serial gets a `state_conflict` error and nothing is written.
   */
  writeWorkspace(key: string, workspace: WorkspaceState, expectedSerial: number): Promise<WriteResult>;
  /** Takes the apply lock of a workspace, waiting up to `timeoutSeconds`; `state_locked` names the holder. */
  acquireLock(key: string, options: AcquireOptions): Promise<HeldLock>;
  /** The current holder of a workspace's lock, if anyone holds it. */
  readLock(key: string): Promise<LockHolder | undefined>;
  /** Opens a lock whose holder no longer runs or hangs, by its id; resolves to the holder it removed. */
  forceUnlock(lockId: string): Promise<{ holder: LockHolder; note: string }>;
  listWorkspaces(): Promise<WorkspaceSummary[]>;
  /** Every history record of every workspace, oldest first (for `voxform state migrate`). */
  exportHistory(): Promise<HistoryRecord[]>;
  /** Stores records as they are, ids kept; a record whose id is already stored is left alone. */
  importHistory(records: readonly HistoryRecord[]): Promise<void>;
  close(): Promise<void>;
}

/**
 * `ana@ci-runner-7 (pid 4242, "voxform apply", since …, lock 3f9a…)`: how errors, `status` and
 * `state list` name a holder; `an unknown run (its holder file … is not one voxform wrote, lock 3f9a…)`
 * for one voxform cannot name.
 */
export function describeHolder(holder: LockHolder): string {
  if (holder.unreadable !== undefined) return controlsAsQuestionMarks(`an unknown run (${holder.unreadable}${holder.lockId ? `, lock ${holder.lockId}` : ''})`);
  const job = holder.ciJobUrl ? `, job ${holder.ciJobUrl}` : '';
  // Read from a holder file or row any run could have written.
  return controlsAsQuestionMarks(`${holder.user}@${holder.host} (pid ${holder.pid}, "${holder.command}", since ${holder.since}${job}, lock ${holder.lockId})`);
}

/** A compare-and-set write that found another serial than the one its writer read. */
export function conflict(where: string, expected: number, found: number): VoxformError {
  return new VoxformError('state_conflict', `The state in ${where} changed under this run (it read serial ${expected}; serial ${found} is stored now); nothing was written.`, {
    hint: 'Another run wrote the state without holding the lock. Run `voxform plan` again to see where things stand, then apply.',
  });
}

export function noSuchLock(lockId: string, where: string): VoxformError {
  return new VoxformError('lock_not_found', `No lock with id ${lockId} is held in ${where}.`, {
    hint: 'The holder may have finished; `voxform state list` shows the locks held now and their ids.',
  });
}
