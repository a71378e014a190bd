import { describe, expect, it } from 'vitest';
import { nestedQuantifierAt } from '../../src/util/safe-regex.js';

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
