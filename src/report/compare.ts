/** Each version against the one before it: differences with 95% intervals, and a verdict only where they exclude zero. */
import type { MetricsAccumulator } from './metrics.js';
import { MIN_CALLS, meanDifferenceInterval, rateDifferenceInterval, verdictOf, type Interval } from './statistics.js';
import type { Comparison, Difference } from './types.js';

function difference(value: number | null, interval: Interval | undefined, enough: boolean): Difference {
  // Six decimals, but a value near zero keeps its own: a bound rounded to zero would seem to touch
  // zero while the verdict says the interval excludes it.
  const round = (n: number) => (Math.round(n * 1e6) === 0 ? n : Math.round(n * 1e6) / 1e6);
  return {
    difference: value === null ? null : round(value),
    low: interval ? round(interval.low) : null,
    high: interval ? round(interval.high) : null,
    verdict: verdictOf(interval, enough),
  };
}

function rateDifference(after: { count: number; of: number }, before: { count: number; of: number }, enough: boolean): Difference {
  const interval = rateDifferenceInterval({ successes: after.count, trials: after.of }, { successes: before.count, trials: before.of });
  const value = after.of > 0 && before.of > 0 ? after.count / after.of - before.count / before.of : null;
  return difference(value, interval, enough);
}

/** `after` compared with `before` (the version deployed or seen just before it). */
export function compareVersions(after: MetricsAccumulator, beforeKey: string, before: MetricsAccumulator): Comparison {
  const enough = after.calls >= MIN_CALLS && before.calls >= MIN_CALLS;
  const durations = meanDifferenceInterval(after.durationMoments, before.durationMoments);
  const credits = meanDifferenceInterval(after.creditMoments, before.creditMoments);
  return {
    against: beforeKey,
    enough_calls: enough,
    error_rate: rateDifference({ count: after.errors, of: after.calls }, { count: before.errors, of: before.calls }, enough),
    transfer_rate: rateDifference({ count: after.transfers, of: after.calls }, { count: before.transfers, of: before.calls }, enough),
    // Tool failures are counted per tool call: a version that calls tools rarely needs enough of them too.
    tool_failure_rate: rateDifference(
      { count: after.toolFailures, of: after.toolCalls },
      { count: before.toolFailures, of: before.toolCalls },
      enough && after.toolCalls >= MIN_CALLS && before.toolCalls >= MIN_CALLS,
    ),
    mean_duration_seconds: difference(
      after.durationMoments.count > 0 && before.durationMoments.count > 0 ? after.durationMoments.mean - before.durationMoments.mean : null,
      durations,
      enough && after.durationMoments.count >= MIN_CALLS && before.durationMoments.count >= MIN_CALLS,
    ),
    mean_credits_per_call: difference(after.calls > 0 && before.calls > 0 ? after.creditMoments.mean - before.creditMoments.mean : null, credits, enough),
  };
}
