/**
 * Short synchronous jobs (a few system calls each) run in slices of SLICE_MS on the main thread, the
 * event loop served between slices (timers, Ctrl-C): for a small file, Node's asynchronous calls cost
 * many times the call in hand-over to the I/O threads. A job must never wait on another process.
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
