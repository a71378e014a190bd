import { describe, expect, it } from 'vitest';
import { codeFrame } from '../../src/manifest/code-frame.js';

const text = ['version: 1', 'agents:', '  a:', '    id: 5', '    name: A', 'phones: {}'].join('\n');

describe('codeFrame', () => {
  it.each([
    {
      name: 'two lines of context each side, caret under the column',
      line: 4,
      col: 9,
      expected: ['  2 | agents:', '  3 |   a:', '> 4 |     id: 5', '    |         ^', '  5 |     name: A', '  6 | phones: {}'],
    },
    {
      name: 'the first line has no lines before it',
      line: 1,
      col: 1,
      expected: ['> 1 | version: 1', '    | ^', '  2 | agents:', '  3 |   a:'],
    },
    {
      name: 'the last line has no lines after it',
      line: 6,
      col: 9,
      expected: ['  4 |     id: 5', '  5 |     name: A', '> 6 | phones: {}', '    |         ^'],
    },
  ])('$name', ({ line, col, expected }) => {
    expect(codeFrame(text, line, col).split('\n')).toEqual(expected);
  });

  it('widens the gutter for two-digit line numbers', () => {
    const long = Array.from({ length: 12 }, (_, i) => `k${i + 1}: v`).join('\n');
    expect(codeFrame(long, 10, 1).split('\n')).toEqual([
      '   8 | k8: v',
      '   9 | k9: v',
      '> 10 | k10: v',
      '     | ^',
      '  11 | k11: v',
      '  12 | k12: v',
    ]);
  });

  it('shows tabs as two spaces and keeps the caret under the character', () => {
    expect(codeFrame('a:\n\tb: 1', 2, 2, { context: 0 }).split('\n')).toEqual(['> 2 |   b: 1', '    |   ^']);
  });

  it('cuts a very long line to a window around the column', () => {
    const line = `prompt: ${'x'.repeat(500)}HERE${'y'.repeat(500)}`;
    const frame = codeFrame(line, 1, line.indexOf('HERE') + 1, { context: 0, maxWidth: 40 }).split('\n');
    expect(frame[0]).toMatch(/^> 1 \| …x+HEREy+…$/);
    const caretColumn = (frame[1] as string).indexOf('^');
    expect((frame[0] as string).slice(caretColumn, caretColumn + 4)).toBe('HERE');
  });

  it('measures only the part of a megabyte line around the column, cut between surrogates, the caret still under the value', () => {
    const line = `prompt: ${'😀'.repeat(300_000)}HERE${'y'.repeat(600_000)}`;
    const frame = codeFrame(line, 1, line.indexOf('HERE') + 1, { context: 0, maxWidth: 40 }).split('\n');
    expect(frame[0]).toMatch(/^> 1 \| …(😀)+HEREy+…$/u);
    const caretCells = (frame[1] as string).indexOf('^') - '  1 | '.length;
    const before = (frame[0] as string).slice('> 1 | '.length, (frame[0] as string).indexOf('HERE'));
    expect(caretCells).toBe(1 + ([...before].length - 1) * 2);
  });

  it('puts the caret under the value on a terminal after wide characters, emoji and combining accents', () => {
    // Each text with the cells a terminal draws it in: CJK and emoji two each, an accent none.
    for (const [before, cells] of [['受付です', 8], ['😀👩‍💻', 4], ['cafe\u0301e\u0301', 5]] as const) {
      const line = `config: { first_message: "${before}", llm: { temperature: "hot" } }`;
      const [shown, caret] = codeFrame(line, 1, line.indexOf('"hot"') + 1, { context: 0 }).split('\n') as [string, string];
      expect(caret.indexOf('^')).toBe(shown.indexOf('"hot"') - before.length + cells);
    }
  });

  it('cuts a long line of wide characters and emoji between characters, the caret still under the value', () => {
    const line = `prompt: ${'受😀'.repeat(100)}HERE${'😀y'.repeat(100)}`;
    const [shown, caret] = codeFrame(line, 1, line.indexOf('HERE') + 1, { context: 0, maxWidth: 40 }).split('\n') as [string, string];
    expect(shown).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
    const before = shown.slice(0, shown.indexOf('HERE'));
    expect([...before].reduce((sum, ch) => sum + (/[受😀]/u.test(ch) ? 2 : 1), 0)).toBe(caret.indexOf('^'));
    expect([...shown.slice(6)].reduce((sum, ch) => sum + (/[受😀]/u.test(ch) ? 2 : 1), 0)).toBeLessThanOrEqual(42);
  });

  it('ignores CR of CRLF line ends', () => {
    expect(codeFrame('a: 1\r\nb: x\r\n', 2, 4, { context: 0 })).toBe('> 2 | b: x\n    |    ^');
  });
});

describe('codeFrame at the end of a file', () => {
  it('does not show the empty line after a final newline', () => {
    expect(codeFrame('a: 1\nb: 2\n', 2, 1)).toBe('  1 | a: 1\n> 2 | b: 2\n    | ^');
  });

  it('shows it when the position is on it', () => {
    expect(codeFrame('a: 1\n', 2, 1)).toBe('  1 | a: 1\n> 2 |\n    | ^');
  });

  it('frames an empty file', () => {
    expect(codeFrame('', 1, 1)).toBe('> 1 |\n    | ^');
  });
});
