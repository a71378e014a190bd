/**
 * The statistics of the version comparison: 95% intervals, a verdict only where the difference's
 * excludes zero. Rates use Wilson's interval (it keeps its coverage for small counts and rates near 0
 * or 1) and Newcombe's method 10 for a difference; means Welch's, normal as `MIN_CALLS` allows.
 */

/** Below this many calls in either version, no comparison is made: "not enough calls yet". */
export const MIN_CALLS = 30;

/** The two-sided 95% normal quantile. */
const Z95 = 1.959963984540054;

export interface Interval {
  low: number;
  high: number;
}

/** Wilson's 95% score interval for `successes` out of `trials`; undefined with no trials. */
export function wilsonInterval(successes: number, trials: number): Interval | undefined {
  if (trials <= 0) return undefined;
  const p = successes / trials;
  const z2 = Z95 * Z95;
  const denominator = 1 + z2 / trials;
  const centre = (p + z2 / (2 * trials)) / denominator;
  const half = (Z95 * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator;
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) };
}

/**
 * Newcombe's 95% interval for the difference of two rates, `after − before` (each `successes` of
 * `trials`); undefined when either has no trials.
 */
export function rateDifferenceInterval(after: { successes: number; trials: number }, before: { successes: number; trials: number }): Interval | undefined {
  const a = wilsonInterval(after.successes, after.trials);
  const b = wilsonInterval(before.successes, before.trials);
  if (!a || !b) return undefined;
  const pa = after.successes / after.trials;
  const pb = before.successes / before.trials;
  const difference = pa - pb;
  return {
    low: difference - Math.sqrt((pa - a.low) ** 2 + (b.high - pb) ** 2),
    high: difference + Math.sqrt((a.high - pa) ** 2 + (pb - b.low) ** 2),
  };
}

/** A running mean and variance (Welford's method: no catastrophic cancellation over many values). */
export class RunningMoments {
  count = 0;
  mean = 0;
  private squares = 0;

  add(value: number): void {
    this.count++;
    const delta = value - this.mean;
    this.mean += delta / this.count;
    this.squares += delta * (value - this.mean);
  }

  /** The sample variance; 0 below two values. */
  get variance(): number {
    return this.count > 1 ? this.squares / (this.count - 1) : 0;
  }
}

/** The 95% interval of `after.mean − before.mean` (Welch, normal approximation); undefined below two values each. */
export function meanDifferenceInterval(after: RunningMoments, before: RunningMoments): Interval | undefined {
  if (after.count < 2 || before.count < 2) return undefined;
  const difference = after.mean - before.mean;
  const half = Z95 * Math.sqrt(after.variance / after.count + before.variance / before.count);
  return { low: difference - half, high: difference + half };
}

/** What the data say about a difference. */
export type Verdict = 'higher' | 'lower' | 'no clear difference' | 'not enough calls';

/** `higher`/`lower` only when the whole interval lies on one side of zero. */
export function verdictOf(interval: Interval | undefined, enough: boolean): Verdict {
  if (!enough || !interval) return 'not enough calls';
  if (interval.low > 0) return 'higher';
  if (interval.high < 0) return 'lower';
  return 'no clear difference';
}
