/**
 * The emulator's `json_invalid` position: the first character that cannot continue the body as JSON,
 * the body's length when it ends too soon, counted in characters; never a guess from JSON.parse's message.
 */
import { describe, expect, it } from 'vitest';
import { jsonErrorPosition } from '../../src/util/json-error-position.js';

describe('jsonErrorPosition', () => {
  it.each([
    ['{"name": x}', 9],
    ['{"type": ', 9],
    ['', 0],
    ['   ', 3],
    ['{} x', 3],
    ['{"a":1}}', 7],
    ['{"a', 3],
    ['{x', 1],
    ['{"a":1,}', 7],
    ['[1,]', 3],
    ['[1 2]', 3],
    ['{"a" 1}', 5],
    ['{"a":tru}', 8],
    ['nul', 3],
    ['{"a":01}', 6],
    ['{"a":1.}', 7],
    ['{"a":1e}', 7],
    ['-', 1],
    ['{"a":"\u0001"}', 6],
    ['{"a":"\\q"}', 7],
    ['{"a":"\\u12g4"}', 10],
    ['\ufeff{}', 0],
    ["{'a': 1}", 1],
    ['{"a": NaN}', 6],
    // Characters, not UTF-16 units: the emoji before the mistake counts once.
    ['{"p": "😀", x}', 11],
  ])('%j: at %i, where JSON.parse refuses it too', (body, position) => {
    expect(() => JSON.parse(body)).toThrow();
    expect(jsonErrorPosition(body)).toBe(position);
  });

  it.each([
    '{}',
    ' [ ] ',
    '{"name": "Front desk", "config": {"llm": {"temperature": 0.4, "max_tokens": 1e3}, "tools": [true, false, null, -0.5E-2]}}',
    '"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9 😀"',
    '0',
    '\r\n\t{"a":[[], {}]}\n',
  ])('%j is JSON', (body) => {
    expect(() => JSON.parse(body)).not.toThrow();
    expect(jsonErrorPosition(body)).toBeUndefined();
  });
});
