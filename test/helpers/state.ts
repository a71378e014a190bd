import { FileStateBackend } from '../../src/state/file-backend.js';
import { VoxformError } from '../../src/errors.js';

/**
 * A file backend whose every write reports having held the event loop for a minute, so a paced
 * `StateStore` would wait nine before the next: a test that must not wait fails by its time-out.
 */
export class SlowToSerialize extends FileStateBackend {
  override async writeWorkspace(...args: Parameters<FileStateBackend['writeWorkspace']>) {
    return { ...(await super.writeWorkspace(...args)), heldMs: 60_000 };
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
    throw new VoxformError('state_conflict', `The state in ${this.display} changed under this run; nothing was written.`);
  }
}
