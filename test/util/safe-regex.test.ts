import { describe, expect, it } from 'vitest';
import { compileRegex, MAX_REGEX_BRANCH_POINTS, nestedQuantifierAt } from '../../src/util/safe-regex.js';

describe('nestedQuantifierAt: a repeated group that itself repeats', () => {
  it.each([
    ['^/(a+)+$', 2],
    ['(a*)*', 0],
    ['^/x/(?:a|b*){2,}$', 4],
    ['((ab)*c)*', 0],
    ['(a{1,5})+', 0],
    ['^(\\w+\\s?)+$', 1],
    ['((a)+)+', 0],
  ])('%s is refused at %i', (source, at) => {
    expect(nestedQuantifierAt(source)).toBe(at);
  });

  it.each([
    '^/agents/[^/]+$',
    'call-histories$',
    '^/(agents|phones)/[a-z]+$',
    '(ab)+',
    '(a+)?',
    '(a+)b+',
    '\\(a+\\)+',
    '[(a+)]+',
    '(?:a+?)',
    '^/phones/\\+[0-9]{6,14}(/set_agent)?$',
  ])('%s is accepted', (source) => {
    expect(nestedQuantifierAt(source)).toBeUndefined();
  });
});

describe('compileRegex: a pattern from a checkout', () => {
  it(`refuses more than ${MAX_REGEX_BRANCH_POINTS} quantifiers, which a time limit cannot stop in time (a? fifty times ran for minutes past 250 ms)`, () => {
    expect(compileRegex('a?'.repeat(MAX_REGEX_BRANCH_POINTS))).toBeInstanceOf(RegExp);
    expect(compileRegex(`${'a?'.repeat(50)}aaaaaaaaaa`)).toBe(
      `its quantifiers and alternatives make 50 branch points (each ?, *, + and {…} one; a group of k alternatives log2 k, rounded up), more than the ${MAX_REGEX_BRANCH_POINTS} voxform runs: the engine checks a match's time limit too seldom in such a pattern to stop it in time; write it with fewer, or split it into several patterns`,
    );
  });

  it.each([
    ['(a|) forty-six times, which is a? without a quantifier', `${'(a|)'.repeat(46)}${'a'.repeat(46)}`, 46],
    ['(?:a|)', `${'(?:a|)'.repeat(46)}${'a'.repeat(46)}`, 46],
    ['(|a)', `${'(|a)'.repeat(21)}a`, 21],
    ['(a||b), two a group', `${'(a||b)'.repeat(11)}a`, 22],
    ['(a|ab) with a tail', `^${'(a|ab)'.repeat(21)}c$`, 21],
    ['alternatives and quantifiers together', `${'(a|b)'.repeat(11)}${'x?'.repeat(10)}`, 21],
    ['ten groups of 24 alternatives, five a group', `${`(${Array(24).fill('a').join('|')})`.repeat(10)}`, 50],
  ])('counts each group of k alternatives as log2 k branch points: %s is refused', (_name, source, count) => {
    expect(compileRegex(source)).toMatch(new RegExp(`^its quantifiers and alternatives make ${count} branch points`));
  });

  it('accepts a word list however long, and a | escaped or in a class', () => {
    expect(compileRegex('^(yes|no|maybe|sure|okay)[.!]?$')).toBeInstanceOf(RegExp);
    expect(compileRegex(`\\b(${Array.from({ length: 60 }, (_, i) => `word${i}`).join('|')})\\b`)).toBeInstanceOf(RegExp);
    expect(compileRegex(Array.from({ length: 60 }, (_, i) => `top${i}`).join('|'))).toBeInstanceOf(RegExp);
    expect(compileRegex('(a|b)'.repeat(MAX_REGEX_BRANCH_POINTS))).toBeInstanceOf(RegExp);
    expect(compileRegex(`(${Array(24).fill('a').join('|')})`.repeat(4))).toBeInstanceOf(RegExp);
    expect(compileRegex(`${'\\|[|]'.repeat(30)}`)).toBeInstanceOf(RegExp);
  });

  it('counts quantifiers: not escaped or class characters, nor a lazy ? or the ? of a group', () => {
    // x+? x*? x{2,}? twenty-one times: 21 quantifiers, their lazy marks not counted.
    expect(compileRegex('(?:x+?)'.repeat(7) + 'x*?'.repeat(7) + 'x{2,}?'.repeat(7))).toMatch(/^its quantifiers and alternatives make 21 branch points/);
    expect(compileRegex(`${'\\?[?*+]'.repeat(30)}(?<name>a)(?=b)(?!c)`)).toBeInstanceOf(RegExp);
  });

  it("still says what the engine says of an invalid one", () => {
    expect(compileRegex('(unclosed')).toBe('/(unclosed/: Unterminated group');
  });
});
