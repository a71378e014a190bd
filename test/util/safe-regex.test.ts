import { describe, expect, it } from 'vitest';
import { compileRegex, MAX_REGEX_QUANTIFIERS, nestedQuantifierAt } from '../../src/util/safe-regex.js';

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
  it(`refuses more than ${MAX_REGEX_QUANTIFIERS} quantifiers, which a time limit cannot stop in time (a? fifty times ran for minutes past 250 ms)`, () => {
    expect(compileRegex('a?'.repeat(MAX_REGEX_QUANTIFIERS))).toBeInstanceOf(RegExp);
    expect(compileRegex(`${'a?'.repeat(50)}aaaaaaaaaa`)).toBe(
      `it has 50 quantifiers (?, *, + and {…}), more than the ${MAX_REGEX_QUANTIFIERS} voxform runs: the engine checks a match's time limit too seldom in such a pattern to stop it in time; simplify it`,
    );
  });

  it('counts quantifiers only: not escaped or class characters, nor a lazy ? or the ? of a group', () => {
    // x+? x*? x{2,}? twenty-one times: 21 quantifiers, their lazy marks not counted.
    expect(compileRegex('(?:x+?)'.repeat(7) + 'x*?'.repeat(7) + 'x{2,}?'.repeat(7))).toMatch(/^it has 21 quantifiers/);
    expect(compileRegex(`${'\\?[?*+]'.repeat(30)}(?<name>a)(?=b)(?!c)`)).toBeInstanceOf(RegExp);
  });

  it("still says what the engine says of an invalid one", () => {
    expect(compileRegex('(unclosed')).toBe('/(unclosed/: Unterminated group');
  });
});
