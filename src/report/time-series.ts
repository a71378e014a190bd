/**
 * Calls over time per bin and outcome, in bounded memory without knowing the window: past `MAX_BINS`
 * the width steps up the ladder below (each divides the next, so coarsening adds neighbours).
 */
import type { OutcomeGroup } from './outcomes.js';

const WIDTHS_SECONDS = [60, 300, 900, 3600, 10_800, 21_600, 43_200, 86_400, 604_800, 2_419_200];
const MAX_BINS = 400;
/** Bins a chart shows at most: coarser bins read better than hundreds of mostly empty ones. */
export const CHART_BINS = 120;

export interface SeriesPoint {
  /** Start of the bin, Unix seconds. */
  start: number;
  calls: number;
  outcomes: Record<OutcomeGroup, number>;
}

function emptyOutcomes(): Record<OutcomeGroup, number> {
  return { completed: 0, voicemail: 0, timeout: 0, error: 0, other: 0 };
}

export class TimeSeries {
  private widthIndex = 0;
  private readonly bins = new Map<number, SeriesPoint>();
  private minStart = Number.POSITIVE_INFINITY;
  private maxStart = Number.NEGATIVE_INFINITY;

  get binSeconds(): number {
    return WIDTHS_SECONDS[this.widthIndex] as number;
  }

  add(ts: number, outcome: OutcomeGroup): void {
    let start = Math.floor(ts / this.binSeconds) * this.binSeconds;
    const low = Math.min(this.minStart, start);
    const high = Math.max(this.maxStart, start);
    if ((high - low) / this.binSeconds + 1 > MAX_BINS && this.widthIndex < WIDTHS_SECONDS.length - 1) {
      this.coarsen(low, high);
      start = Math.floor(ts / this.binSeconds) * this.binSeconds;
    }
    this.minStart = Math.min(this.minStart, start);
    this.maxStart = Math.max(this.maxStart, start);
    let point = this.bins.get(start);
    if (!point) {
      point = { start, calls: 0, outcomes: emptyOutcomes() };
      this.bins.set(start, point);
    }
    point.calls++;
    point.outcomes[outcome]++;
  }

  /** Every bin from the first to the last, empty ones included (a gap in calls is a zero, not a line across). */
  points(): SeriesPoint[] {
    const out: SeriesPoint[] = [];
    if (this.bins.size === 0) return out;
    for (let start = this.minStart; start <= this.maxStart; start += this.binSeconds) {
      out.push(this.bins.get(start) ?? { start, calls: 0, outcomes: emptyOutcomes() });
    }
    return out;
  }

  /** Merges bins until the series has at most `maxBins` of them (or the widest width is reached). */
  fitTo(maxBins: number): void {
    if (this.bins.size > 0) this.coarsen(this.minStart, this.maxStart, maxBins);
  }

  /** Steps up the ladder until the range `low..high` fits in `maxBins`, merging bins. */
  private coarsen(low: number, high: number, maxBins = MAX_BINS): void {
    while (this.widthIndex < WIDTHS_SECONDS.length - 1 && (high - low) / this.binSeconds + 1 > maxBins) {
      this.widthIndex++;
      low = Math.floor(low / this.binSeconds) * this.binSeconds;
      high = Math.floor(high / this.binSeconds) * this.binSeconds;
    }
    const old = [...this.bins.values()];
    this.bins.clear();
    this.minStart = Number.POSITIVE_INFINITY;
    this.maxStart = Number.NEGATIVE_INFINITY;
    for (const point of old) {
      const start = Math.floor(point.start / this.binSeconds) * this.binSeconds;
      this.minStart = Math.min(this.minStart, start);
      this.maxStart = Math.max(this.maxStart, start);
      const merged = this.bins.get(start) ?? { start, calls: 0, outcomes: emptyOutcomes() };
      merged.calls += point.calls;
      for (const key of Object.keys(point.outcomes) as OutcomeGroup[]) merged.outcomes[key] += point.outcomes[key];
      this.bins.set(start, merged);
    }
  }
}
