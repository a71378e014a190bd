import { describe, expect, it } from 'vitest';
import { inChunks, jsonPieces } from '../../src/util/json-pieces.js';
import { toJsonText } from '../../src/util/printable.js';

describe('jsonPieces', () => {
  const value = {
    list: [1, undefined, () => 1, Symbol('s'), { inner: [], empty: {} }, [], 'x\u0085 ##[y'],
    left: undefined,
    date: new Date(0),
    own: { toJSON: () => 'as written' },
    deep: { a: { b: [{ c: 'line\nbreak' }] } },
    '\u0085key': 1,
    empty: {},
    none: [],
  };

  it('joined, write what toJsonText writes of the whole value, however many levels are opened', () => {
    for (const levels of [0, 1, 2, 3, 6]) {
      expect([...jsonPieces(value, levels)].join(''), `levels ${levels}`).toBe(toJsonText(value, 2));
      for (const scalar of ['text', 0, null, [], {}]) expect([...jsonPieces(scalar, levels)].join('')).toBe(toJsonText(scalar, 2));
    }
  });

  it('write what JSON.stringify writes with its serializer', () => {
    const stringify = (item: unknown, indent: number) => JSON.stringify(item, null, indent);
    for (const levels of [1, 3]) expect([...jsonPieces(value, levels, stringify)].join('')).toBe(JSON.stringify(value, null, 2));
  });

  it('write a value below the levels opened as one piece', () => {
    const pieces = [...jsonPieces({ a: { long: 'x'.repeat(1000) }, b: ['y'.repeat(1000)] }, 1)];
    for (const long of ['x'.repeat(1000), 'y'.repeat(1000)]) expect(pieces.filter((piece) => piece.includes(long[0]!))).toEqual([expect.stringContaining(long)]);
  });
});

describe('inChunks', () => {
  it('joins small pieces into chunks and never cuts a piece', () => {
    const pieces = ['a'.repeat(20_000), 'b'.repeat(20_000), 'c', 'd'.repeat(40_000), 'e'];
    const chunks = [...inChunks(pieces)];
    expect(chunks).toEqual([`${'a'.repeat(20_000)}${'b'.repeat(20_000)}`, `c${'d'.repeat(40_000)}`, 'e']);
  });
});
