import { describe, expect, it } from 'vitest';
import { JsonCounter, overrunOf } from '../../src/util/json-budget.js';

/** Values counted in `text` under a budget it stays within. */
function valuesOf(text: string): number {
  const counter = new JsonCounter({ maxValues: 1_000, maxDepth: 10 });
  expect(counter.feed(Buffer.from(text))).toBeUndefined();
  return counter.values;
}

describe('the JSON budget', () => {
  it.each([
    ['{}', 1],
    ['[]', 1],
    ['[{},{},{}]', 4],
    ['{"a":{},"b":[]}', 3],
    ['{"a":1,"b":"x","c":[true,false,null,-1.5e3]}', 8],
    ['"a string with {[,:]} and \\"quotes\\" inside"', 1],
    ['{"key \\" {": "value \\\\"}', 2],
    [' [ 1 , 2 ,\n3 ] ', 4],
    ['{"é":"ü","ж":[ "—" ]}', 4],
  ])('%s holds %i values (keys are not counted)', (text, values) => {
    expect(valuesOf(text)).toBe(values);
  });

  it('counts the same across any split of the bytes', () => {
    const text = Buffer.from('{"a":[1,22,"x\\"y"],"bb":{"c":true},"d":"é"}');
    const whole = valuesOf(text.toString());
    for (let cut = 0; cut <= text.length; cut++) {
      const counter = new JsonCounter({ maxValues: 1_000, maxDepth: 10 });
      counter.feed(text, 0, cut);
      counter.feed(text, cut);
      expect(counter.values).toBe(whole);
    }
  });

  it.each([
    ['[{},{},{}]', { maxValues: 3, maxDepth: 10 }, { limit: 'values', max: 3, at: 7 }],
    ['[{},{},{}]', { maxValues: 4, maxDepth: 10 }, undefined],
    ['[[[]]]', { maxValues: 100, maxDepth: 2 }, { limit: 'depth', max: 2, at: 2 }],
    ['["é",[[]]]', { maxValues: 100, maxDepth: 2 }, { limit: 'depth', max: 2, at: 7 }],
    ['[[[]]]', { maxValues: 100, maxDepth: 3 }, undefined],
    ['[[],[],[]]', { maxValues: 100, maxDepth: 2 }, undefined],
    ['"[[[[[["', { maxValues: 100, maxDepth: 1 }, undefined],
  ])('%s within %j: %j', (text, budget, overrun) => {
    expect(overrunOf(text, budget)).toEqual(overrun);
  });

  it('stops at the value past the limit, whatever follows', () => {
    const text = Buffer.from(`[${'{},'.repeat(1_000)}{}]`);
    const counter = new JsonCounter({ maxValues: 10, maxDepth: 10 });
    expect(counter.feed(text)).toEqual({ limit: 'values', max: 10, at: 28 });
    expect(counter.values).toBe(11);
  });

  it('places the byte that passed a limit from the first byte fed, across pieces', () => {
    const text = Buffer.from('[1,2,3,4,5]');
    const counter = new JsonCounter({ maxValues: 4, maxDepth: 10 });
    expect(counter.feed(text, 0, 4)).toBeUndefined();
    expect(counter.feed(text.subarray(4))).toEqual({ limit: 'values', max: 4, at: 7 });
  });
});
