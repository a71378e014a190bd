import { describe, expect, it } from 'vitest';
import { shorten } from '../../src/util/shorten.js';
import { quote } from '../../src/util/describe-value.js';
import { shortenRedacted, keepText } from '../../src/secrets/redact.js';

/** A UTF-16 unit of a surrogate pair without its other half: what shows as �. */
const LONE_SURROGATE = /(?:[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff])/;

describe('shorten, the one way quoted text is cut', () => {
  it.each([
    ['short text stays as it is', 'abc', 5, 'abc'],
    ['ASCII is cut with an ellipsis within the budget', 'abcdefgh', 5, 'abcd…'],
    ['an emoji is never cut in half', 'aa😀😀😀', 4, 'aa…'],
    ['an emoji that fits stays whole', 'aa😀😀😀', 6, 'aa😀…'],
    ['a joined emoji is kept or left out whole', 'a👩‍💻b', 5, 'a…'],
    ['a flag is kept or left out whole', 'a🇯🇵🇯🇵', 6, 'a🇯🇵…'],
    ['a letter keeps its combining accent', 'ae\u0301e\u0301', 3, 'a…'],
    ['one character longer than the budget is cut between code points', '😀\u0301\u0301xxxxx', 3, '😀…'],
  ])('%s', (_name, text, max, expected) => {
    const shown = shorten(text, max);
    expect(shown).toBe(expected);
    expect(shown.length).toBeLessThanOrEqual(Math.max(max, 1));
    expect(shown).not.toMatch(LONE_SURROGATE);
  });

  it.each([
    ['ASCII is cut within the bytes, the ellipsis counted as its three', 'abcdefgh', 6, 'abc…'],
    ['a joined emoji is kept or left out whole', 'abc👩‍👩‍👧👩‍👩‍👧', 24, 'abc👩‍👩‍👧…'],
    ['a joined emoji one byte too long is left out whole', 'abc👩‍👩‍👧👩‍👩‍👧', 23, 'abc…'],
    ['a flag is kept or left out whole', 'a🇯🇵🇯🇵', 11, 'a…'],
  ])('by UTF-8 bytes (a pull-request comment\'s size): %s', (_name, text, max, expected) => {
    const shown = shorten(text, max, 'bytes');
    expect(shown).toBe(expected);
    expect(Buffer.byteLength(shown)).toBeLessThanOrEqual(max);
  });

  it('is what a message quotes a long value with, and what a redacted quote is cut by', () => {
    const value = `aa${'😀'.repeat(40)}`;
    for (const shown of [quote(value), shortenRedacted(value, 41, keepText)]) {
      expect(shown).not.toMatch(LONE_SURROGATE);
      expect(shown).toContain('😀…');
    }
  });
});
