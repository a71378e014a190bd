import { Fifo } from './fifo.js';

/** A FIFO counting semaphore: at most `limit` holders at once, the rest wait in arrival order. */
export class Semaphore {
  private active = 0;
  private readonly waiting = new Fifo<Waiter>();
  /** Waiters withdrawn while still in the queue (skipped when their turn comes). */
  private withdrawn = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`the in-flight limit must be a whole number of at least 1, not ${limit}`);
  }

  get inFlight(): number {
    return this.active;
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.waiting.size - this.withdrawn;
  }

  tryAcquire(): boolean {
    if (this.active >= this.limit || this.queued > 0) return false;
    this.active++;
    return true;
  }

  /**
   * Calls `onGranted` holding a slot: at once when one is free (then nothing is returned), else when
   * its turn comes; the place returned can be given up while it waits.
   */
  whenFree(onGranted: () => void): QueuePlace | undefined {
    if (this.tryAcquire()) {
      onGranted();
      return undefined;
    }
    const waiter: Waiter = { grant: onGranted };
    this.waiting.push(waiter);
    return {
      withdraw: () => {
        if (!waiter.grant) return false;
        waiter.grant = undefined;
        this.withdrawn++;
        return true;
      },
    };
  }

  /**
   * Waits for a slot. With `signal`, a wait still in the queue when the signal aborts ends at once,
   * rejecting with the signal's reason, and gives up its place; a slot already taken is kept.
   */
  acquire(signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(signal.reason);
    return new Promise((resolve, reject) => {
      const onAbort = () => {
        if (place?.withdraw()) reject(signal?.reason);
      };
      const place = this.whenFree(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      });
      if (place) signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Hands the slot straight to the next waiter, so a freed slot is never raced for. */
  release(): void {
    for (let next = this.waiting.shift(); next; next = this.waiting.shift()) {
      const grant = next.grant;
      if (!grant) {
        this.withdrawn--;
        continue;
      }
      next.grant = undefined;
      grant();
      return;
    }
    this.active--;
  }

  /** Runs `task` holding a slot, and frees the slot however the task ends. */
  async run<T>(task: () => Promise<T>): Promise<T> {
    if (!this.tryAcquire()) await this.acquire();
    try {
      return await task();
    } finally {
      this.release();
    }
  }
}

/** A place in the queue: `grant` is cleared when the slot is given or the place withdrawn. */
interface Waiter {
  grant: (() => void) | undefined;
}

/** A wait for a slot (`Semaphore.whenFree`). */
interface QueuePlace {
  /** Gives up the place: true if it was still waiting (its callback will not be called), false if the slot was already given. */
  withdraw(): boolean;
}

/** Runs `work` over `items` with at most `limit` in flight; results keep the items' order. */
export function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const slots = new Semaphore(Math.max(1, Math.floor(limit)));
  return Promise.all(items.map((item) => slots.run(() => work(item))));
}
