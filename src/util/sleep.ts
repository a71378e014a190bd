import { setTimeout as delay } from 'node:timers/promises';

/** The real clock's wait: resolves after `ms`, or as soon as `signal` aborts, its timer cleared; never rejects (tests inject an instant one). */
export const sleepUnlessAborted = (ms: number, signal?: AbortSignal): Promise<void> =>
  ms <= 0 || signal?.aborted ? Promise.resolve() : delay(ms, undefined, { signal }).catch(() => undefined);
