import { FileStateBackend } from '../../src/state/file-backend.js';
import { VoxformError } from '../../src/errors.js';
import type { PersistClock } from '../../src/state/state-file.js';

/**
 * A clock for `StateStore` that moves only when told (`advance`): a paced write waits until the
 * test moves time past it, so a test that must not wait on the interval fails by its time-out.
 */
export class ManualClock implements PersistClock {
  private at = 0;
  private readonly timers: Array<{ due: number; run: () => void; cancelled: boolean }> = [];

  now(): number {
    return this.at;
  }

  schedule(run: () => void, ms: number): () => void {
    const timer = { due: this.at + ms, run, cancelled: false };
    this.timers.push(timer);
    return () => void (timer.cancelled = true);
  }

  /** Timers set and not yet run or cancelled. */
  get waiting(): number {
    return this.timers.filter((timer) => !timer.cancelled).length;
  }

  advance(ms: number): void {
    this.at += ms;
    for (const timer of this.timers.splice(0)) {
      if (timer.cancelled) continue;
      if (timer.due <= this.at) timer.run();
      else this.timers.push(timer);
    }
  }
}

/** A file backend that counts its writes. */
export class CountingWrites extends FileStateBackend {
  writes = 0;

  override async writeWorkspace(...args: Parameters<FileStateBackend['writeWorkspace']>) {
    this.writes++;
    return super.writeWorkspace(...args);
  }
}

/**
 * A file backend that refuses every write after the first `landing` as another run's would be
 * refused (`state_conflict`); `refused` resolves at the first refusal.
 */
export class RefusingWrites extends FileStateBackend {
  readonly refused: Promise<void>;
  private onRefused: () => void = () => undefined;
  private writes = 0;

  constructor(file: string, private readonly landing = 0) {
    super(file);
    this.refused = new Promise((resolve) => (this.onRefused = resolve));
  }

  override async writeWorkspace(...args: Parameters<FileStateBackend['writeWorkspace']>) {
    if (++this.writes <= this.landing) return super.writeWorkspace(...args);
    this.onRefused();
    throw new VoxformError('state_conflict', `The state in ${this.display} changed under this run; nothing was written.`, { hint: 'Plan again.' });
  }
}
