import { describe, expect, it } from 'vitest';
import { renderPlanMarkdown } from '../../src/plan/render-markdown.js';
import { formatCount, plural, pluralNoun, pluralWithArticle, someOf, wordList } from '../../src/util/plural.js';
import { planOf } from '../helpers/plan.js';

describe('plural', () => {
  it.each([
    [0, 'agent', undefined, '0 agents'],
    [1, 'agent', undefined, '1 agent'],
    [2, 'agent', undefined, '2 agents'],
    [1, 'reply', 'replies', '1 reply'],
    [3, 'reply', 'replies', '3 replies'],
    [1234, 'call', undefined, '1,234 calls'],
  ])('%d %s → %s', (count, one, many, expected) => {
    expect(plural(count, one, many)).toBe(expected);
  });

  it('groups a count as the en-US locale does, for every size and sign', () => {
    for (const count of [0, 7, 999, 1000, 15_000, 123_456, 1_000_000, 987_654_321, -1234, Number.MAX_SAFE_INTEGER, 1.5, 1234.25]) {
      expect(formatCount(count)).toBe(count.toLocaleString('en-US'));
    }
  });

  it('gives the noun alone for counts shown elsewhere', () => {
    expect(pluralNoun(1, 'it', 'them')).toBe('it');
    expect(pluralNoun(2, 'it', 'them')).toBe('them');
  });

  it('a plan of one unchanged resource says "1 resource checked"', () => {
    const text = renderPlanMarkdown(planOf([], { summary: { create: 0, update: 0, unchanged: 1, drifted: 0 } }));
    expect(text).toContain('(1 resource checked)');
  });

  it('gives one an article where the count reads as prose', () => {
    expect(pluralWithArticle(1, 'phone number')).toBe('a phone number');
    expect(pluralWithArticle(1, 'e-mail address', 'e-mail addresses')).toBe('an e-mail address');
    expect(pluralWithArticle(1, 'URL')).toBe('a URL');
    expect(pluralWithArticle(1200, 'URL')).toBe('1,200 URLs');
  });

  it('lists words with "or" or "and", and names the first few of many', () => {
    expect([[], ['a'], ['a', 'b'], ['a', 'b', 'c']].map((items) => wordList(items, 'or'))).toEqual(['', 'a', 'a or b', 'a, b or c']);
    expect(wordList(['a', 'b', 'c'], 'and')).toBe('a, b and c');
    expect(someOf(['a', 'b'], 2)).toBe('a, b');
    expect(someOf(['a', 'b', 'c', 'd'], 2)).toBe('a, b and 2 more');
    // Items that may hold commas themselves (sentences) are set apart another way.
    expect(someOf(['a, x', 'b', 'c'], 2, '; ')).toBe('a, x; b and 1 more');
    // Items on lines of their own: the count on a line of its own too.
    expect(someOf(['a', 'b', 'c', 'd'], 2, '\n  ')).toBe('a\n  b\n  …and 2 more');
  });
});
