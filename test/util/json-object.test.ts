import { describe, expect, it } from 'vitest';
import { cloneJson, splitTopLevelNulls } from '../../src/util/json-object.js';

describe('cloneJson', () => {
  it('copies a JSON value deeply: equal, and sharing nothing with the original', () => {
    const original = { a: 1, b: [true, null, { c: 'x' }], d: { e: { f: 2.5 } }, s: 'text' };
    const copy = cloneJson(original);
    expect(copy).toEqual(original);
    expect(copy).not.toBe(original);
    expect(copy.b).not.toBe(original.b);
    expect(copy.b[2]).not.toBe(original.b[2]);
    copy.d.e.f = 3;
    (copy.b[2] as { c: string }).c = 'changed';
    expect(original.d.e.f).toBe(2.5);
    expect((original.b[2] as { c: string }).c).toBe('x');
    for (const scalar of ['s', 0, false, null, undefined]) expect(cloneJson(scalar)).toBe(scalar);
  });

  it('copies a key named __proto__ as a key, never as the copy\'s prototype', () => {
    const value = JSON.parse('{"headers":{"__proto__":{"x":"1"},"a":"2"}}');
    const copy = cloneJson(value);
    expect(JSON.stringify(copy)).toBe('{"headers":{"__proto__":{"x":"1"},"a":"2"}}');
    expect(Object.getPrototypeOf(copy.headers)).toBe(Object.prototype);
    expect(JSON.stringify(splitTopLevelNulls(JSON.parse('{"__proto__":{"x":1},"gone":null}')))).toBe('{"rest":{"__proto__":{"x":1}},"removed":["gone"]}');
  });

  it('leaves behind what is not an own enumerable property, as structuredClone does (a manifest value’s positions)', () => {
    const hidden = Symbol('spans');
    const value = { a: { b: 1 } };
    Object.defineProperty(value.a, hidden, { value: 'positions', enumerable: false });
    Object.defineProperty(value, 'invisible', { value: 1, enumerable: false });
    const copy = cloneJson(value);
    expect(Object.getOwnPropertySymbols(copy.a)).toEqual([]);
    expect(Object.getOwnPropertyNames(copy)).toEqual(['a']);
    expect(copy).toEqual(structuredClone(value));
  });
});
