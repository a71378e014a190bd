/**
 * Calls over time per bin and outcome, in bounded memory without knowing the window: past `MAX_BINS`
 * the width steps up the ladder below (each divides the next, so coarsening adds neighbours). The
 * ladder starts at a millisecond, so calls made within seconds of each other (traffic right after a
 * deploy) still spread over bins, and the width follows the data rather than a fixed minute.
 */
import type { OutcomeGroup } from './outcomes.js';

/** Bin widths in milliseconds, each a multiple of the one before. */
const WIDTHS_MS = [
  1, 5, 10, 50, 100, 500, 1000, 5000, 15_000, 60_000, 300_000, 900_000, 3_600_000, 10_800_000, 21_600_000, 43_200_000, 86_400_000,
  604_800_000, 2_419_200_000,
];
const MAX_BINS = 400;
/** Bins a chart shows at most: a few dozen bars read better than hundreds of mostly empty ones. */
export const CHART_BINS = 80;

export interface SeriesPoint {
  /** Start of the bin, Unix seconds. */
  start: number;
  calls: number;
  outcomes: Record<OutcomeGroup, number>;
}

interface Bin {
  startMs: number;
  calls: number;
  outcomes: Record<OutcomeGroup, number>;
}

function emptyOutcomes(): Record<OutcomeGroup, number> {
  return { completed: 0, voicemail: 0, timeout: 0, error: 0, other: 0 };
}

/** The narrowest ladder width (seconds) of at least `atLeastSeconds` that covers `spanSeconds` in at most `maxBins` bins. */
export function binSecondsFor(spanSeconds: number, maxBins: number, atLeastSeconds = 0): number {
  const fits = WIDTHS_MS.find((ms) => ms / 1000 >= atLeastSeconds && Math.max(0, spanSeconds) * 1000 / ms + 1 <= maxBins);
  return (fits ?? (WIDTHS_MS[WIDTHS_MS.length - 1] as number)) / 1000;
}

export class TimeSeries {
  private widthIndex = 0;
  private readonly bins = new Map<number, Bin>();
  private minStart = Number.POSITIVE_INFINITY;
  private maxStart = Number.NEGATIVE_INFINITY;

  private get widthMs(): number {
    return WIDTHS_MS[this.widthIndex] as number;
  }

  get binSeconds(): number {
    return this.widthMs / 1000;
  }

  add(ts: number, outcome: OutcomeGroup): void {
    // Call times have millisecond resolution; rounding undoes the float error of `ts * 1000`.
    const ms = Math.round(ts * 1000);
    let start = Math.floor(ms / this.widthMs) * this.widthMs;
    const low = Math.min(this.minStart, start);
    const high = Math.max(this.maxStart, start);
    if ((high - low) / this.widthMs + 1 > MAX_BINS && this.widthIndex < WIDTHS_MS.length - 1) {
      this.coarsen(low, high);
      start = Math.floor(ms / this.widthMs) * this.widthMs;
    }
    this.minStart = Math.min(this.minStart, start);
    this.maxStart = Math.max(this.maxStart, start);
    let bin = this.bins.get(start);
    if (!bin) {
      bin = { startMs: start, calls: 0, outcomes: emptyOutcomes() };
      this.bins.set(start, bin);
    }
    bin.calls++;
    bin.outcomes[outcome]++;
  }

  /** Every bin from the first to the last, empty ones included (a gap in calls is a zero, not a line across). */
  points(): SeriesPoint[] {
    const out: SeriesPoint[] = [];
    if (this.bins.size === 0) return out;
    for (let start = this.minStart; start <= this.maxStart; start += this.widthMs) {
      const bin = this.bins.get(start);
      out.push({ start: start / 1000, calls: bin?.calls ?? 0, outcomes: bin?.outcomes ?? emptyOutcomes() });
    }
    return out;
  }

  /** Merges bins up to `seconds` wide (a ladder width); a series already as wide or wider is left alone. */
  widenTo(seconds: number): void {
    const target = WIDTHS_MS.indexOf(Math.round(seconds * 1000));
    if (target < 0) throw new Error(`${seconds} s is not a bin width of the ladder`);
    if (target <= this.widthIndex) return;
    this.widthIndex = target;
    this.rebin();
  }

  /** Steps up the ladder until the range `low..high` fits in `MAX_BINS`, merging bins. */
  private coarsen(low: number, high: number): void {
    while (this.widthIndex < WIDTHS_MS.length - 1 && (high - low) / this.widthMs + 1 > MAX_BINS) {
      this.widthIndex++;
      low = Math.floor(low / this.widthMs) * this.widthMs;
      high = Math.floor(high / this.widthMs) * this.widthMs;
    }
    this.rebin();
  }

  private rebin(): void {
    const old = [...this.bins.values()];
    this.bins.clear();
    this.minStart = Number.POSITIVE_INFINITY;
    this.maxStart = Number.NEGATIVE_INFINITY;
    for (const bin of old) {
      const start = Math.floor(bin.startMs / this.widthMs) * this.widthMs;
      this.minStart = Math.min(this.minStart, start);
      this.maxStart = Math.max(this.maxStart, start);
      const merged = this.bins.get(start) ?? { startMs: start, calls: 0, outcomes: emptyOutcomes() };
      merged.calls += bin.calls;
      for (const key of Object.keys(bin.outcomes) as OutcomeGroup[]) merged.outcomes[key] += bin.outcomes[key];
      this.bins.set(start, merged);
    }
  }
}
