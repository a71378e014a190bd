import { describe, expect, it } from 'vitest';
import { jsonEqual, objectsEqualExcept } from '../../src/util/json-equal.js';

describe('jsonEqual', () => {
  it('compares parsed JSON values deeply, key order ignored', () => {
    const a = JSON.parse('{"x":1,"y":[{"z":null},"s",true],"w":{"v":2}}') as unknown;
    expect(jsonEqual(a, JSON.parse('{"w":{"v":2},"y":[{"z":null},"s",true],"x":1}'))).toBe(true);
    expect(jsonEqual(a, JSON.parse('{"x":1,"y":[{"z":0},"s",true],"w":{"v":2}}'))).toBe(false);
    expect(jsonEqual(a, JSON.parse('{"x":1,"y":[{"z":null},"s"],"w":{"v":2}}'))).toBe(false);
    expect(jsonEqual(a, JSON.parse('{"x":1,"y":[{"z":null},"s",true],"w":{"v":2},"u":1}'))).toBe(false);
    expect(jsonEqual({ a: [] }, { a: {} })).toBe(false);
    expect(jsonEqual({ a: 1 }, { b: 1 })).toBe(false);
    expect(jsonEqual('1', 1)).toBe(false);
  });

  it('leaves out one key when asked', () => {
    expect(objectsEqualExcept({ prompt: 'a', tools: [1] }, { tools: [1], prompt: 'b' }, 'prompt')).toBe(true);
    expect(objectsEqualExcept({ prompt: 'a', tools: [1] }, { tools: [1] }, 'prompt')).toBe(true);
    expect(objectsEqualExcept({ prompt: 'a', tools: [1] }, { tools: [2], prompt: 'a' }, 'prompt')).toBe(false);
    expect(objectsEqualExcept({ prompt: 'a', tools: [1] }, { tools: [1], prompt: 'a', voice: {} }, 'prompt')).toBe(false);
  });
});
