import { describe, expect, it } from 'vitest';
import { printable, printableKeepingLines } from '../../src/util/printable.js';

describe('printable', () => {
  it.each([
    ['plain text and Unicode stay', 'Hello, café — 9 to 5 ✓', 'Hello, café — 9 to 5 ✓'],
    ['a tab stays', 'a\tb', 'a\tb'],
    ['ESC and BEL as JSON writes them', 'x\u001b]0;PWNED\u0007', 'x\\u001b]0;PWNED\\u0007'],
    ['line breaks as JSON writes them', 'a\nb\r\n', 'a\\nb\\r\\n'],
    ['NUL and backspace', '\u0000\b', '\\u0000\\b'],
    ['DEL and the C1 controls, which JSON leaves raw', '\u007f\u0085\u009b31m', '\\u007f\\u0085\\u009b31m'],
  ])('%s', (_name, text, expected) => {
    expect(printable(text)).toBe(expected);
  });
});

describe('printableKeepingLines', () => {
  it('keeps line breaks and tabs, and escapes every other control character as printable does', () => {
    expect(printableKeepingLines('one\n\ttwo\r\nx\u001b[2J\u0007\u009b31m')).toBe('one\n\ttwo\\r\nx\\u001b[2J\\u0007\\u009b31m');
  });
});
