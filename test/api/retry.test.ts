import { describe, expect, it } from 'vitest';
import { backoffDelay, mayHaveActed, parseRetryAfter, shouldRetry } from '../../src/api/retry.js';

const connection = (code: string) => Object.assign(new Error(code), { code });

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-01-31T09:00:00Z');
  it.each([
    ['2', 2000],
    ['0', 0],
    ['1.5', 1500],
    [' 3 ', 3000],
    ['Fri, 31 Jan 2025 09:00:05 GMT', 5000],
    ['Fri, 31 Jan 2025 08:59:00 GMT', 0], // in the past: go now
    ['3600', 60_000], // capped
  ])('%j → %d ms', (header, expected) => {
    expect(parseRetryAfter(header, now)).toBe(expected);
  });

  it.each([[undefined], [''], ['soon'], ['-1']])('%j → undefined (the backoff applies)', (header) => {
    expect(parseRetryAfter(header, now)).toBeUndefined();
  });

  it('takes the first of repeated headers and honours a custom cap', () => {
    expect(parseRetryAfter(['4', '9'], now, 10_000)).toBe(4000);
    expect(parseRetryAfter('20', now, 10_000)).toBe(10_000);
  });
});

describe('backoffDelay (full jitter)', () => {
  it('draws between 0 and an exponential ceiling capped at maxMs', () => {
    const ceilings = [1, 2, 3, 4, 5, 6, 7].map((retry) => backoffDelay(retry, { baseMs: 100, maxMs: 1000 }, () => 0.999999));
    expect(ceilings).toEqual([99, 199, 399, 799, 999, 999, 999]);
    expect(backoffDelay(3, { baseMs: 100, maxMs: 1000 }, () => 0)).toBe(0);
    expect(backoffDelay(2, { baseMs: 100, maxMs: 1000 }, () => 0.5)).toBe(100);
  });
});

describe('shouldRetry', () => {
  it.each([
    // mode, failure, expected
    ['safe', { status: 429 }, true],
    ['safe', { status: 502 }, true],
    ['safe', { status: 503 }, true],
    ['safe', { status: 504 }, true],
    ['safe', { status: 500 }, false],
    ['safe', { status: 404 }, false],
    ['safe', { status: 422 }, false],
    ['safe', { error: connection('ECONNRESET') }, true],
    ['safe', { error: connection('UND_ERR_SOCKET') }, true],
    ['safe', { error: connection('ECONNREFUSED') }, true],
    ['safe', { error: connection('ENOTFOUND') }, false],
    ['refused-only', { status: 429 }, true],
    ['refused-only', { status: 503 }, false],
    ['refused-only', { status: 502 }, false],
    ['refused-only', { error: connection('ECONNREFUSED') }, true],
    ['refused-only', { error: connection('ECONNRESET') }, false],
    ['refused-only', { error: connection('UND_ERR_SOCKET') }, false],
    ['refused-only', { error: connection('ENOTFOUND') }, false], // never sent, and another attempt meets the same name

  ] as const)('%s %o → %s', (mode, failure, expected) => {
    expect(shouldRetry(mode, failure)).toBe(expected);
  });

  it('finds the code in a cause chain', () => {
    const wrapped = new Error('fetch failed', { cause: connection('ECONNRESET') });
    expect(shouldRetry('safe', { error: wrapped })).toBe(true);
  });
});

describe('mayHaveActed (the one rule for operations not safe to repeat)', () => {
  it.each([
    // mode, failure, expected
    ['refused-only', { status: 503 }, true],
    ['refused-only', { status: 500 }, true],
    ['refused-only', { status: 504 }, true],
    ['refused-only', { status: 429 }, false],
    ['refused-only', { status: 422 }, false],
    ['refused-only', { timedOut: true, error: connection('ERR_VOXFORM_ATTEMPT_TIMEOUT') }, true],
    ['refused-only', { timedOut: false, error: connection('ECONNRESET') }, true],
    ['refused-only', { timedOut: false, error: connection('ECONNREFUSED') }, false],
    ['refused-only', { timedOut: false, error: connection('ENOTFOUND') }, false],
    ['safe', { status: 503 }, false],
    ['safe', { timedOut: true, error: connection('ERR_VOXFORM_ATTEMPT_TIMEOUT') }, false],
  ] as const)('%s %o → %s', (mode, failure, expected) => {
    expect(mayHaveActed(mode, failure)).toBe(expected);
  });
});
