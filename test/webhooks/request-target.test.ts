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
    ['//[', 'The request target is not a valid URL.', '//['],
    ['http://[', 'The request target must be a path, such as /agents.', 'http://['],
    ['*', 'The request target must be a path, such as /agents.', '*'],
    ['http://evil.example/x', 'The request target must be a path, such as /agents.', 'http://evil.example/x'],
    ['//evil.example/x', 'The request target must be a path, such as /agents.', '//evil.example/x'],
    ['', 'The request target must be a path, such as /agents.', ''],
    [undefined, 'The request target must be a path, such as /agents.', ''],
    ['/%zz', 'The request path holds a malformed percent-escape.', '/%zz'],
    ['/agents/%E0%A4%A', 'The request path holds a malformed percent-escape.', '/agents/%E0%A4%A'],
    ['//hooks/pre?customer_id=c-42', 'The request target must be a path, such as /agents.', '//hooks/pre'],
    ['/%zz/pre?customer_id=c-42', 'The request path holds a malformed percent-escape.', '/%zz/pre'],
  ])('refuses %s, keeping its path without the query', (raw, message, path) => {
    expect(parseRequestTarget(raw)).toEqual({ ok: false, message, path });
  });
});
