/**
 * A seeded pseudo-random generator (mulberry32): the same seed gives the same sequence, so a fault
 * draw, a fuzz case or a generated test input can be reproduced from the seed it prints. Not for
 * anything secret.
 */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
