/**
 * The file backend: every workspace in one state file written atomically, one lock folder beside it,
 * and the ledger in `history/`. The compare-and-set serial is the file's: any write moves it.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { HISTORY_RECORD_ID } from '../history/check-record.js';
import { FileHistoryStore } from '../history/file-store.js';
import type { HistoryRecord, TestRunRecord } from '../history/types.js';
import { makeKeptFolder, writeKeptFile } from '../project-files/kept-files.js';
import { conflict, DEFAULT_RECHECK_COMMAND, describeLockLoss, forcedOpenLoss, noSuchLock, STATE_OPTION, type AcquireOptions, type ForcedOpen, type HeldLock, type LockHolder, type LockLoss, type StateBackend, type StoredWorkspace, type WorkspaceSummary, type WriteResult } from './backend.js';
import { acquireStateLock, forceUnlockState, readLastForcedOpen, readStateLockWithId, type HeldStateLock, type StateLock } from './lock.js';
import type { RunIdentity } from '../util/run-identity.js';
import { isFileSystemError } from '../util/atomic-write.js';
import { stateWriteFailed } from './write-failure.js';
import { readStateFile, storedStateText } from './state-file.js';
import { emptyWorkspace, type StateFile, type WorkspaceState } from './types.js';

/** How often a held lock checks that nobody forced it open. */
const LOCK_CHECK_MS = 2000;

/** A lock this backend holds, what tells the apply it is gone, and the command the hints of its loss and of a conflicting write name. */
interface HeldEntry {
  lock: StateLock;
  lost: AbortController;
  recheckCommand: string;
}

export class FileStateBackend implements StateBackend {
  readonly kind = 'file';
  readonly history: FileHistoryStore;
  /** The file as last read, and the stat that tells whether it changed since. */
  private cached: { state: StateFile; stamp: string } | undefined;
  private readonly held = new Set<HeldEntry>();

  /** `chosenWith`: what named the file, for hints (`--to` for a migration's target). */
  constructor(
    readonly file: string,
    readonly display: string = file,
    readonly chosenWith: string = STATE_OPTION,
  ) {
    this.history = new FileHistoryStore(path.join(path.dirname(file), 'history'));
  }

  get pastable(): string {
    return this.display;
  }

  async readWorkspace(key: string): Promise<StoredWorkspace> {
    const state = await this.load();
    const stored = state.workspaces[key];
    return { workspace: stored ?? emptyWorkspace(), serial: state.serial, exists: stored !== undefined };
  }

  async writeWorkspace(key: string, workspace: WorkspaceState, expectedSerial: number): Promise<WriteResult> {
    await this.assertLocksHeld();
    const state = await this.load();
    if (state.serial !== expectedSerial) throw conflict(this.file, expectedSerial, state.serial, this.recheckCommand());
    const next: StateFile = { ...state, serial: state.serial + 1, workspaces: { ...state.workspaces, [key]: workspace } };
    await this.store(next, 'the state file stays as it was before this write', true);
    return { serial: next.serial };
  }

  async removeWorkspace(key: string): Promise<boolean> {
    await this.assertLocksHeld();
    const state = await this.load();
    if (!Object.hasOwn(state.workspaces, key)) return false;
    const workspaces = { ...state.workspaces };
    delete workspaces[key];
    const next: StateFile = { ...state, serial: state.serial + 1, workspaces };
    await this.store(next, 'nothing was removed');
    return true;
  }

  /** The file's one lock, whatever the workspace: it keeps out every other apply of the file, those of `sharedResourcesOf` among them. */
  async acquireLock(_key: string, options: AcquireOptions): Promise<HeldLock> {
    const lock = await acquireStateLock(this.file, options, this.chosenWith);
    const lost = new AbortController();
    const entry: HeldEntry = { lock, lost, recheckCommand: options.recheckCommand ?? DEFAULT_RECHECK_COMMAND };
    this.held.add(entry);
    // Someone may force the lock open (`voxform state unlock --force`): stop like on the database.
    const watch = setInterval(() => void this.checkHeld(entry), LOCK_CHECK_MS);
    watch.unref();
    return {
      holder: holderOf(lock),
      lost: lost.signal,
      lostReason: () => (lost.signal.aborted ? (lost.signal.reason as LockLoss) : undefined),
      release: async () => {
        clearInterval(watch);
        this.held.delete(entry);
        await lock.release();
      },
    };
  }

  async readLock(): Promise<LockHolder | undefined> {
    const found = await readStateLockWithId(this.file);
    return found ? holderOf(found) : undefined;
  }

  async forceUnlock(lockId: string, by: RunIdentity): Promise<{ holder: LockHolder; note: string }> {
    const opened = await forceUnlockState(this.file, lockId, by, this.chosenWith);
    if (!opened) throw noSuchLock(lockId, this.display);
    return { holder: holderOf(opened), note: 'If that run still runs, it stops before its next state write.' };
  }

  /** One lock guards the whole file: its last forced open is every workspace's. */
  readLastForcedOpen(): Promise<ForcedOpen | undefined> {
    return readLastForcedOpen(this.file);
  }

