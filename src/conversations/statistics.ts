/**
 * What a test's repeated runs say beyond passes/runs: pass@k (at least one of the k runs passed),
 * pass^k (all k passed), the pass rate with its 95% interval, and whether the test is flaky (it both
 * passed and failed). The interval is the report's Wilson interval (src/report/statistics.ts): one
 * implementation for every rate voxform prints.
 */
import { fixedDecimals } from '../report/format.js';
import { wilsonInterval } from '../report/statistics.js';
import type { RunResult, TestVerdict } from './types.js';

/** A verdict as statistics read it: with its runs' results where known (a baseline keeps only the counts). */
type Counts = Pick<TestVerdict, 'passes' | 'runs'> & { results?: ReadonlyArray<Pick<RunResult, 'status'>> };

export interface VerdictStatistics {
  /** Runs that counted (k). */
  runs: number;
  passes: number;
  /** At least one run passed; null with no run counted. */
  passAtK: boolean | null;
  /** Every run passed; null with no run counted. */
  passHatK: boolean | null;
  /** passes / runs; null with no run counted. */
  rate: number | null;
  /** The 95% Wilson interval of the rate; null with no run counted. */
  interval: { low: number; high: number } | null;
  /** Passed in some runs and failed in others (a run in error did neither). */
  flaky: boolean;
}

const round = (value: number): number => Math.round(value * 10_000) / 10_000;

export function verdictStatistics(verdict: Counts): VerdictStatistics {
  const { passes, runs } = verdict;
  const failed = verdict.results ? verdict.results.some((run) => run.status === 'failed') : passes < runs;
  const interval = wilsonInterval(passes, runs);
  return {
    runs,
    passes,
    passAtK: runs > 0 ? passes > 0 : null,
    passHatK: runs > 0 ? passes === runs : null,
    rate: runs > 0 ? round(passes / runs) : null,
    interval: interval ? { low: round(interval.low), high: round(interval.high) } : null,
    flaky: passes > 0 && failed,
  };
}

/**
 * Whether `passes` of `runs` reach the pass rate a test needs. Compared as they are, with no slack:
 * a division is rounded to the nearest double as a written rate is, so 7/10 is 0.7 and 2/3 is
 * 0.6666666666666666 exactly, and any slack would let a rate just above the measured one pass.
 */
export function meetsPassRate(passes: number, runs: number, passRate: number): boolean {
  return passes / runs >= passRate;
}

const percent = (value: number, digits = 0): string => `${fixedDecimals(value * 100, digits)}%`;

/** The pass rate a test needs in percent, as its file writes it: 67 for 0.67, 95.1 for 0.951. */
function passRatePercent(passRate: number): number {
  return Number((passRate * 100).toPrecision(12));
}

/** The pass rate a test needs, as its file writes it: `67%` for 0.67, `95.1%` for 0.951. */
export function passRateText(passRate: number): string {
  return `${passRatePercent(passRate)}%`;
}

/**
 * The measured rate, in whole percent unless more decimals are needed to keep it on its side of
 * the pass rate: 2/3 against 67% is `66.7%`, never `67%`, which would read as meeting it.
 */
function measuredRateText(passes: number, runs: number, passRate: number): string {
  const meets = meetsPassRate(passes, runs, passRate);
  const needed = passRatePercent(passRate);
  let digits = 0;
  while (digits < 12 && Number(fixedDecimals((passes / runs) * 100, digits)) >= needed !== meets) digits++;
  return percent(passes / runs, digits);
}

/**
 * The statistics of a repeated test as words, for the text, Markdown and JUnit reports:
 * `pass^5 no, pass@5 yes, 60% (23–88%), flaky`. Empty for a single run, where passes/runs says it all.
 * With the pass rate the test needs, the measured rate never reads as meeting it when it does not.
 */
export function describeStatistics(verdict: Counts & { passRate?: number }): string {
  const stats = verdictStatistics(verdict);
  if (stats.runs < 2 || stats.rate === null || !stats.interval) return '';
  const k = stats.runs;
  const rate = measuredRateText(stats.passes, k, verdict.passRate ?? 1);
  const parts = [`pass^${k} ${stats.passHatK ? 'yes' : 'no'}`, `pass@${k} ${stats.passAtK ? 'yes' : 'no'}`, `${rate} (${percent(stats.interval.low)}–${percent(stats.interval.high)})`];
  if (stats.flaky) parts.push('flaky');
  return parts.join(', ');
}
