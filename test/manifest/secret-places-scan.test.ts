/**
 * A value at a secret place is a secret when it holds a value the environment gave: each is looked
 * for in it, not every secret heard so far, of which a manifest's secret places add one each. The
 * work is counted as the calls of `String.prototype.includes` during the load.
 */
import { describe, expect, it } from 'vitest';
import { AGENT, loadTree, summarize } from './helpers.js';

/** Runs `work` with the calls of `String.prototype.includes` counted, and puts it back. */
async function searching<T>(work: () => Promise<T>): Promise<{ result: T; searches: number }> {
  const original = String.prototype.includes;
  let searches = 0;
  String.prototype.includes = function (this: string, ...args: Parameters<typeof original>) {
    searches++;
    return original.apply(this, args);
  };
  try {
    return { result: await work(), searches };
  } finally {
    String.prototype.includes = original;
  }
}

const PLACES = 1_500;

describe('secret places are searched for the values the environment gave', () => {
  it(`${PLACES} headers holding a variable and ${PLACES} written out: the first are secrets, the others are not`, async () => {
    const filled = Array.from({ length: PLACES }, (_, i) => `x-filled-${i}: "\${env:PIN}-${i}"`);
    const written = Array.from({ length: PLACES }, (_, i) => `x-written-${i}: written-${i}`);
    const manifest = `${AGENT}    config:\n      session_data_webhook:\n        url: https://hooks.example.com/end\n        headers: { ${[...filled, ...written].join(', ')} }\n`;
    const { result, searches } = await searching(() => loadTree({ 'voxform.yaml': manifest }, { env: { PIN: 'pin-from-the-environment' } }));
    expect(summarize(result)).toEqual([]);
    expect(result.secrets).toEqual(['pin-from-the-environment', ...Array.from({ length: PLACES }, (_, i) => `pin-from-the-environment-${i}`)]);
    // Each written value searched for every secret heard before it: about PLACES² searches.
    expect(searches).toBeLessThan(50 * PLACES);
  });
});