  async listWorkspaces(): Promise<WorkspaceSummary[]> {
    const state = await this.load();
    const lock = await this.readLock();
    const lastForcedOpen = await this.readLastForcedOpen();
    return Object.entries(state.workspaces).map(([key, workspace]) => ({ key, serial: state.serial, lastApply: workspace.lastApply, lock, lastForcedOpen }));
  }

  identity(): Promise<string> {
    return Promise.resolve(this.file);
  }

  async exportHistory(): Promise<HistoryRecord[]> {
    // A file that holds no record (damaged, foreign, refused by the guards) is not copied.
    return this.history.all();
  }

  importHistory(records: readonly HistoryRecord[]): Promise<void> {
    return importRecords(this.history, this.history.directory, records);
  }

  exportTestRuns(): Promise<TestRunRecord[]> {
    return this.history.allTestRuns();
  }

  importTestRuns(runs: readonly TestRunRecord[]): Promise<void> {
    return importRecords(this.history, this.history.testRunsDirectory, runs);
  }

  async close(): Promise<void> {
    for (const entry of [...this.held]) await entry.lock.release();
    this.held.clear();
  }

  /** The file, read again only when it changed on disk since this backend last saw it. */
  private async load(): Promise<StateFile> {
    const stamp = await this.stamp();
    if (this.cached && stamp === this.cached.stamp) return this.cached.state;
    const state = await readStateFile(this.file, this.display, this.chosenWith);
    this.cached = stamp ? { state, stamp } : undefined;
    return state;
  }

  /**
   * Writes `next` as the state file; `unchanged` says what a refused write left. The next read is of the
   * file: `next` holds the caller's objects, which the caller may change after, and a migration's check
   * reads back what the file holds. A write the file system refuses is the user's to fix (a full disk, a
   * read-only file), not a bug.
   */
  private async store(next: StateFile, unchanged: string, makeFolder = false): Promise<void> {
    const text = storedStateText(next, `The state file ${this.display}`, true);
    try {
      if (makeFolder) await makeKeptFolder(path.dirname(this.file));
      // A record of what the run did: saved though the run was stopped at once.
      await writeKeptFile(this.file, text, { evenOnStop: true });
    } catch (error) {
      if (isFileSystemError(error)) throw stateWriteFailed(error, this.display, unchanged, this.chosenWith);
      throw error;
    } finally {
      this.cached = undefined;
    }
  }

  /** Every write renames a new file into place, so its inode (with mtime and size) tells a change. */
  private async stamp(): Promise<string | undefined> {
    const info = await stat(this.file, { bigint: true }).catch(() => undefined);
    return info ? `${info.ino}:${info.mtimeNs}:${info.size}` : undefined;
  }

  private async checkHeld(entry: HeldEntry): Promise<boolean> {
    if (entry.lost.signal.aborted) return false;
    if (await entry.lock.stillHeld()) return true;
    const recorded = await readLastForcedOpen(this.file).catch(() => undefined);
    // Checked twice at once (the timer and a write): the first to get here says why.
    if (!entry.lost.signal.aborted) entry.lost.abort(forcedOpenLoss(entry.lock.lockId, 'file', recorded));
    return false;
  }

  /** The plan a hint names to see where things stand: the held lock's (the file has one lock), else the default. */
  private recheckCommand(): string {
    for (const entry of this.held) return entry.recheckCommand;
    return DEFAULT_RECHECK_COMMAND;
  }

  /** A run whose lock was forced open must not write any more (someone else may hold it now). */
  private async assertLocksHeld(): Promise<void> {
    for (const entry of this.held) {
      if (!(await this.checkHeld(entry))) {
        throw new VoxformError('state_lock_lost', `The state lock of ${this.display} is no longer held by this run: ${describeLockLoss(entry.lost.signal.reason as LockLoss)}.`, {
          hint: `Nothing more is written; run \`${entry.recheckCommand}\` to see where things stand.`,
        });
      }
    }
  }
}

/** A lock as the backends name its holder; one whose holder voxform cannot name, with the reason. */
function holderOf({ owner, lockId, unreadable, noLongerRuns }: HeldStateLock): LockHolder {
  if (!owner) return { lockId, user: 'unknown', host: 'unknown', pid: 0, command: 'unknown', since: 'unknown', unreadable: unreadable ?? 'its holder file is not one voxform wrote' };
  return { lockId, user: owner.user, host: owner.host, pid: owner.pid, command: owner.command, since: owner.since, ciJobUrl: owner.ciJobUrl, ...(noLongerRuns ? { noLongerRuns } : {}) };
}

/** Writes each record to `directory` as `ID.json`, as it is; an id already there is left alone. */
async function importRecords(store: FileHistoryStore, directory: string, records: readonly { id: string; agents: object }[]): Promise<void> {
  await makeKeptFolder(directory);
  for (const record of records) {
    if (!HISTORY_RECORD_ID.test(record.id)) throw new VoxformError('state_invalid', `A history record has an id that is not a record id: "${record.id}".`, { hint: 'Correct or delete the record the message names, or restore the state from a backup.' });
    if (await stat(path.join(directory, `${record.id}.json`)).then(() => true, () => false)) continue;
    await store.write(directory, record);
  }
}
