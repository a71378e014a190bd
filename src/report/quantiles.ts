/**
 * Quantiles of a stream in bounded memory: exact over the first `EXACT_LIMIT` values, then from a
 * histogram of logarithmic bins each 1% wider than the last (a bin's geometric middle is within 0.5%).
 */

const EXACT_LIMIT = 2048;
/** Ratio of a bin's upper to its lower edge. */
const BIN_RATIO = 1.01;
const LOG_RATIO = Math.log(BIN_RATIO);
/** Values at or below this share bin "zero" (durations are positive; this keeps log finite). */
const SMALLEST = 0.01;

export class QuantileSketch {
  private exact: number[] | undefined = [];
  private readonly bins = new Map<number, number>();
  private total = 0;

  get count(): number {
    return this.total;
  }

  /** Whether the quantiles are exact (few values) or from the histogram. */
  get isExact(): boolean {
    return this.exact !== undefined;
  }

  add(value: number): void {
    this.total++;
    if (this.exact) {
      this.exact.push(value);
      if (this.exact.length > EXACT_LIMIT) {
        for (const kept of this.exact) this.addToBins(kept);
        this.exact = undefined;
      }
      return;
    }
    this.addToBins(value);
  }

  /** Nearest-rank quantile (`q` in 0..1); null with no values. */
  quantile(q: number): number | null {
    if (this.total === 0) return null;
    const rank = Math.max(1, Math.ceil(q * this.total));
    if (this.exact) return [...this.exact].sort((a, b) => a - b)[rank - 1] as number;
    let seen = 0;
    for (const bin of [...this.bins.keys()].sort((a, b) => a - b)) {
      seen += this.bins.get(bin) as number;
      if (seen >= rank) return binMiddle(bin);
    }
    return null;
  }

  private addToBins(value: number): void {
    const bin = value <= SMALLEST ? -1 : Math.floor(Math.log(value / SMALLEST) / LOG_RATIO);
    this.bins.set(bin, (this.bins.get(bin) ?? 0) + 1);
  }
}

function binMiddle(bin: number): number {
  if (bin < 0) return SMALLEST;
  return SMALLEST * BIN_RATIO ** (bin + 0.5);
}
