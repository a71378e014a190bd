/**
 * Per-version counters, fed one call at a time: constant memory per version (the duration sketch is
 * bounded, see quantiles.ts), whatever the number of calls.
 */
import type { GlobalCallHistoryRecord } from '../schema/types.gen.js';
import { creditsOf, durationOf, functionCallsOf, isTransferCall, outcomeGroupOf, statusOf } from './outcomes.js';
import { QuantileSketch } from './quantiles.js';
import { RunningMoments, wilsonInterval } from './statistics.js';
import type { Rate, VersionMetrics } from './types.js';
import { byCodeUnits } from '../util/compare.js';

export class MetricsAccumulator {
  calls = 0;
  errors = 0;
  transfers = 0;
  toolCalls = 0;
  toolFailures = 0;
  credits = 0;
  readonly byStatus = new Map<string, number>();
  readonly durations = new QuantileSketch();
  readonly durationMoments = new RunningMoments();
  readonly creditMoments = new RunningMoments();
  firstTs = Number.POSITIVE_INFINITY;
  lastTs = Number.NEGATIVE_INFINITY;

  add(record: GlobalCallHistoryRecord, ts: number): void {
    this.calls++;
    this.firstTs = Math.min(this.firstTs, ts);
    this.lastTs = Math.max(this.lastTs, ts);
    const status = statusOf(record);
    // Statuses are the service's words; an account with thousands of distinct ones is not a reason to grow.
    if (this.byStatus.has(status) || this.byStatus.size < 64) this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    else this.byStatus.set('(other)', (this.byStatus.get('(other)') ?? 0) + 1);
    // A call errored when its status is `error` or `FAILED` (any case).
    if (outcomeGroupOf(status) === 'error') this.errors++;
    const duration = durationOf(record);
    if (duration !== undefined) {
      this.durations.add(duration);
      this.durationMoments.add(duration);
    }
    const credits = creditsOf(record);
    this.credits += credits;
    this.creditMoments.add(credits);
    // A transfer is the platform's function, counted by the transfer rate; tool calls are the rest,
    // as the emulator's traffic summary counts them (docs/report.md, Metrics).
    let transferred = false;
    for (const call of functionCallsOf(record)) {
      if (isTransferCall(call.name)) {
        transferred = true;
        continue;
      }
      this.toolCalls++;
      if (call.failed) this.toolFailures++;
    }
    if (transferred) this.transfers++;
  }

  summary(): VersionMetrics {
    const round = (value: number | null, digits = 6) => (value === null ? null : Math.round(value * 10 ** digits) / 10 ** digits);
    return {
      calls: this.calls,
      by_status: Object.fromEntries([...this.byStatus].sort(([a, x], [b, y]) => y - x || byCodeUnits(a, b))),
      error_rate: rate(this.errors, this.calls),
      transfer_rate: rate(this.transfers, this.calls),
      duration_seconds: {
        calls: this.durations.count,
        median: round(this.durations.quantile(0.5), 3),
        p90: round(this.durations.quantile(0.9), 3),
        mean: this.durationMoments.count > 0 ? round(this.durationMoments.mean, 3) : null,
        exact: this.durations.isExact,
      },
      credits: {
        total: round(this.credits) ?? 0,
        mean_per_call: this.creditMoments.count > 0 ? round(this.creditMoments.mean) : null,
      },
      tool_calls: { calls: this.toolCalls, failed: this.toolFailures, failure_rate: rate(this.toolFailures, this.toolCalls) },
    };
  }
}

export function rate(count: number, of: number): Rate {
  const interval = wilsonInterval(count, of);
  const round = (value: number) => Math.round(value * 1e6) / 1e6;
  return { count, of, value: of > 0 ? round(count / of) : null, low: interval ? round(interval.low) : null, high: interval ? round(interval.high) : null };
}
