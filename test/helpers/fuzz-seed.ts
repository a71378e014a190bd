/**
 * The seed of a seeded test file: VOXFORM_FUZZ_SEED when it is set, the file's own otherwise. A
 * value that is not a whole number is refused rather than read as some other seed: `Number('')` is
 * 0 and `Number('x')` is NaN, and a run would then pass or fail under a seed nobody asked for.
 */
export function fuzzSeed(fallback: number): number {
  const given = process.env.VOXFORM_FUZZ_SEED;
  if (given === undefined) return fallback;
  if (!/^\d{1,15}$/.test(given.trim())) throw new Error(`VOXFORM_FUZZ_SEED must be a whole number (the seed a test name shows), not ${JSON.stringify(given)}.`);
  return Number(given.trim());
}
