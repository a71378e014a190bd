import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { runBy } from '../util/run-identity.js';
import { VoxformError } from '../errors.js';
import type { StateBackend } from './backend.js';
import { checkStateFile } from './check-state.js';
import type { LastApply, StateFile, WorkspaceState } from './types.js';

/**
 * Reads the state file; a missing file is an empty state, a damaged one or one of another shape a
 * clear error (src/state/check-state.ts). `display` names the file in errors.
 */
export async function readStateFile(file: string, display: string = file): Promise<StateFile> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { version: 1, serial: 0, workspaces: {} };
    if (code === 'EISDIR') {
      throw new VoxformError('state_unreadable', `The state file ${display} is a folder, not a file.`, {
        hint: `Name the state file itself with --state (or VOXFORM_STATE), such as ${path.join(display, 'state.json')}.`,
      });
    }
    throw new VoxformError('state_unreadable', `Cannot read the state file ${display}: ${(error as Error).message}.`, {
      hint: 'Check its permissions, or point --state (or VOXFORM_STATE) at another file.',
    });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new VoxformError('state_invalid', `The state file ${display} is not valid JSON.`, {
      hint: 'Restore it from version control or your CI cache; deleting it makes voxform treat campaigns, knowledge files and credentials as never applied.',
    });
  }
  return checkStateFile(parsed, display);
}

/**
 * The longest the state on disk lags behind an apply while requests are in flight. Writing the
 * whole state after every answer would spend an apply's time on the disk; a crash (or kill -9)
 * loses at most this much of the record, and the next plan finds those changes again on the
 * service and converges.
 */
export const PERSIST_INTERVAL_MS = 5_000;

/** What the persister asks of time: injected by tests, so no test waits on the wall clock. */
export interface PersistClock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Runs `run` after `ms`; the returned function cancels it. */
  schedule(run: () => void, ms: number): () => void;
}

export const SYSTEM_CLOCK: PersistClock = {
  now: () => performance.now(),
  schedule: (run, ms) => {
    const timer = setTimeout(run, ms);
    return () => clearTimeout(timer);
  },
};

/** Updates made since the last write began, and the callers waiting for them to be stored. */
interface Batch {
  stored: Promise<void>;
  resolve: () => void;
  reject: (error: unknown) => void;
}

function newBatch(): Batch {
  let resolve: () => void = () => undefined;
  let reject: (error: unknown) => void = () => undefined;
  const stored = new Promise<void>((res, rej) => ((resolve = res), (reject = rej)));
  // A batch nobody waits for must not end the process as an unhandled rejection.
  stored.catch(() => undefined);
  return { stored, resolve, reject };
}

/**
 * Keeps the state of one workspace in memory and persists it through the state backend, as
 * Terraform's state hook does: at most one write per `PERSIST_INTERVAL_MS` while the apply runs,
 * and at once when it ends or is interrupted (`flush`). Updates made while a write is in flight
 * or waiting ride along with the next one; every `update` resolves once a write holding it is
 * stored (atomically: a crash leaves the old or the new state, never a torn one). Each write is a
 * compare-and-set on the serial this store last read or wrote, so a writer that did not hold the
 * lock cannot silently overwrite another's work.
 */
export class StateStore {
  /** Updates not yet handed to a write. */
  private pending: Batch | undefined;
  private writing = false;
  /** When the last write began (`clock.now()`). */
  private lastWriteAt = Number.NEGATIVE_INFINITY;
  /** Cancels the timer of the next paced write, while one is set. */
  private cancelTimer: (() => void) | undefined;
  /** Once flushed, every update is written without waiting for the interval. */
  private flushed = false;

  /**
   * `fingerprintKey` is the key of the hashes of applied values (`hashApplied`): derived from the
   * API key, kept in memory only. `serial` is the stored serial `workspace` was read at.
   */
  constructor(
    readonly backend: StateBackend,
    readonly workspaceKey: string,
    readonly workspace: WorkspaceState,
    private serial: number,
    readonly fingerprintKey: string,
    private readonly clock: PersistClock = SYSTEM_CLOCK,
  ) {}

  /** Reads the workspace from `backend`. */
  static async open(backend: StateBackend, workspaceKey: string, fingerprintKey: string, clock?: PersistClock): Promise<StateStore> {
    const stored = await backend.readWorkspace(workspaceKey);
    return new StateStore(backend, workspaceKey, stored.workspace, stored.serial, fingerprintKey, clock);
  }

  /** Applies `change` to the workspace in memory and resolves once a write holding it is stored. */
  async update(change: (workspace: WorkspaceState) => void): Promise<void> {
    change(this.workspace);
    await this.save();
  }

  /**
   * Records how an apply ended, written at once: `voxform status` shows the outcome; the command is
   * the operator's, as typed; counts only, never a value. With `environmentVariables`, also the
   * names of the variables the apply's manifests read (see `WorkspaceState.environmentVariables`).
   */
  recordApplyEnd(lastApply: Omit<LastApply, 'at' | 'by'>, environmentVariables?: readonly string[]): Promise<void> {
    if (environmentVariables) this.workspace.environmentVariables = [...new Set(environmentVariables)].sort();
    this.workspace.lastApply = { at: new Date().toISOString(), by: runBy(), ...lastApply };
    this.flush();
    return this.save();
  }

  /**
   * Writes what is pending without waiting for the interval, and every later update as it comes:
   * the apply has no request left in flight, or was interrupted.
   */
  flush(): void {
    this.flushed = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.schedule();
  }

  /** Resolves once the workspace as it is now is stored. */
  save(): Promise<void> {
    this.pending ??= newBatch();
    const { stored } = this.pending;
    this.schedule();
    return stored;
  }

  /** Starts the next write now, or sets a timer for when the interval allows it. */
  private schedule(): void {
    if (!this.pending || this.writing || this.cancelTimer) return;
    const wait = this.flushed ? 0 : this.lastWriteAt + PERSIST_INTERVAL_MS - this.clock.now();
    if (wait <= 0) return void this.write();
    this.cancelTimer = this.clock.schedule(() => {
      this.cancelTimer = undefined;
      void this.write();
    }, wait);
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    if (!batch || this.writing) return;
    this.pending = undefined;
    this.writing = true;
    this.lastWriteAt = this.clock.now();
    try {
      ({ serial: this.serial } = await this.backend.writeWorkspace(this.workspaceKey, this.workspace, this.serial));
      batch.resolve();
    } catch (error) {
      batch.reject(error);
    } finally {
      this.writing = false;
      this.schedule();
    }
  }
}
