import { describe, expect, it } from 'vitest';
import { didYouMean } from '../../src/util/did-you-mean.js';
import { seededRandom } from '../../src/util/seeded-random.js';

/** The whole edit-distance table (Damerau: a swap of two neighbours is one edit), as the plain definition has it. */
function editDistance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const row = d[i] as number[];
      const above = d[i - 1] as number[];
      row[j] = Math.min(above[j]! + 1, row[j - 1]! + 1, above[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) row[j] = Math.min(row[j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}

/** The suggestion by the plain definition: the first closest candidate, when within the allowance. */
function plainSuggestion(input: string, candidates: readonly string[]): string | undefined {
  const allowed = Math.max(1, Math.min(3, Math.floor(input.length / 3)));
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const distance = editDistance(input.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return best !== undefined && best !== input && bestDistance <= allowed ? best : undefined;
}

describe('didYouMean', () => {
  it('suggests a name one typo away, a swap of two letters, a difference of case; nothing for a name too far off', () => {
    expect(didYouMean('promt', ['prompt', 'voice'])).toBe('prompt');
    expect(didYouMean('pormpt', ['prompt', 'voice'])).toBe('prompt');
    expect(didYouMean('Prompt', ['prompt'])).toBe('prompt');
    expect(didYouMean('prompt', ['prompt'])).toBeUndefined();
    expect(didYouMean('webhook', ['prompt', 'voice'])).toBeUndefined();
  });

  it('gives what the whole edit-distance table gives, though it passes over names of another length and stops at a row past the allowance', () => {
    const random = seededRandom(3601);
    const letter = () => 'abAB-'[Math.floor(random() * 5)] as string;
    const word = () => Array.from({ length: Math.floor(random() * 24) }, letter).join('');
    // A few random edits of `base` (insertions, deletions, changes, swaps): candidates near the input.
    const near = (base: string) => {
      let text = base;
      for (let edits = Math.floor(random() * 5); edits > 0; edits--) {
        const at = Math.floor(random() * (text.length + 1));
        const kind = Math.floor(random() * 4);
        if (kind === 0) text = text.slice(0, at) + letter() + text.slice(at);
        else if (kind === 1) text = text.slice(0, at) + text.slice(at + 1);
        else if (kind === 2) text = text.slice(0, at) + letter() + text.slice(at + 1);
        else text = text.slice(0, at) + text.slice(at + 1, at + 2) + text.slice(at, at + 1) + text.slice(at + 2);
      }
      return text;
    };
    for (let round = 0; round < 2_000; round++) {
      const input = word();
      const candidates = [...Array.from({ length: 4 }, word), ...Array.from({ length: 4 }, () => near(input))];
      expect(didYouMean(input, candidates), `${input} among ${candidates.join(', ')}`).toBe(plainSuggestion(input, candidates));
    }
  });
});
