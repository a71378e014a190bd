/**
 * The one "unchanged" rule (src/plan/compare.ts): canonical JSON alike, or a desired null against an
 * unset field or an empty object. The shortcuts for strings, booleans and finite numbers (`serializeAlike`, which the
 * plan view uses too) must answer exactly as the canonical comparison does, for values of one kind
 * and of two.
 */
import { describe, expect, it } from 'vitest';
import { isUnchanged, serializeAlike } from '../../src/plan/compare.js';
import { canonicalJson } from '../../src/util/hash.js';

const values: unknown[] = ['', 'a', 'A', '1', 'true', 'null', `${'long prompt line '.repeat(200)}\n`, 0, -0, 1, 1.5, -2, NaN, Infinity, -Infinity, true, false, undefined, [], ['a'], {}, { a: 1, b: [true] }, { b: [true], a: 1 }, new Date(0), '1970-01-01T00:00:00.000Z'];

describe('isUnchanged and serializeAlike (the plan view\'s comparison of redacted sides)', () => {
  it('answers as canonical JSON does for every pair of values, shortcuts included', () => {
    for (const desired of values) {
      for (const live of [...values, null]) {
        expect(isUnchanged(desired, live), `${String(desired)} against ${String(live)}`).toBe(canonicalJson(desired) === canonicalJson(live));
        expect(serializeAlike(live, desired), `${String(live)} against ${String(desired)}`).toBe(canonicalJson(desired) === canonicalJson(live));
      }
    }
  });

  it('takes a desired null as "unset" too', () => {
    expect(isUnchanged(null, undefined)).toBe(true);
    expect(isUnchanged(null, null)).toBe(true);
    expect(isUnchanged(null, 'x')).toBe(false);
    expect(isUnchanged(null, 0)).toBe(false);
  });

  it('takes a desired null as matching an empty object: what is left of one holding only fields the service sets, which null leaves there', () => {
    expect(isUnchanged(null, {})).toBe(true);
    expect(isUnchanged(null, { message: 'Leave a message' })).toBe(false);
    expect(isUnchanged(null, [])).toBe(false);
  });
});
