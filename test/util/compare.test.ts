import { describe, expect, it } from 'vitest';
import { byCodeUnits } from '../../src/util/compare.js';

describe('byCodeUnits', () => {
  it('orders as sort() does, upper case before lower and whatever the locale', () => {
    const names = ['b', 'a', 'B', 'é', 'e', '😀', '\uFFFF', 'a'];
    expect([...names].sort(byCodeUnits)).toEqual([...names].sort());
    expect([...names].sort(byCodeUnits)).toEqual(['B', 'a', 'a', 'b', 'e', 'é', '😀', '\uFFFF']);
  });
});
