import { describe, expect, it } from 'vitest';
import { parseRequestTarget } from '../../src/util/request-target.js';

describe('parseRequestTarget (the emulator and webhook serve)', () => {
  it.each([
    ['/agents', { ok: true, path: '/agents', decodedPath: '/agents', search: '' }],
    ['/phones/%2B15551230001?limit=5&x=%zz', { ok: true, path: '/phones/%2B15551230001', decodedPath: '/phones/+15551230001', search: 'limit=5&x=%zz' }],
    ['/a//b', { ok: true, path: '/a//b', decodedPath: '/a//b', search: '' }],
  ])('takes %s as a path and its query, still encoded', (raw, expected) => {
    expect(parseRequestTarget(raw)).toEqual(expected);
  });

  it.each([
    ['//[', 'The request target is not a valid URL.'],
    ['http://[', 'The request target must be a path, such as /agents.'],
    ['*', 'The request target must be a path, such as /agents.'],
    ['http://evil.example/x', 'The request target must be a path, such as /agents.'],
    ['//evil.example/x', 'The request target must be a path, such as /agents.'],
    ['', 'The request target must be a path, such as /agents.'],
    [undefined, 'The request target must be a path, such as /agents.'],
    ['/%zz', 'The request path holds a malformed percent-escape.'],
    ['/agents/%E0%A4%A', 'The request path holds a malformed percent-escape.'],
  ])('refuses %s', (raw, message) => {
    expect(parseRequestTarget(raw)).toEqual({ ok: false, message });
  });
});
