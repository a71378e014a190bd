/**
 * Where a text holds secret values (export names each after its variable): the stretches found are
 * those of a check of every occurrence against every stretch found before, and a text filled with one
 * value is read in time in proportion to its length.
 */
import { describe, expect, it } from 'vitest';
import { MIN_SEARCHABLE_SECRET } from '../../src/secrets/redact.js';
import { heldValues, type HeldVariable } from '../../src/secrets/trusted.js';

/** Each occurrence checked against every stretch before it: the reading the search must keep. */
function heldByEveryCheck(text: string, values: readonly string[], nameOf: (value: string) => string, taken: readonly HeldVariable[] = []): HeldVariable[] {
  const held = [...taken];
  const overlaps = (start: number, end: number) => held.some((other) => start < other.end && other.start < end);
  for (const value of values) {
    if (value.length < MIN_SEARCHABLE_SECRET) {
      if (text === value && held.length === 0) held.push({ start: 0, end: text.length, name: nameOf(value) });
      continue;
    }
    for (let start = text.indexOf(value); start !== -1; start = text.indexOf(value, start + 1)) {
      if (!overlaps(start, start + value.length)) held.push({ start, end: start + value.length, name: nameOf(value) });
    }
  }
  return held.sort((a, b) => a.start - b.start);
}

describe('heldValues', () => {
  it('finds the stretches a check against every earlier stretch finds, taken ones and overlapping values included', () => {
    let seed = 11;
    const next = (below: number) => Math.floor(((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648) * below);
    const word = (length: number) => Array.from({ length }, () => 'ab'[next(2)]).join('');
    for (let i = 0; i < 3000; i++) {
      const text = word(next(60));
      const values = Array.from({ length: next(4) }, () => (next(3) === 0 ? text.slice(next(10), next(10) + 6 + next(8)) : word(MIN_SEARCHABLE_SECRET - 1 + next(6)))).filter((value) => value !== '');
      const taken: HeldVariable[] = [];
      for (let start = next(30); start < text.length && taken.length < next(4); start += 8 + next(10)) taken.push({ start, end: Math.min(text.length, start + 1 + next(7)), name: 'TAKEN' });
      const nameOf = (value: string) => `V_${value.length}`;
      expect(heldValues(text, values, nameOf, taken)).toEqual(heldByEveryCheck(text, values, nameOf, taken));
    }
  });

  it('reads a text of a million characters of one value', () => {
    const value = 'a'.repeat(MIN_SEARCHABLE_SECRET);
    const held = heldValues('a'.repeat(1_000_000), [value], () => 'TOKEN');
    expect(held).toHaveLength(Math.floor(1_000_000 / MIN_SEARCHABLE_SECRET));
    expect(held.at(-1)?.end).toBe(Math.floor(1_000_000 / MIN_SEARCHABLE_SECRET) * MIN_SEARCHABLE_SECRET);
  });
});
