import { describe, expect, it } from 'vitest';
import { decodeUtf8, firstInvalidByte } from '../../src/project-files/decode.js';

const bytes = (...values: number[]) => Uint8Array.from(values);
const text = (value: string) => new TextEncoder().encode(value);

describe('firstInvalidByte', () => {
  it.each([
    { name: 'ASCII', input: text('abc'), expected: -1 },
    { name: 'multi-byte characters', input: text('héllo → 日本 🎉'), expected: -1 },
    { name: 'a lone continuation byte', input: bytes(0x61, 0x80), expected: 1 },
    { name: 'Latin-1 é', input: bytes(0x63, 0x61, 0x66, 0xe9), expected: 3 },
    { name: 'a truncated sequence', input: bytes(0x61, 0xe2, 0x82), expected: 1 },
    { name: 'an overlong encoding', input: bytes(0xc0, 0xaf), expected: 0 },
    { name: 'a UTF-16 surrogate', input: bytes(0xed, 0xa0, 0x80), expected: 0 },
    { name: 'beyond U+10FFFF', input: bytes(0xf4, 0x90, 0x80, 0x80), expected: 0 },
    { name: '0xFF', input: bytes(0x41, 0xff), expected: 1 },
  ])('$name → $expected', ({ input, expected }) => {
    expect(firstInvalidByte(input)).toBe(expected);
  });
});

describe('decodeUtf8', () => {
  const NOT_UTF8 = 'is not valid UTF-8 text; save it as UTF-8';

  it('drops a byte-order mark', () => {
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x61))).toEqual({ text: 'a', problem: undefined });
  });

  it('gives the offset in characters of the first bad byte', () => {
    const input = Uint8Array.from([...text('日本\n'), 0xff, ...text('x')]);
    expect(decodeUtf8(input)).toEqual({ text: '日本\n\uFFFDx', problem: { at: 3, message: NOT_UTF8 } });
  });

  it('says a NUL byte is a NUL character, where it is, and that UTF-16 shows as them: the file is valid UTF-8', () => {
    const nul = 'holds a NUL character at line 2, column 8, which no text file holds; remove it (a file saved as UTF-16 has one beside every letter: save it as UTF-8)';
    expect(decodeUtf8(text('version: 1\nname: A\0B\n')).problem).toEqual({ at: 18, message: nul });
    const utf16 = Uint8Array.from([...'ab:'].flatMap((c) => [c.charCodeAt(0), 0]));
    expect(decodeUtf8(utf16).problem).toEqual({ at: 1, message: expect.stringContaining('holds a NUL character at line 1, column 2') });
  });

  it('says a file starting with a UTF-16 byte order mark is UTF-16, in either byte order', () => {
    const utf16 = 'is UTF-16 text (it starts with a UTF-16 byte order mark); save it as UTF-8';
    const little = Uint8Array.from([0xff, 0xfe, ...[...'a: 1'].flatMap((c) => [c.charCodeAt(0), 0])]);
    const big = Uint8Array.from([0xfe, 0xff, ...[...'a: 1'].flatMap((c) => [0, c.charCodeAt(0)])]);
    expect(decodeUtf8(little).problem).toEqual({ at: 0, message: utf16 });
    expect(decodeUtf8(big).problem).toEqual({ at: 0, message: utf16 });
    // Only at the start: the same bytes later are a bad byte of a UTF-8 file.
    expect(decodeUtf8(Uint8Array.from([0x61, 0xff, 0xfe])).problem).toEqual({ at: 1, message: NOT_UTF8 });
  });

  it('reports whichever comes first, a NUL or a byte that is not UTF-8', () => {
    expect(decodeUtf8(Uint8Array.from([0x61, 0xff, 0x00])).problem).toEqual({ at: 1, message: NOT_UTF8 });
    expect(decodeUtf8(Uint8Array.from([0x61, 0x00, 0xff])).problem?.message).toMatch(/^holds a NUL character at line 1, column 2/);
  });
});
