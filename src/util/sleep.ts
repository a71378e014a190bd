import { setTimeout as delay } from 'node:timers/promises';

/** The longest wait a Node timer keeps (ms, about 24 days): a longer one fires after 1 ms. */
export const LONGEST_TIMER_MS = 2_147_483_647;

/** The real clock's wait: resolves after `ms`, or as soon as `signal` aborts, its timer cleared; never rejects (tests inject an instant one). */
export const sleepUnlessAborted = (ms: number, signal?: AbortSignal): Promise<void> =>
  ms <= 0 || signal?.aborted ? Promise.resolve() : delay(ms, undefined, { signal }).catch(() => undefined);
