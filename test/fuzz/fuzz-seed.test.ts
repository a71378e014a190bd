import { afterEach, expect, it, vi } from 'vitest';
import { fuzzSeed } from '../helpers/fuzz-seed.js';

afterEach(() => {
  vi.unstubAllEnvs();
});

it("a seeded file runs with its own seed unless VOXFORM_FUZZ_SEED names another, which must be a whole number", () => {
  vi.stubEnv('VOXFORM_FUZZ_SEED', undefined);
  expect(fuzzSeed(20_261_204)).toBe(20_261_204);
  vi.stubEnv('VOXFORM_FUZZ_SEED', ' 7101 ');
  expect(fuzzSeed(20_261_204)).toBe(7101);
  // Set but empty would read as 0, and a word as NaN: a run under a seed nobody asked for.
  for (const given of ['', ' ', 'abc', '-1', '1.5', '1e3', '0x10']) {
    vi.stubEnv('VOXFORM_FUZZ_SEED', given);
    expect(() => fuzzSeed(1), JSON.stringify(given)).toThrow(`VOXFORM_FUZZ_SEED must be a whole number (the seed a test name shows), not ${JSON.stringify(given)}.`);
  }
});
