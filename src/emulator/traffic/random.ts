/**
 * The random draws of synthetic traffic: one seeded stream (mulberry32) per purpose, and the
 * distributions the traffic model uses. Every draw is reproducible from the seed and the names the
 * stream was made from, so the same seed and the same configurations always give the same calls.
 */
import { sha256Bytes } from '../../util/hash.js';
import { seededRandom } from '../../util/seeded-random.js';

/** 32 bits from any list of names (sha256: streams of different names are unrelated). */
function streamSeed(...parts: Array<string | number>): number {
  return sha256Bytes(parts.map(String).join('\u0000')).readUInt32BE(0);
}

export class RandomStream {
  private readonly next: () => number;
  /** A second normal value of the last Box–Muller pair, kept for the next call. */
  private spareNormal: number | undefined;

  constructor(...parts: Array<string | number>) {
    this.next = seededRandom(streamSeed(...parts));
  }

  /** A whole number in [0, n). */
  below(n: number): number {
    return Math.min(n - 1, Math.floor(this.next() * n));
  }

  chance(p: number): boolean {
    return this.next() < p;
  }

  /** Standard normal (Box–Muller). */
  normal(): number {
    if (this.spareNormal !== undefined) {
      const value = this.spareNormal;
      this.spareNormal = undefined;
      return value;
    }
    const u = 1 - this.next(); // (0, 1]: the logarithm stays finite
    const v = this.next();
    const radius = Math.sqrt(-2 * Math.log(u));
    this.spareNormal = radius * Math.sin(2 * Math.PI * v);
    return radius * Math.cos(2 * Math.PI * v);
  }

  /** Log-normal with this median and this sigma (the spread of the logarithm). */
  logNormal(median: number, sigma: number): number {
    return median * Math.exp(sigma * this.normal());
  }

  /** Poisson with mean `mean` (Knuth's method: the means here are small). */
  poisson(mean: number): number {
    if (mean <= 0) return 0;
    const limit = Math.exp(-Math.min(mean, 30));
    let k = 0;
    for (let product = this.next(); product > limit; product *= this.next()) k++;
    return k;
  }

  /** An index drawn with probability proportional to its weight (the weights sum to `total`). */
  weighted(weights: readonly number[], total: number): number {
    let point = this.next() * total;
    for (let i = 0; i < weights.length; i++) {
      point -= weights[i] as number;
      if (point < 0) return i;
    }
    return weights.length - 1;
  }

  /** `count` random hex digits (for ids shaped like the emulator's own: `call_` and 20 digits). */
  hex(count: number): string {
    let out = '';
    // Eight digits per draw, as the draw's 32 bits.
    while (out.length < count) out += Math.floor(this.next() * 0x100000000).toString(16).padStart(8, '0');
    return out.length === count ? out : out.slice(0, count);
  }
}
