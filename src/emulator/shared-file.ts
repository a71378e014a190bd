/**
 * A data file that several processes use at once (`--local`: each command's embedded emulator on
 * `.voxform/local.json`), never writing a stale copy over another process's changes. Requests run
 * in batches, one at a time: a batch that may change the account holds a cross-process lock, reloads
 * the file if another process wrote it, runs, and writes once; a batch of reads only reloads.
 * "Changed" is the file's identity on disk (inode, size, times): every write renames a new file in.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { stat } from 'node:fs/promises';
import { FileWriteError } from '../util/atomic-write.js';
import { HttpError } from './http.js';

/** How long a process waits for another one's batch before answering 503 (about a minute). */
const LOCK_RETRIES = { retries: 600, minTimeout: 20, maxTimeout: 100, factor: 1.2 };
/** A lock not refreshed for this long belongs to a dead process and is taken over. */
const LOCK_STALE_MS = 10_000;

/** What the gate needs from the store. */
interface SharedFileHost {
  /** Replaces the in-memory account with the file's content; false when the file does not exist. */
  reload(): Promise<boolean>;
  /** Whether the account changed since the last write. */
  dirty(): boolean;
  write(): Promise<void>;
}

interface Task {
  write: boolean;
  fn: () => unknown;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * The batch the caller runs in, and whose file it is. One storage for every data file: on Node 20
 * each storage ever used stays in the list that every promise and async resource of the process
 * then copies a context from, so one per data file would make every later promise of a process
 * that opens many (a program embedding emulators, a test run) slower and larger.
 */
const currentBatch = new AsyncLocalStorage<{ file: SharedDataFile; locked: boolean }>();

async function identityOf(file: string): Promise<string> {
  try {
    const s = await stat(file, { bigint: true });
    return `${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
}

export class SharedDataFile {
  private readonly queue: Task[] = [];
  private draining = false;
  /** The file's identity when this process last read or wrote it; undefined before the first batch. */
  private known: string | undefined;
  /** Whether the file existed at the last check. */
  private present = false;

  constructor(
    readonly file: string,
    private readonly host: SharedFileHost,
    private readonly onLockLost: (error: Error) => void,
  ) {}

  /** Whether the caller runs inside a batch (its changes will be written by the batch). */
  get inBatch(): boolean {
    return currentBatch.getStore()?.file === this;
  }

  /** Whether the file existed when the current batch started. */
  get exists(): boolean {
    return this.present;
  }

  /**
   * Runs `fn` in the next batch (when `write`, under the lock, resolving once its changes are on
   * disk); from inside a batch, at once as part of it.
   */
  run<T>(write: boolean, fn: () => T | Promise<T>): Promise<T> {
    const current = currentBatch.getStore();
    if (current?.file === this) {
      if (write && !current.locked) return Promise.reject(new Error('a change was attempted inside a read-only batch of the shared data file'));
      return Promise.resolve().then(fn);
    }
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, fn, resolve: resolve as (value: unknown) => void, reject });
      if (!this.draining) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) await this.runBatch(this.queue.splice(0, this.queue.length));
    } finally {
      this.draining = false;
    }
  }

  private async runBatch(batch: Task[]): Promise<void> {
    const locked = batch.some((task) => task.write);
    let release: (() => Promise<void>) | undefined;
    try {
      if (locked) release = await this.lock();
      await this.refresh();
    } catch (error) {
      await release?.().catch(() => undefined);
      for (const task of batch) task.reject(error);
      return;
    }
    const outcomes: Outcome[] = [];
    for (const task of batch) {
      try {
        outcomes.push({ ok: true, value: await currentBatch.run({ file: this, locked }, task.fn) });
      } catch (error) {
        outcomes.push({ ok: false, error });
      }
    }
    let writeError: unknown;
    if (locked && this.host.dirty()) {
      try {
        await this.host.write();
        this.known = await identityOf(this.file);
        this.present = true;
      } catch (error) {
        writeError = error;
      }
    }
    await release?.().catch(() => undefined);
    batch.forEach((task, i) => {
      const outcome = outcomes[i] as Outcome;
      if (!outcome.ok) task.reject(outcome.error);
      else if (task.write && writeError !== undefined) task.reject(writeError);
      else task.resolve(outcome.value);
    });
  }

  /** Reloads the account when another process wrote the file since this one last saw it. */
  private async refresh(): Promise<void> {
    const identity = await identityOf(this.file);
    if (identity === this.known) return;
    this.present = identity !== 'missing';
    // A file deleted under a running process: keep the account in memory; the next write recreates it.
    if (this.present) await this.host.reload();
    this.known = identity;
  }

  private async lock(): Promise<() => Promise<void>> {
    // Loaded at the first lock, not with the module: proper-lockfile installs SIGINT, SIGTERM and
    // SIGHUP handlers when loaded, which a program importing voxform, and a command that never
    // writes the emulator's data file, should not get.
    const { default: lockfile } = await import('proper-lockfile');
    const lock = (retries: typeof LOCK_RETRIES | 0) => lockfile.lock(this.file, { realpath: false, stale: LOCK_STALE_MS, retries, onCompromised: this.onLockLost });
    try {
      // Waited for only while another process holds it: a folder the lock cannot be made in (read-only, full) is said at once.
      return await lock(0).catch((error: unknown) => (isHeldElsewhere(error) ? lock(LOCK_RETRIES) : Promise.reject(error)));
    } catch (error) {
      if (!isHeldElsewhere(error)) throw new FileWriteError(this.file, error);
      throw new HttpError(503, `The emulator data file ${this.file} stayed locked by another voxform process: ${(error as Error).message}`, { 'retry-after': '1' });
    }
  }
}

/** Whether proper-lockfile failed because another process holds the lock (not because it could not be made). */
function isHeldElsewhere(error: unknown): boolean {
  return (error as NodeJS.ErrnoException | undefined)?.code === 'ELOCKED';
}
