/**
 * The one "unchanged" rule (src/plan/compare.ts): canonical JSON alike, or a desired null against an
 * unset field. Its shortcuts for strings, booleans and finite numbers must answer exactly as the
 * canonical comparison does, for values of one kind and of two.
 */
import { describe, expect, it } from 'vitest';
import { isUnchanged } from '../../src/plan/compare.js';
import { canonicalJson } from '../../src/util/hash.js';

const values: unknown[] = ['', 'a', 'A', '1', 'true', 'null', `${'long prompt line '.repeat(200)}\n`, 0, -0, 1, 1.5, -2, NaN, Infinity, -Infinity, true, false, undefined, [], ['a'], {}, { a: 1, b: [true] }, { b: [true], a: 1 }, new Date(0), '1970-01-01T00:00:00.000Z'];

describe('isUnchanged', () => {
  it('answers as canonical JSON does for every pair of values, shortcuts included', () => {
    for (const desired of values) {
      for (const live of [...values, null]) {
        expect(isUnchanged(desired, live), `${String(desired)} against ${String(live)}`).toBe(canonicalJson(desired) === canonicalJson(live));
      }
    }
  });

  it('takes a desired null as "unset" too', () => {
    expect(isUnchanged(null, undefined)).toBe(true);
    expect(isUnchanged(null, null)).toBe(true);
    expect(isUnchanged(null, 'x')).toBe(false);
    expect(isUnchanged(null, 0)).toBe(false);
  });
});
