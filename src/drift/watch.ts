/**
 * `drift --watch INTERVAL`: a check, then a wait, until stopped. The waits are jittered (checks of
 * many workspaces spread out) and grow after failures (a service in trouble is asked less often),
 * not after a check that asked the service nothing.
 * Time is injected (`sleep`, `random`), so tests need no clock.
 */

/** How much a wait varies either side of its length. */
export const JITTER = 0.1;
/** After failures the wait doubles, up to this many intervals. */
export const MAX_BACKOFF_INTERVALS = 16;

/** Resolves after `ms`, or as soon as `signal` aborts (never rejects). */
export type Sleep = (ms: number, signal: AbortSignal) => Promise<void>;

interface WatchOptions {
  intervalMs: number;
  /** One check: resolves when it is done (reported by the caller), rejects when it failed. */
  check: () => Promise<void>;
  /** Told of a failed check and how long until the next one. */
  onError: (error: unknown, nextMs: number) => void;
  /**
   * Whether a check failed before asking the service anything (its manifests did not load): the
   * next one comes after the interval, as there is no service to spare. Without it, every failed check counts.
   */
  madeNoRequest?: (error: unknown) => boolean;
  sleep: Sleep;
  /** In [0, 1): the jitter's draw. */
  random: () => number;
  /** Stops the watch: no check starts after it fires, and the wait ends at once. */
  signal: AbortSignal;
}

/** The wait before the next check after `failures` failed checks in a row. */
export function nextDelay(intervalMs: number, failures: number, random: () => number): number {
  const base = Math.min(intervalMs * 2 ** Math.min(failures, 30), intervalMs * MAX_BACKOFF_INTERVALS);
  return Math.round(base * (1 - JITTER + 2 * JITTER * random()));
}

/** Checks until `signal` aborts; resolves then. A failed check is reported and retried later, never thrown. */
export async function watchDrift(options: WatchOptions): Promise<void> {
  let failures = 0;
  while (!options.signal.aborted) {
    try {
      await options.check();
      failures = 0;
    } catch (error) {
      if (options.signal.aborted) break;
      // A check that asked nothing leaves the count of the service's failures as it was.
      const asked = !options.madeNoRequest?.(error);
      if (asked) failures++;
      const wait = nextDelay(options.intervalMs, asked ? failures : 0, options.random);
      options.onError(error, wait);
      await options.sleep(wait, options.signal);
      continue;
    }
    if (options.signal.aborted) break;
    await options.sleep(nextDelay(options.intervalMs, 0, options.random), options.signal);
  }
}

