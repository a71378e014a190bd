import { describe, expect, it } from 'vitest';
import { ApiError, errorFromResponse, parseErrorBody, requestInvalid } from '../../src/api/errors.js';
import { VoxformError } from '../../src/errors.js';
import { normalizeBaseUrl, resolveBaseUrl } from '../../src/api/regions.js';
import { mimeTypeFor } from '../../src/util/mime.js';
import { nextUp } from '../../src/api/client.js';

const KEY = 'sk9ZqT4mW2xV7bN1cR5yH8jL3pF6dG0a';
const ctx = { method: 'GET', path: '/agents/-OKdqbqetEcM4ak369ym', attempts: 1, secret: KEY, notFoundHint: 'Check the agent id in your manifest.' };

describe('errorFromResponse', () => {
  it('404: code, sentence and hint', () => {
    const error = errorFromResponse(404, '{"detail":"Not found"}', ctx);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toBeInstanceOf(VoxformError);
    expect(error.code).toBe('api_not_found');
    expect(error.message).toBe('GET /agents/-OKdqbqetEcM4ak369ym failed: the service answered 404 Not found.');
    expect(error.hint).toBe('Check the agent id in your manifest.');
    expect(error).toMatchObject({ status: 404, method: 'GET', path: '/agents/-OKdqbqetEcM4ak369ym', detail: 'Not found', loc: [] });
  });

  it('422: the issues, their loc lists and a hint about the header', () => {
    const body = JSON.stringify({ detail: [{ type: 'missing', loc: ['header', 'authorization'], msg: 'Field required' }, { type: 'string_type', loc: ['body', 'config', 'tools', 0, 'name'], msg: 'Input should be a valid string' }] });
    const error = errorFromResponse(422, body, { ...ctx, method: 'PUT' });
    expect(error.code).toBe('api_validation');
    expect(error.loc).toEqual([['header', 'authorization'], ['body', 'config', 'tools', 0, 'name']]);
    expect(error.detail).toBe('header.authorization: Field required; body.config.tools.0.name: Input should be a valid string');
    expect(error.message).toContain('PUT /agents/-OKdqbqetEcM4ak369ym failed: the service answered 422 header.authorization: Field required;');
    expect(error.hint).toBe('Set VOXFORM_API_KEY to your private key.');
  });

  it.each([
    [401, 'api_unauthorized'],
    [403, 'api_unauthorized'],
    [409, 'api_error'],
    [429, 'api_rate_limited'],
    [500, 'api_unavailable'],
    [503, 'api_unavailable'],
  ])('%d → %s', (status, code) => {
    expect(errorFromResponse(status, '', ctx).code).toBe(code);
  });

  it('a status HTTP names no reason for, answered without words, is said as its number alone', () => {
    expect(errorFromResponse(499, '', ctx).message).toBe('GET /agents/-OKdqbqetEcM4ak369ym failed: the service answered 499.');
    expect(errorFromResponse(499, '', { ...ctx, attempts: 3 }).message).toBe('GET /agents/-OKdqbqetEcM4ak369ym failed: the service answered 499 (after 3 attempts).');
    expect(errorFromResponse(599, '{"detail":"overloaded"}', ctx).message).toBe('GET /agents/-OKdqbqetEcM4ak369ym failed: the service answered 599 overloaded.');
  });

  it('gives every refusal a hint: a body too large says to send less, any other 4xx to check what was sent', () => {
    const tooLarge = errorFromResponse(413, '{"detail":"Request body too large (at most 1048576 bytes)"}', { ...ctx, method: 'POST', path: '/chat/completions' });
    expect(tooLarge.code).toBe('api_error');
    expect(tooLarge.hint).toBe('What was sent is larger than the service takes: send less (a shorter prompt, message or conversation), then run again.');
    for (const status of [400, 405, 409, 410]) expect(errorFromResponse(status, '', ctx).hint, String(status)).toMatch(/^The service refused the request as sent/);
  });

  it('scrubs the key when the service echoes it back', () => {
    const error = errorFromResponse(401, JSON.stringify({ detail: `Invalid key ${KEY}` }), ctx);
    expect(error.message).not.toContain(KEY);
    expect(error.detail).not.toContain(KEY);
    expect(JSON.stringify(error.details)).not.toContain(KEY);
    expect(error.message).toContain('Invalid key (sensitive)');
  });

  it('a detail that ends a sentence of its own is not given a second full stop', () => {
    const detail = 'The agent model failed: The model at http://127.0.0.1:1/v1 failed: Connection error.';
    expect(errorFromResponse(422, JSON.stringify({ detail }), ctx).message).toBe(`GET /agents/-OKdqbqetEcM4ak369ym failed: the service answered 422 ${detail}`);
    const chat = errorFromResponse(502, JSON.stringify({ detail }), { ...ctx, method: 'POST', path: '/chat/completions', mayHaveActed: true });
    expect(chat.message).toBe('POST /chat/completions failed: the service answered 502 The agent model failed: The model at http://127.0.0.1:1/v1 failed: Connection error: the service may have acted on it.');
  });

  it('counts the attempts and shows the number in the path readably', () => {
    const error = errorFromResponse(503, '<html>busy</html>', { ...ctx, method: 'POST', path: '/phones/%2B15551230001/set_agent', attempts: 5 });
    expect(error.message).toBe('POST /phones/+15551230001/set_agent failed: the service answered 503 Service Unavailable (after 5 attempts).');
    expect(error.path).toBe('/phones/%2B15551230001/set_agent');
  });
});

