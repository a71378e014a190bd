/**
 * Where voxform keeps its state, its apply lock and its ledger: the operator's choice (`--state` or
 * `VOXFORM_STATE`, never a manifest), a file or PostgreSQL. Everything reading or writing state uses this.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { VoxformError } from '../errors.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import type { HistoryRecord, HistoryStore, TestRunRecord } from '../history/types.js';
import type { LastApply, WorkspaceState } from './types.js';
import { hasPasswordPlaceholder, PASSWORD_PLACEHOLDER } from './postgres/url.js';
import { describeRun, runIdentityOf, type RunIdentity } from '../util/run-identity.js';

/** The option that names the state, as hints name it where the run's own choice is not known (`voxform state migrate --to` names its own). */
export const STATE_OPTION = '--state (or VOXFORM_STATE)';

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
export interface LockHolder extends RunIdentity {
  /** Names this holding of the lock for `voxform state unlock --force LOCK_ID`. */
  lockId: string;
  /** ISO 8601: when the lock was taken. */
  since: string;
  /** Why, when the holder is a run voxform cannot name (`user`, `host`, `command`, `since` `unknown`, `pid` 0). */
  unreadable?: string | undefined;
  /** Set when the holder is known to have ended (its process is gone on this host): the next apply takes the lock over. */
  noLongerRuns?: true | undefined;
}

/** Whether `id` has the form of a lock id: hexadecimal, as both backends make them (8 random bytes). */
export function isLockId(id: string): boolean {
  return /^[0-9a-f]+$/.test(id);
}

export interface HeldLock {
  holder: LockHolder;
  /** Aborts when the lock is lost while held (the connection dropped, or it was forced open): no new write is sent. */
  lost: AbortSignal;
  /** Why `lost` fired, once it has. */
  lostReason(): LockLoss | undefined;
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
  /**
   * An apply's: the service (`serviceId`) whose shared resources the holder plans and writes (its
   * numbers, campaigns, credentials, agents named by one id). The lock then also keeps every other
   * workspace's apply of that service out until it is released, so that no two environments' applies
   * plan or write them at once (docs/state.md, The apply lock). The file backend's one lock covers
   * every workspace of its file already.
   */
  sharedResourcesOf?: string | undefined;
  /** Ends a wait for the lock (Ctrl-C) with the `interrupted` error, nothing held or left behind. */
  signal?: AbortSignal | undefined;
  /** A refusal's advice on waiting, for a command without `--lock-timeout` (default `DEFAULT_WAIT_ADVICE`). */
  waitAdvice?: string | undefined;
  /** Added to the unlock command a refusal names, for a lock of another backend than `--state` names (`--state moved/state.json`). */
  unlockOptions?: string | undefined;
  /**
   * The command that shows where things stand, which the errors of a lock lost while held and of a
   * state another run wrote meanwhile (`state_conflict`) name (default `voxform plan`): with the options that chose this run's manifests, environment and state.
   */
  recheckCommand?: string | undefined;
}

export const DEFAULT_RECHECK_COMMAND = 'voxform plan';

const DEFAULT_WAIT_ADVICE = 'Wait for it to finish (or pass --lock-timeout SECONDS to wait).';

/** A refusal's advice on waiting: how long this run waited, or how to wait. */
function waitAdviceOf(options: Pick<AcquireOptions, 'timeoutSeconds' | 'waitAdvice'>): string {
  if (options.timeoutSeconds > 0) return `This run waited ${options.timeoutSeconds} s for it to finish (--lock-timeout ${options.timeoutSeconds}); wait again, or longer with a larger --lock-timeout.`;
  return options.waitAdvice ?? DEFAULT_WAIT_ADVICE;
}

/** Said once, when a run starts waiting for a held lock: a silent wait would look hung. */
export function waitingNotice(where: string, who: string, options: Pick<AcquireOptions, 'timeoutSeconds'>): string {
  return `${where} is locked by ${who}; waiting up to ${options.timeoutSeconds} s for it to finish (--lock-timeout).`;
}

