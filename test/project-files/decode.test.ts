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
  it('drops a byte-order mark', () => {
    expect(decodeUtf8(bytes(0xef, 0xbb, 0xbf, 0x61))).toEqual({ text: 'a', invalidAt: undefined });
  });

  it('gives the offset in characters of the first bad byte', () => {
    const input = Uint8Array.from([...text('日本\n'), 0xff, ...text('x')]);
    expect(decodeUtf8(input)).toEqual({ text: '日本\n\uFFFDx', invalidAt: 3 });
  });

  it('takes a NUL byte for a sign of another encoding (UTF-16 without a byte-order mark), at the first one', () => {
    const utf16 = Uint8Array.from([...'ab:'].flatMap((c) => [c.charCodeAt(0), 0]));
    expect(decodeUtf8(utf16).invalidAt).toBe(1);
    expect(decodeUtf8(Uint8Array.from([0x61, 0xff, 0x00])).invalidAt).toBe(1);
  });
});
