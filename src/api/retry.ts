import { errorCode } from './errors.js';

/**
 * When a request is repeated. `safe` (GET, PUT, idempotent POSTs): on 429, 502–504 and connection
 * errors. `refused-only` (POSTs that create something): only when the service certainly did not
 * act, a 429 or a connection never established; a 5xx, a dropped connection or a time-out leaves
 * the outcome unknown. A time-out is never retried: it bounds the whole request.
 */
export type RetryMode = 'safe' | 'refused-only';

/** Tunables of the backoff; the defaults suit the hosted service. */
export interface BackoffOptions {
  /** First backoff ceiling (ms); the n-th retry waits a random time in [0, min(maxMs, baseMs·2ⁿ⁻¹)]. Default 250. */
  baseMs?: number;
  /** Largest backoff ceiling (ms). Default 8,000. */
  maxMs?: number;
  /** Longest `Retry-After` honoured (ms); a longer one is waited this long. Default 60,000. */
  maxRetryAfterMs?: number;
}

const DEFAULT_BACKOFF: Required<BackoffOptions> = { baseMs: 250, maxMs: 8_000, maxRetryAfterMs: 60_000 };

/** Statuses worth another attempt: the service is busy or a gateway in front of it is. */
const RETRYABLE_STATUSES: ReadonlySet<number> = new Set([429, 502, 503, 504]);

/** Connection failures after which the request may not have reached the service. */
const CONNECTION_CODES: ReadonlySet<string> = new Set([
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

/** Failures where the request certainly never left this machine. */
const NOT_SENT_CODES: ReadonlySet<string> = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENETDOWN', 'EAI_AGAIN', 'ENOTFOUND']);

export function isConnectionError(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && CONNECTION_CODES.has(code);
}

/** Whether another attempt may follow a failed one, given how the operation may be repeated. */
export function shouldRetry(mode: RetryMode, failure: { status?: number; error?: unknown }): boolean {
  if (failure.status !== undefined) return mode === 'refused-only' ? failure.status === 429 : RETRYABLE_STATUSES.has(failure.status);
  // Never sent (when not safe to repeat), and a failure another attempt may not meet (a host that does not resolve will not).
  return isConnectionError(failure.error) && (mode !== 'refused-only' || certainlyNotSent(failure.error));
}

/**
 * Whether the service may have acted on a failed request, so that it is `api_outcome_unknown` and
 * "try again" could do it twice. Only an operation not safe to repeat (`refused-only`) asks. The
 * service promises nothing about what it did before a 5xx (docs/service-api.md, Errors): only a 429
 * says it refused the request unhandled. A time-out may come after the service acted; a connection
 * failure too, unless the request certainly never left this machine.
 */
export function mayHaveActed(mode: RetryMode, failure: Failure): boolean {
  return mode === 'refused-only' && serviceMayHaveActed(failure);
}

/**
 * Whether a failed write (any method but a read's) may have been applied: the service answered it
 * with a 5xx (it promises nothing about what it did before failing), or it got no answer, timing out
 * or losing its connection once it may have left this machine. One rule for every write, whatever it
 * changes: one not safe to repeat is `api_outcome_unknown` (`mayHaveActed`); any other keeps its code
 * and says so.
 */
export function writeMayHaveLanded(method: string, failure: Failure): boolean {
  return method !== 'GET' && method !== 'HEAD' && serviceMayHaveActed(failure);
}

type Failure = { status: number } | { timedOut: boolean; error: unknown };

/** The rule both ask: a 5xx answer, a time-out, or a connection failure once the request may have left this machine. */
function serviceMayHaveActed(failure: Failure): boolean {
  return 'status' in failure ? failure.status >= 500 : failure.timedOut || !certainlyNotSent(failure.error);
}

/** A connection failure after which the request certainly never left this machine. */
function certainlyNotSent(error: unknown): boolean {
  const code = errorCode(error);
  return code !== undefined && NOT_SENT_CODES.has(code);
}

/**
 * The wait before retry number `retry` (1-based): full jitter, a uniform random time between 0 and
 * the exponential ceiling, which spreads a crowd of clients that failed together.
 */
export function backoffDelay(retry: number, options: BackoffOptions = {}, random: () => number = Math.random): number {
  const base = options.baseMs ?? DEFAULT_BACKOFF.baseMs;
  const max = options.maxMs ?? DEFAULT_BACKOFF.maxMs;
  const ceiling = Math.min(max, base * 2 ** Math.max(0, retry - 1));
  return Math.floor(random() * ceiling);
}

/**
 * `Retry-After` in milliseconds: delta-seconds (`"2"`, `"1.5"`) or an HTTP date, capped at
 * `maxMs`. Undefined when the header is absent or unreadable (the backoff applies then).
 */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now(), maxMs: number = DEFAULT_BACKOFF.maxRetryAfterMs): number | undefined {
  const raw = Array.isArray(value) ? value[0] : value;
  if (raw === undefined) return undefined;
  const text = raw.trim();
  if (text === '') return undefined;
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(text)) {
    ms = Number(text) * 1000;
  } else {
    // An HTTP date always names its month (`Fri, 31 Jan 2025 09:00:05 GMT`); `-1` is not one.
    if (!/[a-z]{3}/i.test(text)) return undefined;
    const date = Date.parse(text);
    if (Number.isNaN(date)) return undefined;
    ms = date - now;
  }
  return Math.min(maxMs, Math.max(0, Math.ceil(ms)));
}
