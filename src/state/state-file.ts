import { stat } from 'node:fs/promises';
import path from 'node:path';
import { runBy } from '../util/run-identity.js';
import { VoxformError } from '../errors.js';
import { STATE_OPTION, type StateBackend } from './backend.js';
import { checkStateFile } from './check-state.js';
import { readCheckedWorkspace, type MissingState } from './missing-state.js';
import { STATE_FORMAT_VERSION } from './format-version.js';
import { keptJsonRefusal, type KeptJsonLimits } from '../project-files/kept-files.js';
import { WORK_TREE, type KeptFileSource } from '../project-files/kept-source.js';
import { MAX_KEPT_FILE_BYTES, MAX_KEPT_JSON_DEPTH, MAX_STATE_JSON_VALUES } from '../project-files/limits.js';
import type { LastApply, StateFile, WorkspaceState } from './types.js';

/** What a state may make voxform build: the state file's and a database row's budget. */
export const STATE_JSON_LIMITS: KeptJsonLimits = { maxBytes: MAX_KEPT_FILE_BYTES, maxValues: MAX_STATE_JSON_VALUES, maxDepth: MAX_KEPT_JSON_DEPTH };

/**
 * The text a state (the file, or a workspace's row) is stored as: what voxform writes, voxform reads
 * back, so a state its readers would refuse is not written (`state_too_large`); the one before it stays.
 */
export function storedStateText(value: unknown, where: string, pretty: boolean): string {
  const text = pretty ? `${JSON.stringify(value, null, 2)}\n` : JSON.stringify(value);
  const problem = keptJsonRefusal(Buffer.from(text), STATE_JSON_LIMITS);
  if (problem === undefined) return text;
  throw new VoxformError('state_too_large', `${where} would be written as JSON that ${problem} for a state, which voxform could not read back; it was not written.`, {
    hint: 'Keep fewer resources in one state: give each environment a state of its own (--state), or split the manifests into projects.',
  });
}


/** What deleting a state file voxform cannot read does: said the same by every hint that offers it (docs/state.md). */
const DELETING_IT =
  'deleting it leaves voxform without a record of what it applied: plan counts campaigns, knowledge files and credentials as never applied, and apply, where the history beside the file records applies, refuses until given --allow-missing-state (then uploads every knowledge file again and sets every credential and campaign again)';

/**
 * Reads the state file under the guards of kept files: a committed `.voxform/state.json` is the pull
 * request's. A missing file is an empty state; a refused, damaged or foreign one a clear error.
 * `source`: the work tree's file, or a git revision's (src/state/state-at-revision.ts).
 */
export async function readStateFile(file: string, display: string = file, option: string = STATE_OPTION, source: KeptFileSource = WORK_TREE): Promise<StateFile> {
  const read = await source.readJson(file, STATE_JSON_LIMITS);
  if (!read.found) return { version: STATE_FORMAT_VERSION, serial: 0, workspaces: {} };
  if (read.ok) return checkStateFile(read.value, display);
  if (read.reason === 'not_json') {
    throw new VoxformError('state_invalid', `The state file ${display} is not valid JSON.`, {
      hint: `Restore it from version control or your CI cache; ${DELETING_IT}.`,
    });
  }
  // A folder named as the state is a mistaken --state, not a trap.
  if (source === WORK_TREE && (await stat(file).then((info) => info.isDirectory(), () => false))) {
    throw new VoxformError('state_unreadable', `The state file ${display} is a folder, not a file.`, {
      hint: `Name the state file itself with ${option}, such as ${path.join(display, 'state.json')}.`,
    });
  }
  throw new VoxformError('state_unreadable', `The state file ${display} ${read.problem}. It was not read.`, {
    hint:
      read.reason === 'over_budget'
        ? `A state voxform writes stays far below it: restore the file from version control or your CI cache, or point ${option} elsewhere; ${DELETING_IT}.`
        : `The state file must be a regular file in its folder: remove it (or restore it from the CI cache), or point ${option} elsewhere.`,
  });
}

/**
 * The longest the state on disk lags behind an apply while requests are in flight: a crash loses at
 * most this much of the record, and the next plan finds those changes on the service again.
 */
export const PERSIST_INTERVAL_MS = 5_000;

/** What the persister asks of time: injected by tests. */
export interface PersistClock {
  /** Milliseconds on a monotonic clock. */
  now(): number;
  /** Runs `run` after `ms`; the returned function cancels it. */
  schedule(run: () => void, ms: number): () => void;
}

const SYSTEM_CLOCK: PersistClock = {
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
 * Keeps one workspace's state in memory and persists it, as Terraform's state hook does: at most one
 * write per `PERSIST_INTERVAL_MS`, and at once on `flush`; updates made meanwhile ride along with the
 * next write. Each write is a compare-and-set on the serial last read or written, so a writer without
 * the lock cannot silently overwrite another's work.
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
  /** The pending updates are written at once, and their write does not count for the interval (`updateNow`). */
  private urgent = false;

  /** `fingerprintKey` keys the hashes of applied values (memory only); `serial` is the one `workspace` was read at. */
  constructor(
    readonly backend: StateBackend,
    readonly workspaceKey: string,
    readonly workspace: WorkspaceState,
    private serial: number,
    readonly fingerprintKey: string,
    private readonly clock: PersistClock = SYSTEM_CLOCK,
    /** Set when the state lost the workspace though its ledger records applies of it (missing-state.ts). */
    readonly missingState?: MissingState,
  ) {}

  /** Reads the workspace from `backend`, noting when the state lost it. */
  static async open(backend: StateBackend, workspaceKey: string, fingerprintKey: string, clock?: PersistClock): Promise<StateStore> {
    const stored = await readCheckedWorkspace(backend, workspaceKey);
    return new StateStore(backend, workspaceKey, stored.workspace, stored.serial, fingerprintKey, clock, stored.missingState);
  }

  /** Applies `change` to the workspace in memory and resolves once a write holding it is stored. */
  async update(change: (workspace: WorkspaceState) => void): Promise<void> {
    change(this.workspace);
    await this.save();
  }

  /**
   * Like `update`, but written at once, whatever the interval: for what must be stored before a
   * request is sent, or before an answer the service cannot give again counts as done. Updates made
   * while a write is on its way share the next one. The write leaves the interval as it was, so the
   * first success after it is still written at once.
   */
  async updateNow(change: (workspace: WorkspaceState) => void): Promise<void> {
    change(this.workspace);
    this.urgent = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    await this.save();
  }

  /** Records how an apply ended (counts, never a value), written at once; with the names of the variables read. */
  recordApplyEnd(lastApply: Omit<LastApply, 'at' | 'by'>, environmentVariables?: readonly string[]): Promise<void> {
    if (environmentVariables) this.workspace.environmentVariables = [...new Set(environmentVariables)].sort();
    this.workspace.lastApply = { at: new Date().toISOString(), by: runBy(), ...lastApply };
    this.flush();
    return this.save();
  }

  /** Writes what is pending now, and every later update as it comes (nothing left in flight, or interrupted). */
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
    const wait = this.flushed || this.urgent ? 0 : this.lastWriteAt + PERSIST_INTERVAL_MS - this.clock.now();
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
    if (!this.urgent) this.lastWriteAt = this.clock.now();
    this.urgent = false;
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
