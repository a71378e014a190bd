/**
 * Synchronous jobs run in slices of SLICE_MS on the main thread, the event loop served between
 * slices (timers, Ctrl-C): short file system calls, for which Node's asynchronous calls cost many
 * times the call in hand-over to the I/O threads, and long CPU work over untrusted text cut into
 * jobs (a token count, a policy rule's search). A job must never wait on another process.
 *
 * A slice's results are handed over only in the next slice, once the event loop has turned: a
 * signal that came while the jobs ran is served before the code awaiting them goes on, so a
 * command stopped during its work prints the stop, never the result it then finishes.
 */
import { performance } from 'node:perf_hooks';
import { Fifo } from './fifo.js';

const SLICE_MS = 4;

const queue = new Fifo<() => void>();
/** How the jobs of the last slice ended, each settling its promise. */
let settling: Array<() => void> = [];
let scheduled = false;

/** Runs `job` in a coming slice; its result (or what it threw) settles the promise. */
export function inSlice<T>(job: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    queue.push(() => {
      try {
        const result = job();
        settling.push(() => resolve(result));
      } catch (error) {
        settling.push(() => reject(error));
      }
    });
    schedule();
  });
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  // Queued from a slice (the check phase), this runs after the next poll for I/O, where signals are served.
  setImmediate(runSlice);
}

function runSlice(): void {
  scheduled = false;
  const settled = settling;
  settling = [];
  for (const settle of settled) settle();
  const deadline = performance.now() + SLICE_MS;
  while (queue.size > 0 && performance.now() < deadline) queue.shift()?.();
  if (queue.size > 0 || settling.length > 0) schedule();
}

/** Resolves once the event loop has polled for I/O again, where a signal already received is served. */
export function afterPendingSignals(): Promise<void> {
  return new Promise((resolve) => setImmediate(() => setImmediate(resolve)));
}