describe('requestInvalid', () => {
  it('names the first five issues and counts the rest as every list does', () => {
    const issues = Array.from({ length: 1005 }, (_, i) => ({ path: ['config', `field${i}`], message: 'must be string' }));
    expect(requestInvalid('PUT /agents/{id}', issues).message).toBe(
      'voxform built an invalid request for PUT /agents/{id}: config.field0 must be string; config.field1 must be string; config.field2 must be string; config.field3 must be string; config.field4 must be string and 1,000 more.',
    );
    expect(requestInvalid('PUT /agents/{id}', issues.slice(0, 2)).message).toBe('voxform built an invalid request for PUT /agents/{id}: config.field0 must be string; config.field1 must be string.');
  });
});

describe('parseErrorBody', () => {
  it.each([
    ['', undefined],
    ['"nope"', 'nope'],
    ['{"message":"quota exceeded"}', 'quota exceeded'],
    ['{"error":"bad"}', 'bad'],
    ['plain words', 'plain words'],
    ['<html><body>502</body></html>', undefined],
  ])('%j → %j', (body, detail) => {
    expect(parseErrorBody(body).detail).toBe(detail);
  });
});

describe('regions and base URLs', () => {
  it('maps the presets and lets a base URL win', () => {
    expect(resolveBaseUrl({})).toBe('https://api-west.millis.ai');
    expect(resolveBaseUrl({ region: 'us' })).toBe('https://api-west.millis.ai');
    expect(resolveBaseUrl({ region: 'eu' })).toBe('https://api-eu-west.millis.ai');
    expect(resolveBaseUrl({ region: 'eu', baseUrl: 'http://127.0.0.1:4010/' })).toBe('http://127.0.0.1:4010');
    expect(normalizeBaseUrl('https://proxy.example.com/voice/', 'The base URL given')).toBe('https://proxy.example.com/voice');
  });

  it.each([
    ['api.example.com', 'it is not an absolute URL'],
    ['ftp://example.com', 'it must start with http:// or https://'],
    ['https://example.com/?x=1', 'it must not carry a query or a fragment'],
    ['https://user:pw@example.com', 'credentials do not belong in the URL; set VOXFORM_API_KEY'],
  ])('refuses %j with a clear error that names where it came from, not the value', (raw, problem) => {
    expect(() => normalizeBaseUrl(raw, 'The value given to --base-url')).toThrowError(
      expect.objectContaining({ code: 'base_url_invalid', message: `The value given to --base-url is not usable: ${problem}.` }) as Error,
    );
  });

  it('refuses an unknown region', () => {
    expect(() => resolveBaseUrl({ region: 'ap' })).toThrowError(/Unknown region "ap": use us or eu\./);
  });
});

describe('mimeTypeFor', () => {
  it.each([
    ['faq.pdf', 'application/pdf'],
    ['NOTES.MD', 'text/markdown'],
    ['prices.csv', 'text/csv'],
    ['deck.pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
    ['blob', 'application/octet-stream'],
    ['archive.xyz', 'application/octet-stream'],
  ])('%s → %s', (name, type) => {
    expect(mimeTypeFor(name)).toBe(type);
  });
});

describe('nextUp', () => {
  it('is the next representable number above a timestamp', () => {
    for (const ts of [1, 1738314000, 1738314000.123, 1e12]) {
      const up = nextUp(ts);
      expect(up).toBeGreaterThan(ts);
      expect((ts + up) / 2 === ts || (ts + up) / 2 === up).toBe(true);
      expect(Number(String(up))).toBe(up); // survives the query string
    }
  });
});
