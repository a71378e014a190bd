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
 * Share of the time the state may hold the event loop serializing and encoding itself (see `write`).
 * Serializing blocks every request in flight: a 5,000-agent state is 5 MB of JSON, 50–100 ms of
 * `JSON.stringify`, and written back to back it stalled apply's requests half the time.
 */
const SERIALIZE_SHARE = 0.1;

/**
 * Keeps the state of one workspace and writes it through the state backend after every change.
 * Writes are serialized and coalesced: while one write is in flight, further updates wait for the
 * next write, which carries all of them, so 500 parallel successes cost a handful of writes, and
 * every `save()` resolves only once its update is stored (atomically: a crash leaves the old or the
 * new state, never a torn one). Each write is a compare-and-set on the serial this store last read
 * or wrote, so a writer that did not hold the lock cannot silently overwrite another's work. The
 * next write starts once serializing has taken at most `SERIALIZE_SHARE` of the time since the
 * last one (at once for a small state; within a second for a 5,000-agent one), and at once when
 * the last request has been answered (`hurry`).
 */
export class StateStore {
  private writing: Promise<void> = Promise.resolve();
  private busy = false;
  /** The next write, while it has not taken its snapshot: updates made until then ride along. */
  private queued: Promise<void> | undefined;
  /** `performance.now()` before which the next write does not start. */
  private nextWriteAt = 0;
  /** Whether writes are spaced out (see `SERIALIZE_SHARE`); `hurry` ends it. */
  private paced = true;
  /** Ends the pause a queued write is waiting out. */
  private wake: (() => void) | undefined;

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
  ) {}

  /** Reads the workspace from `backend`. */
  static async open(backend: StateBackend, workspaceKey: string, fingerprintKey: string): Promise<StateStore> {
    const stored = await backend.readWorkspace(workspaceKey);
    return new StateStore(backend, workspaceKey, stored.workspace, stored.serial, fingerprintKey);
  }

  /** Applies `change` to the workspace in memory and resolves once it is stored. */
  async update(change: (workspace: WorkspaceState) => void): Promise<void> {
    change(this.workspace);
    await this.save();
  }

  /**
   * Records how an apply ended, in one write made at once: `voxform status` shows the outcome; the
   * command is the operator's, as typed; counts only, never a value. With `environmentVariables`,
   * also the names of the variables the apply's manifests read (see
   * `WorkspaceState.environmentVariables`).
   */
  recordApplyEnd(lastApply: Omit<LastApply, 'at' | 'by'>, environmentVariables?: readonly string[]): Promise<void> {
    if (environmentVariables) this.workspace.environmentVariables = [...new Set(environmentVariables)].sort();
    this.workspace.lastApply = { at: new Date().toISOString(), by: runBy(), ...lastApply };
    this.hurry();
    return this.save();
  }

  /**
   * From now on writes follow one another without pause, and a write waiting out its pause starts
   * at once: the pacing protects requests in flight, and there are none any more.
   */
  hurry(): void {
    this.paced = false;
    this.nextWriteAt = 0;
    this.wake?.();
  }

  save(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.busy && performance.now() >= this.nextWriteAt) return this.startWrite();
    // A write in flight carries an older snapshot (or the last one was too recent): queue the next.
    const next = async () => {
      const wait = this.nextWriteAt - performance.now();
      if (wait > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          this.wake = () => (clearTimeout(timer), resolve());
        });
        this.wake = undefined;
      }
      return this.startWrite();
    };
    this.queued = this.writing.then(next, next);
    return this.queued;
  }

  /** From here on, updates go into the write after this one. */
  private startWrite(): Promise<void> {
    this.queued = undefined;
    this.busy = true;
    this.writing = this.write().finally(() => (this.busy = false));
    return this.writing;
  }

  private async write(): Promise<void> {
    const { serial, heldMs, pauseMs = 0 } = await this.backend.writeWorkspace(this.workspaceKey, this.workspace, this.serial);
    this.serial = serial;
    if (this.paced) this.nextWriteAt = performance.now() + heldMs * (1 / SERIALIZE_SHARE - 1) + pauseMs;
  }
}
