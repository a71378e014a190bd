import { describe, expect, it } from 'vitest';
import { printable, printableKeepingLines, toJsonText } from '../../src/util/printable.js';

describe('printable', () => {
  it.each([
    ['plain text and Unicode stay', 'Hello, café — 9 to 5 ✓', 'Hello, café — 9 to 5 ✓'],
    ['a tab stays', 'a\tb', 'a\tb'],
    ['ESC and BEL as JSON writes them', 'x\u001b]0;PWNED\u0007', 'x\\u001b]0;PWNED\\u0007'],
    ['line breaks as JSON writes them', 'a\nb\r\n', 'a\\nb\\r\\n'],
    ['NUL and backspace', '\u0000\b', '\\u0000\\b'],
    ['DEL and the C1 controls, which JSON leaves raw', '\u007f\u0085\u009b31m', '\\u007f\\u0085\\u009b31m'],
    ['zero-width characters, the soft hyphen and U+FEFF (format characters)', 'a\u200bb\u2060c\u00add\ufeffe\u200df', 'a\\u200bb\\u2060c\\u00add\\ufeffe\\u200df'],
    ['tag characters, which spell hidden text, as their UTF-16 units', 'Hi\u{e0049}\u{e007f}', 'Hi\\udb40\\udc49\\udb40\\udc7f'],
    ['emoji sequences joined by U+200D stay whole, skin tones and U+FE0F too', '👩‍💻 ❤️‍🔥 👩🏽‍💻', '👩‍💻 ❤️‍🔥 👩🏽‍💻'],
    ['variation selectors that pick an emoji, a keycap or an ideograph\'s look stay', '☺️ 1️⃣ 葛\u{e0100}', '☺️ 1️⃣ 葛\u{e0100}'],
    ['variation selectors after anything else (hidden bytes) are escaped', 'asked.\ufe01\u{e0131}\ufe0f', 'asked.\\ufe01\\udb40\\udd31\\ufe0f'],
    ['characters drawn as nothing: the combining grapheme joiner and the Hangul fillers', 'a\u034fb\u3164c\u115f', 'a\\u034fb\\u3164c\\u115f'],
  ])('%s', (_name, text, expected) => {
    expect(printable(text)).toBe(expected);
  });
});

describe('printableKeepingLines', () => {
  it('keeps line breaks and tabs, and escapes every other control character as printable does', () => {
    expect(printableKeepingLines('one\n\ttwo\r\nx\u001b[2J\u0007\u009b31m')).toBe('one\n\ttwo\\r\nx\\u001b[2J\\u0007\\u009b31m');
  });
});

describe('toJsonText', () => {
  it('escapes invisible characters as valid JSON that reads back the same value', () => {
    const value = { text: 'a\u200b\u{e0041}👩‍💻' };
    const json = toJsonText(value);
    expect(json).toBe('{"text":"a\\u200b\\udb40\\udc41👩‍💻"}');
    expect(JSON.parse(json)).toEqual(value);
  });
});
