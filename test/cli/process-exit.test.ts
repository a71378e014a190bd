/**
 * voxform's own process ends at once after its command (src/cli/process-exit.ts), but never before
 * what the command wrote has been handed on: a write still pending holds the exit back.
 */
import { PassThrough, Writable } from 'node:stream';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { exitWhenFlushed } from '../../src/cli/process-exit.js';

afterEach(() => vi.restoreAllMocks());

/** A stream whose writes complete only when `finish()` is called. */
function slowStream(): { stream: Writable; finish: () => void; written: string[] } {
  const written: string[] = [];
  const pending: Array<() => void> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      written.push(chunk.toString());
      pending.push(() => callback());
    },
  });
  return { stream, written, finish: () => pending.splice(0).forEach((done) => done()) };
}

function spyOnExit(): { exited: Promise<number> } {
  let exited: (code: number) => void = () => undefined;
  const promise = new Promise<number>((resolve) => (exited = resolve));
  vi.spyOn(process, 'exit').mockImplementation(((code?: number) => void exited(code ?? 0)) as typeof process.exit);
  return { exited: promise };
}

describe('exitWhenFlushed', () => {
  it('exits with the code only once every stream has written what it was given', async () => {
    const { exited } = spyOnExit();
    const slow = slowStream();
    slow.stream.write('Apply complete: 7 applied, 0 failed, 0 skipped.\n');
    void exitWhenFlushed(2, [slow.stream, new PassThrough()]);
    // Several turns of the loop: the exit waits for the pending write, however long it takes.
    for (let turn = 0; turn < 5; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(process.exit).not.toHaveBeenCalled();
    slow.finish();
    // The first write done, the flush's own (empty) write is queued behind it: let it through too.
    await new Promise((resolve) => setImmediate(resolve));
    slow.finish();
    expect(await exited).toBe(2);
    expect(slow.written.join('')).toBe('Apply complete: 7 applied, 0 failed, 0 skipped.\n');
  });

  it('does not wait on a stream that is closed or failed (a reader that went away)', async () => {
    const { exited } = spyOnExit();
    const closed = new PassThrough();
    closed.destroy();
    const failed = new Writable({ write: (_chunk, _encoding, callback) => callback(new Error('EPIPE')) });
    failed.on('error', () => undefined);
    void exitWhenFlushed(1, [closed, failed]);
    expect(await exited).toBe(1);
  });
});
