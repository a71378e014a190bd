/**
 * A FIFO counting semaphore: at most `limit` holders at once, the rest wait in arrival order. The
 * queue is an array with a moving head (not `shift()`, which is linear: 5,000 waiters would cost
 * 12 million moves).
 */
export class Semaphore {
  private active = 0;
  private waiting: Array<() => void> = [];
  private head = 0;

  constructor(readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`the in-flight limit must be a whole number of at least 1, not ${limit}`);
  }

  /** Requests currently holding a slot. */
  get inFlight(): number {
    return this.active;
  }

  /** Requests waiting for a slot. */
  get queued(): number {
    return this.waiting.length - this.head;
  }

  /** Takes a slot if one is free, without waiting. */
  tryAcquire(): boolean {
    if (this.active >= this.limit || this.queued > 0) return false;
    this.active++;
    return true;
  }

  acquire(): Promise<void> {
    if (this.tryAcquire()) return Promise.resolve();
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  /** Hands the slot straight to the next waiter, so a freed slot is never raced for. */
  release(): void {
    if (this.head < this.waiting.length) {
      const next = this.waiting[this.head] as () => void;
      this.waiting[this.head++] = undefined as unknown as () => void;
      if (this.head > 1024 && this.head * 2 > this.waiting.length) {
        this.waiting = this.waiting.slice(this.head);
        this.head = 0;
      }
      next();
    } else {
      this.active--;
    }
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

/**
 * Runs `work` over `items` with at most `limit` in flight; results keep the items' order. The one
 * bounded-concurrency helper besides the semaphore itself, built on it.
 */
export function mapBounded<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const slots = new Semaphore(Math.max(1, Math.floor(limit)));
  return Promise.all(items.map((item) => slots.run(() => work(item))));
}
