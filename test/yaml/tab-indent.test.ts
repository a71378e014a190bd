/**
 * Where a tab-indented line's content most likely starts is read from the line before it, which a
 * pull request writes: it takes time in proportion to the line, whatever blanks it holds.
 */
import { describe, expect, it } from 'vitest';
import { indentAfter } from '../../src/yaml/tab-indent.js';

/** The line's end as the pattern from each blank on read it: what it must keep giving. */
function indentByPattern(line: string): number {
  const content = /^ *(?:- +)*/.exec(line)?.[0].length ?? 0;
  const withoutComment = line.trimEnd().replace(/\s+#.*$/, '').trimEnd();
  return /(:|[|>][-+]?)$/.test(withoutComment) ? content + 2 : content;
}

describe('indentAfter', () => {
  it('reads a line as the comment pattern did: blanks, tabs, comments, block scalars and list marks', () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const pieces = [' ', '  ', '\t', '#', ' #', 'a', 'key', ':', '|', '>', '-', '- ', '+', 'x: y', '\u00a0'];
    for (let i = 0; i < 5000; i++) {
      const line = Array.from({ length: Math.floor(next() * 10) }, () => pieces[Math.floor(next() * pieces.length)]).join('');
      expect([line, indentAfter(line)]).toEqual([line, indentByPattern(line)]);
    }
  });

  it('reads a line of a million blanks before its text, and one before its comment', () => {
    const blanks = ' '.repeat(1_000_000);
    expect(indentAfter(`  key:${blanks}value`)).toBe(2);
    expect(indentAfter(`  key:${blanks}# a comment`)).toBe(4);
  });
});
