/**
 * Short synchronous jobs (a few system calls each) run in slices on the main thread, with the event
 * loop served between slices. Why not Node's asynchronous calls: each of those is handed to the I/O
 * threads and back, and for a small file (realpath, stat, open, fstat, read, close) the hand-over
 * costs many times the call, CPU that the service's answers and the plan also need.
 *
 * A slice ends after SLICE_MS, or when the queue is empty; then setImmediate lets timers, signals
 * (Ctrl-C) and arriving answers in before the next one. A job must not be able to block for long:
 * callers use it for calls that never wait on another process (a FIFO or device is refused before
 * it is opened, and nothing is opened blocking).
 */
import { performance } from 'node:perf_hooks';
import { Fifo } from './fifo.js';

const SLICE_MS = 4;

const queue = new Fifo<() => void>();
let scheduled = false;

/** Runs `job` in a coming slice; its result (or what it threw) settles the promise. */
export function inSlice<T>(job: () => T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    queue.push(() => {
      try {
        resolve(job());
      } catch (error) {
        reject(error);
      }
    });
    schedule();
  });
}

function schedule(): void {
  if (scheduled) return;
  scheduled = true;
  setImmediate(runSlice);
}

function runSlice(): void {
  scheduled = false;
  const deadline = performance.now() + SLICE_MS;
  do {
    queue.shift()?.();
  } while (queue.size > 0 && performance.now() < deadline);
  if (queue.size > 0) schedule();
}