/** The unlock command a refusal names, as an operator types it. */
function unlockCommand(lockId: string, options: Pick<AcquireOptions, 'unlockOptions'>): string {
  const fillIn = options.unlockOptions !== undefined && hasPasswordPlaceholder(options.unlockOptions) ? ` (with the database password in place of ${PASSWORD_PLACEHOLDER})` : '';
  return `\`voxform state unlock --force ${lockId}${options.unlockOptions ? ` ${options.unlockOptions}` : ''}\`${fillIn}`;
}

/**
 * The refusal of a held lock, in one wording for every backend: `subject` (`The workspace …`, `The
 * state file …`) is locked by whom; wait, or open it. `opens`: how else the lock is opened, for one
 * without an id (a lock folder holding no holder file); `details`: the holder, as the backend has it;
 * `holding`: what the holder holds it for, when the subject does not say (`: its apply of workspace …`).
 */
export function lockedError(subject: string, holder: LockHolder | undefined, options: Pick<AcquireOptions, 'timeoutSeconds' | 'waitAdvice' | 'unlockOptions'>, extra: { opens?: string; details?: Record<string, unknown>; holding?: string } = {}): VoxformError {
  const who = holder ? describeHolder(holder) : 'another voxform run';
  const opens = extra.opens ?? (holder?.lockId ? `${unlockCommand(holder.lockId, options)} opens the lock` : undefined);
  const wait = waitAdviceOf(options);
  return new VoxformError('state_locked', `${subject} is locked by ${who}${extra.holding ?? ''}.`, {
    hint: opens ? `${wait} If that run hangs or no longer runs, ${opens}.` : wait,
    ...(extra.details ? { details: extra.details } : {}),
  });
}

const interruptedWaiting = () => new VoxformError('interrupted', 'Interrupted while waiting for the state lock; nothing was changed.', { hint: 'Run the command again; `voxform state unlock` frees a lock a stopped run left behind.' });

/** Waits `ms` before a lock is tried again; an abort ends the wait at once with `interrupted`, so clean-up runs. */
export function waitToRetryLock(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return untilInterrupted(delay(ms, undefined, signal ? { signal } : undefined), signal);
}

/**
 * Every wait for the lock (a holder to finish, the database to answer) ends at once on `signal`
 * with `interrupted`, nothing held; `abandon` ends the work waited for.
 */
