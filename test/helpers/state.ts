import { FileStateBackend } from '../../src/state/file-backend.js';

/**
 * A file backend whose every write reports having held the event loop for a minute, so a paced
 * `StateStore` would wait nine before the next: a test that must not wait fails by its time-out.
 */
export class SlowToSerialize extends FileStateBackend {
  override async writeWorkspace(...args: Parameters<FileStateBackend['writeWorkspace']>) {
    return { ...(await super.writeWorkspace(...args)), heldMs: 60_000 };
  }
}