export async function untilInterrupted<T>(work: Promise<T>, signal: AbortSignal | undefined, abandon?: () => void): Promise<T> {
  if (signal?.aborted) {
    abandon?.();
    work.catch(() => undefined);
    throw interruptedWaiting();
  }
  if (!signal) return work;
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<never>((_, reject) => {
    onAbort = () => {
      abandon?.();
      reject(interruptedWaiting());
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    return await Promise.race([work, aborted]);
  } catch (error) {
    if (signal.aborted) throw interruptedWaiting();
    throw error;
  } finally {
    signal.removeEventListener('abort', onAbort);
    work.catch(() => undefined);
  }
}

/** The last forced open of a lock (`voxform state unlock --force`), as the backend records it: which lock, who, when. */
export interface ForcedOpen {
  lockId: string;
  by: RunIdentity;
  /** ISO 8601. */
  at: string;
}

/** A forced open as read back from a file or row anyone may have written; undefined when it is not one voxform wrote. */
export function forcedOpenOf(value: unknown): ForcedOpen | undefined {
  const record = value as { lockId?: unknown; by?: unknown; at?: unknown } | null;
  if (typeof record !== 'object' || record === null || typeof record.lockId !== 'string' || typeof record.at !== 'string') return undefined;
  const by = runIdentityOf(record.by);
  return by ? { lockId: record.lockId, by, at: record.at } : undefined;
}

/**
 * Why a held lock was lost: someone ran `voxform state unlock --force` on it (`forced_open`; `by` and
 * `at` when the backend recorded who and when, absent for a lock opened by an older voxform), or the
 * database connection that held it went (`connection_lost`, PostgreSQL; `cause`: the driver's words).
 */
export type LockLoss =
  | { reason: 'forced_open'; lockId: string; backend: StateBackend['kind']; by?: RunIdentity | undefined; at?: string | undefined }
  | { reason: 'connection_lost'; cause: string | undefined };

/** The loss of the lock `lockId`, with who forced it and when when `recorded` is of that lock. */
export function forcedOpenLoss(lockId: string, backend: StateBackend['kind'], recorded: ForcedOpen | undefined): LockLoss {
  return { reason: 'forced_open', lockId, backend, ...(recorded?.lockId === lockId ? { by: recorded.by, at: recorded.at } : {}) };
}

/** A lost lock as a clause of the run's message: `the lock 3f9a… was forced open by ana@ops-1 (pid 77, "voxform state unlock --force") at …`. */
export function describeLockLoss(loss: LockLoss): string {
  if (loss.reason === 'connection_lost') return `the connection to the state database was lost${loss.cause !== undefined ? ` (${loss.cause})` : ''}; the lock went with it`;
  const lock = `the ${loss.backend === 'file' ? 'state lock' : 'lock'} ${loss.lockId}`;
  if (loss.by === undefined) return `${lock} was forced open by another operator (\`voxform state unlock --force\`)`;
  return `${lock} was forced open by ${describeRun(loss.by)}${loss.at !== undefined ? ` at ${controlsAsQuestionMarks(loss.at)}` : ''}`;
}

/** `lock 3f9a… by ana@ops-1 (pid 77, "voxform state unlock --force", job …) at …`: a forced open for `status` and `state show`. */
export function describeForcedOpen(forced: ForcedOpen): string {
  return controlsAsQuestionMarks(`lock ${forced.lockId} by ${describeRun(forced.by)} at ${forced.at}`);
}

/** One workspace in `voxform state list`. */
export interface WorkspaceSummary {
  key: string;
  serial: number;
  lastApply: LastApply | undefined;
  lock: LockHolder | undefined;
  /** The last forced open of its lock, when recorded (`readLastForcedOpen`). */
  lastForcedOpen: ForcedOpen | undefined;
}

/**
 * Where a workspace's state, its lock and its deploy ledger are kept. A caller makes one call at a
 * time on a backend, awaiting each before the next (two backends may work side by side): a database
 * backend has one connection, and its driver warns of overlapping queries on it (the next major
 * version refuses them).
 */
export interface StateBackend {
  readonly kind: 'file' | 'postgres';
  /** Where the state is, as it may be shown: a path, or the database URL without its password. */
  readonly display: string;
  /** Where the state is, as a command line to paste names it: the database URL with `PASSWORD` for its password. */
  readonly pastable: string;
  /**
   * What named the state, as hints name it: `--state`, `VOXFORM_STATE`, `--to` (a migration's
   * target), or `STATE_OPTION` when that is not known (the default file, or a caller that did not say).
   */
  readonly chosenWith: string;
  /** The deploy ledger kept beside the state. */
  readonly history: HistoryStore;
  readWorkspace(key: string): Promise<StoredWorkspace>;
  /**
   * Stores the workspace if its serial is still `expectedSerial` and resolves to the new serial; a
   * writer that read an older serial gets a `state_conflict` error and nothing is written.
   */
  writeWorkspace(key: string, workspace: WorkspaceState, expectedSerial: number): Promise<WriteResult>;
  /**
   * Forgets a workspace's state (`voxform state rm`), so that no plan finds its claims any more;
   * resolves to whether anything was stored for it. Its ledger and test runs are kept. Called holding
   * the workspace's lock: a lock lost meanwhile refuses it (`state_lock_lost`), nothing removed.
   */
  removeWorkspace(key: string): Promise<boolean>;
  /** Takes the apply lock of a workspace, waiting up to `timeoutSeconds`; `state_locked` names the holder. */
  acquireLock(key: string, options: AcquireOptions): Promise<HeldLock>;
  /** The current holder of a workspace's lock, if anyone holds it. */
  readLock(key: string): Promise<LockHolder | undefined>;
  /**
   * Opens a lock whose holder no longer runs or hangs, by its id, recording that `by` forced it open
   * (the holder that loses it names who); resolves to the holder it removed.
   */
  forceUnlock(lockId: string, by: RunIdentity): Promise<{ holder: LockHolder; note: string }>;
  /** The last forced open of a workspace's lock, if one was recorded (the file backend: of the state file's one lock). */
  readLastForcedOpen(key: string): Promise<ForcedOpen | undefined>;
  listWorkspaces(): Promise<WorkspaceSummary[]>;
  /**
   * What the state is kept in, however it was named: the file's absolute path, or the database's
   * server and database (`127.0.0.1` and `localhost` name one). Two backends of one identity are one.
   * Never holds a password.
   */
  identity(): Promise<string>;
  /** Every history record of every workspace, oldest first (for `voxform state migrate`). */
  exportHistory(): Promise<HistoryRecord[]>;
  /** Stores records as they are, ids kept; a record whose id is already stored is left alone. */
  importHistory(records: readonly HistoryRecord[]): Promise<void>;
  /** Every test run's evidence of every workspace, oldest first (for `voxform state migrate`). */
  exportTestRuns(): Promise<TestRunRecord[]>;
  /** Stores test runs as they are, ids kept; a run whose id is already stored is left alone. */
  importTestRuns(runs: readonly TestRunRecord[]): Promise<void>;
  /**
   * A database backend: brings its tables to this voxform's schema (`voxform state upgrade`); `from`
   * the version they were at (0: none yet). Absent for a file, which has no schema.
   */
  upgradeSchema?(): Promise<{ from: number; to: number }>;
  close(): Promise<void>;
}

/** `ana@ci-runner-7 (pid 4242, "voxform apply", since …, lock 3f9a…)`, or `an unknown run (why, lock 3f9a…)`. */
export function describeHolder(holder: LockHolder): string {
  const lock = holder.lockId ? `, lock ${holder.lockId}` : '';
  if (holder.unreadable !== undefined) return controlsAsQuestionMarks(`an unknown run (${holder.unreadable}${lock})`);
  const ended = holder.noLongerRuns ? ', which no longer runs: the next apply takes the lock over' : '';
  return `${describeRun(holder, lock)}${ended}`;
}

/**
 * A compare-and-set write that found another serial than the one its writer read. `recheckCommand`:
 * the plan that shows where things stand, the held lock's (`AcquireOptions.recheckCommand`: the CLI
 * gives the run's own), else `DEFAULT_RECHECK_COMMAND`.
 */
export function conflict(where: string, expected: number, found: number, recheckCommand: string): VoxformError {
  return new VoxformError('state_conflict', `The state in ${where} changed under this run (it read serial ${expected}; serial ${found} is stored now); nothing was written.`, {
    hint: `Another run wrote the state without holding the lock. Run \`${recheckCommand}\` again to see where things stand, then apply.`,
  });
}

export function noSuchLock(lockId: string, where: string): VoxformError {
  return new VoxformError('lock_not_found', `No lock with id ${lockId} is held in ${where}.`, {
    hint: 'The holder may have finished; `voxform state list` shows the locks held now and their ids.',
  });
}

/**
 * What the state is kept in, as two checkouts of one project name it alike (a saved plan made in one
 * and applied in another): a file inside `workingDir` (a real path) by its path from there, any other
 * file by its real path, a database by its server and database (`identity`).
 */
export async function statePlace(backend: Pick<StateBackend, 'identity'>, workingDir: string): Promise<string> {
  return placeOfIdentity(await backend.identity(), workingDir);
}

/** `statePlace` of a backend whose `identity` is known already (one asked while it was open). */
export async function placeOfIdentity(identity: string, workingDir: string): Promise<string> {
  if (!path.isAbsolute(identity)) return identity;
  const folder = await realpath(path.dirname(identity)).catch(() => path.dirname(identity));
  const file = path.join(folder, path.basename(identity));
  const fromHere = path.relative(workingDir, file);
  return fromHere.startsWith('..') || path.isAbsolute(fromHere) ? file : fromHere;
}
