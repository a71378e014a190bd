import { setMaxListeners } from 'node:events';
import { STATUS_CODES } from 'node:http';
import { Readable } from 'node:stream';
import { REDACTED } from '../secrets/redact.js';
import { ApiError, errorCode, errorFromResponse, errorFromTransport, isTlsError, scrub, transportReason, type FailureContext, type TransportFailure } from './errors.js';
import { CLIENT_DESTROYED_CODE, HttpTransport, isTimeout, NOT_SENT_CODE, readBodyText, RESPONSE_TOO_LARGE_CODE, type HttpRequest, type HttpResponse, type HttpStreamResponse } from './http.js';
import { backoffDelay, isConnectionError, mayHaveActed, parseRetryAfter, shouldRetry, writeMayHaveLanded, type BackoffOptions, type RetryMode } from './retry.js';

/** An attempt is about to be sent (for progress displays and debugging). */
export interface RequestEvent {
  method: string;
  /** Path as sent, without the base URL or the query. */
  path: string;
  /** 1 for the first try. */
  attempt: number;
}

/** An attempt finished: with a status, or with a transport error (`status` undefined). */
export interface ResponseEvent extends RequestEvent {
  status: number | undefined;
  durationMs: number;
  /** Set when no answer arrived: `timeout` or the connection error's code. */
  failure?: string;
}

/** An attempt failed and another follows after `delayMs`. */
export interface RetryEvent extends RequestEvent {
  /** Why: `503 Service Unavailable`, `429 Too Many Requests`, `ECONNRESET`, `timeout`, … */
  reason: string;
  status: number | undefined;
  /** The wait before the next attempt: the service's Retry-After when it sent one, else the backoff. */
  delayMs: number;
  /** The service's Retry-After, in ms, when it sent one (already capped). */
  retryAfterMs: number | undefined;
}

interface RequesterOptions {
  transport: HttpTransport;
  /** Validated base URL, no trailing slash; may carry a path prefix. */
  baseUrl: string;
  apiKey: string;
  timeoutMs: number;
  retries: number;
  backoff: BackoffOptions;
  userAgent: string;
  debug: ((line: string) => void) | undefined;
  /** Scrubs the caller's other secrets from what the service echoes (`ClientOptions.redact`). */
  redact: ((text: string) => string) | undefined;
  onRequest: ((event: RequestEvent) => void) | undefined;
  onResponse: ((event: ResponseEvent) => void) | undefined;
  onRetry: ((event: RetryEvent) => void) | undefined;
  /** `ClientOptions.onWriteSent`: told of each attempt of an operation not safe to repeat as it is sent. */
  onWriteSent: ((ifInterrupted: () => ApiError) => () => void) | undefined;
  /** Waits between attempts; ends early (resolving or rejecting) once `signal` aborts. */
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  random: () => number;
  /** Withdraws every request of this requester still waiting for a slot once it aborts (`withSignal`). */
  signal?: AbortSignal | undefined;
  /** `signal` cuts short the requests on the wire too (`withSignal`'s `abortOnTheWire`). */
  abortOnTheWire?: boolean | undefined;
  /** Told as each attempt leaves the queue for the wire, with its path (`withOnSent`). */
  onSent?: ((path: string) => void) | undefined;
}

/** One logical request: the attempts it may take and how its body and failures are built. */
export interface Exchange {
  method: HttpRequest['method'];
  /** Path below the base URL, ids already encoded. */
  path: string;
  query?: Record<string, string | number | boolean | undefined> | undefined;
  /** A JSON body (serialized once, resent as is on a retry). */
  json?: unknown;
  /** A body built afresh for every attempt (streams cannot be replayed), with its own headers. */
  body?: () => { body: string | Uint8Array | Readable; headers: Record<string, string> };
  retry: RetryMode;
  /** An absolute URL instead of base URL + path (the presigned upload target); no `authorization` is sent there. */
  absoluteUrl?: URL;
  accept?: string;
  notFoundHint?: string;
  /** Builds the error for a non-2xx answer instead of the service-style one (the storage upload). */
  describeFailure?: (status: number, body: string, attempts: number) => ApiError;
  /**
   * Makes nothing the service shows (the storage upload: a knowledge file exists once `create_file`
   * names it): its failure never says the service may have applied it.
   */
  preparesOnly?: boolean;
  /** Runs before each retry; `true` counts the request as done (an attempt whose answer was lost got through). */
  alreadyDone?: () => Promise<boolean>;
  /** For an operation not safe to repeat: how the user sees whether an attempt whose answer was lost got through. */
  checkOutcome?: string;
}


/**
 * The attempt loop of every operation: URL and headers, debug lines, hooks, and retries as the
 * exchange's `RetryMode` allows. The API key goes nowhere but the `authorization` header.
 */
export class Requester {
  private readonly origin: string;
  private readonly prefix: string;
  /** A private field: the API key in it stays out of `console.log` and `JSON.stringify` of the client. */
  readonly #options: RequesterOptions;

  constructor(options: RequesterOptions) {
    this.#options = options;
    const url = new URL(options.baseUrl);
    this.origin = url.origin;
    this.prefix = url.pathname.replace(/\/+$/, '');
  }

  get transport(): HttpTransport {
    return this.#options.transport;
  }

  /** For an error the client makes of an answer itself: what it scrubs from the service's echo (the key, the caller's other secrets). */
  answerContext(method: string, path: string): FailureContext {
    return { method, path, attempts: 1, secret: this.#options.apiKey, redact: this.#options.redact };
  }

  /**
   * The same requester, whose requests `signal` withdraws while they wait for a slot (and stops
   * retrying); with `abortOnTheWire`, it cuts short those on the wire too.
   */
  withSignal(signal: AbortSignal, options: { abortOnTheWire?: boolean } = {}): Requester {
    return new Requester({ ...this.#options, signal: unlimitedListeners(signal), abortOnTheWire: options.abortOnTheWire === true });
  }

  /** The same requester, telling `onSent` as each attempt of its requests leaves the queue for the wire, with its path. */
  withOnSent(onSent: (path: string) => void): Requester {
    return new Requester({ ...this.#options, onSent });
  }

  /** Sends with retries; resolves to a 2xx answer (body read whole), or throws an `ApiError`. */
  async send(exchange: Exchange): Promise<HttpResponse | undefined> {
    return (await this.attempts(exchange, false)) as HttpResponse | undefined;
  }

  /** Like `send`, but a 2xx answer comes back with its body open (server-sent events): consume or destroy it. */
  async stream(exchange: Exchange): Promise<HttpStreamResponse> {
    const response = (await this.attempts(exchange, true)) as HttpStreamResponse | undefined;
    if (!response) throw new Error('a streamed exchange cannot be settled by alreadyDone');
    return { ...response, body: Readable.from(this.translateBodyFailures(exchange, response.body), { objectMode: false }) };
  }

  /**
   * The body of a streamed answer, a failure on the way turned into the `ApiError` a failed request
   * gets. The service answered: a connection lost now cut its answer off (`cut_off`), it was reached.
   */
  private async *translateBodyFailures(exchange: Exchange, body: Readable): AsyncGenerator<Buffer> {
    try {
      for await (const chunk of body) yield chunk as Buffer;
    } catch (error) {
      const kind = failureKind(error);
      if (kind === undefined) throw error;
      throw this.transportError(kind === 'connection' ? 'cut_off' : kind, exchange, this.target(exchange), 1, error);
    } finally {
      if (!body.destroyed) body.destroy();
    }
  }

  /**
   * `timeoutMs` bounds the whole request: each attempt's time on the wire counts, the waits for a slot
   * and between attempts do not. A service that never answers costs one time-out, not one per attempt.
   */
  private async attempts(exchange: Exchange, streaming: boolean): Promise<HttpResponse | HttpStreamResponse | undefined> {
    const target = this.target(exchange);
    const json = exchange.json === undefined ? undefined : JSON.stringify(exchange.json);
    const maxAttempts = this.#options.retries + 1;
    const transport = this.#options.transport;
    let timeLeftMs = this.#options.timeoutMs;
    // A write one attempt may have delivered stays "may have applied" whatever the later ones meet:
    // a refused connection or a 429 after a dropped one says nothing of what the first did.
    let earlierAttemptMayHaveLanded = false;
    const mayHaveLanded = (failure: Parameters<typeof writeMayHaveLanded>[1]) => !exchange.preparesOnly && writeMayHaveLanded(exchange.method, failure);
    for (let attempt = 1; ; attempt++) {
      const request = this.buildRequest(exchange, target, json, timeLeftMs);
      let sentAt: number | undefined;
      let ended: (() => void) | undefined;
      request.onDispatch = (atMs) => {
        sentAt = atMs;
        this.#options.onSent?.(exchange.path);
        if (exchange.retry === 'refused-only') ended = this.#options.onWriteSent?.(() => this.transportError('interrupted', exchange, target, attempt, undefined, true));
      };
      const event: RequestEvent = { method: exchange.method, path: target.displayPath, attempt };
      this.#options.onRequest?.(event);
      // Debug lines are built only when someone reads them: this loop is the hot path of 500-agent plans.
      if (this.#options.debug) this.log(`→ ${exchange.method} ${target.logUrl} (attempt ${attempt}${streaming ? ', streaming' : ''}) ${this.describeHeaders(request.headers)}`);
      const started = performance.now();
      let response: HttpResponse | HttpStreamResponse | undefined;
      let failure: unknown;
      try {
        response = streaming ? await transport.stream(request) : await transport.send(request);
      } catch (error) {
        failure = error;
      } finally {
        ended?.();
      }
      const endedAt = performance.now();
      const durationMs = Math.round(endedAt - started);
      if (sentAt !== undefined) timeLeftMs -= endedAt - sentAt;
      const mayRetry = attempt < maxAttempts && timeLeftMs >= 1;

      if (response) {
        // Written out rather than spread from `event`: a spread costs microseconds, on every attempt.
        this.#options.onResponse?.({ method: event.method, path: event.path, attempt, status: response.status, durationMs });
        if (this.#options.debug) this.logResponse(exchange, target, response, durationMs);
        if (response.status >= 200 && response.status < 300) return response;
        const body = typeof response.body === 'string' ? response.body : await readBodyText(response.body);
        if (mayRetry && shouldRetry(exchange.retry, { status: response.status })) {
          earlierAttemptMayHaveLanded ||= mayHaveLanded({ status: response.status });
          const retryAfterMs = parseRetryAfter(response.headers['retry-after'], Date.now(), this.#options.backoff.maxRetryAfterMs);
          if (await this.pause(exchange, event, `${response.status} ${STATUS_CODES[response.status] ?? ''}`.trim(), response.status, retryAfterMs, earlierAttemptMayHaveLanded)) return undefined;
          continue;
        }
        if (exchange.describeFailure) throw exchange.describeFailure(response.status, body, attempt);
        const answered = { status: response.status };
        throw errorFromResponse(response.status, body, {
          ...this.failureContext(exchange, target, attempt),
          mayHaveActed: mayHaveActed(exchange.retry, answered),
          mayHaveApplied: mayHaveLanded(answered),
          earlierAttemptMayHaveLanded,
        });
      }

      const kind = failureKind(failure);
      const code = kind === 'timeout' ? 'timeout' : (errorCode(failure) ?? 'error');
      this.#options.onResponse?.({ method: event.method, path: event.path, attempt, status: undefined, durationMs, failure: code });
      if (this.#options.debug) this.log(`✗ ${exchange.method} ${target.logUrl} after ${durationMs} ms: ${kind === 'timeout' ? 'timeout' : transportReason(failure)}`);
      if (kind === undefined) throw failure; // a bug or a local problem (a file read), not the network
      // A time-out is not retried: the attempt was given all the time that was left.
      if (mayRetry && kind === 'connection' && shouldRetry(exchange.retry, { error: failure })) {
        earlierAttemptMayHaveLanded ||= mayHaveLanded({ timedOut: false, error: failure });
        if (await this.pause(exchange, event, code, undefined, undefined, earlierAttemptMayHaveLanded)) return undefined;
        continue;
      }
      // Not safe to repeat, and it may have reached the service: "try again" could do it twice. An
      // interrupted attempt may have too, once it was handed to the connection.
      const reachable = kind === 'timeout' || kind === 'connection' || (kind === 'interrupted' && sentAt !== undefined);
      const unanswered = { timedOut: kind === 'timeout', error: failure };
      const uncertain = reachable && mayHaveActed(exchange.retry, unanswered);
      const landed = reachable && mayHaveLanded(unanswered);
      throw this.transportError(kind, exchange, target, attempt, failure, uncertain, landed, earlierAttemptMayHaveLanded);
    }
  }

  /** The debug log's line of an answer: its status, how long it took and, when read whole, its size. */
  private logResponse(exchange: Exchange, target: { logUrl: string }, response: HttpResponse | HttpStreamResponse, durationMs: number): void {
    const size = typeof response.body === 'string' ? ` (${Buffer.byteLength(response.body)} bytes)` : '';
    this.log(`← ${response.status} ${exchange.method} ${target.logUrl} in ${durationMs} ms${size}`);
  }

  private transportError(
    kind: TransportFailure,
    exchange: Exchange,
    target: { origin: string; displayPath: string },
    attempts: number,
    cause: unknown,
    mayHaveActedOnIt = false,
    mayHaveApplied = false,
    earlierAttemptMayHaveLanded = false,
  ): ApiError {
    return errorFromTransport(kind, {
      ...this.failureContext(exchange, target, attempts),
      mayHaveActed: mayHaveActedOnIt,
      mayHaveApplied,
      earlierAttemptMayHaveLanded,
      origin: target.origin,
      timeoutMs: this.#options.timeoutMs,
      maxResponseBytes: this.#options.transport.maxResponseBytes,
      cause,
    });
  }

  /** Writes a debug line, scrubbed of the key whatever it holds (callers check `debug` first on hot paths). */
  log(line: string): void {
    if (this.#options.debug) this.#options.debug(`[voxform api] ${scrub(line, this.#options.apiKey)}`);
  }

  private async pause(exchange: Exchange, event: RequestEvent, reason: string, status: number | undefined, retryAfterMs: number | undefined, earlierAttemptMayHaveLanded: boolean): Promise<boolean> {
    const delayMs = retryAfterMs ?? backoffDelay(event.attempt, this.#options.backoff, this.#options.random);
    this.#options.onRetry?.({ ...event, reason, status, delayMs, retryAfterMs });
    this.log(`↻ ${event.method} ${event.path}: ${reason}; attempt ${event.attempt + 1} in ${delayMs} ms${retryAfterMs === undefined ? '' : ' (Retry-After)'}`);
    const stopped = await this.waitToRetry(delayMs);
    if (stopped) throw this.transportError(stopped, exchange, this.target(exchange), event.attempt, reason, false, false, earlierAttemptMayHaveLanded);
    if (exchange.alreadyDone && (await exchange.alreadyDone())) {
      this.log(`✓ ${event.method} ${event.path}: already done, not sent again`);
      return true;
    }
    return false;
  }

  /**
   * The wait before a retry, ended at once by the signal (a stopping run: `not_retried`) or by the
   * transport's destruction (an interrupted run: `interrupted`). A request waiting to be retried is
   * not on the wire, so a stop has nothing to wait for.
   */
  private async waitToRetry(delayMs: number): Promise<'not_retried' | 'interrupted' | undefined> {
    const destroyed = this.#options.transport.stopped;
    const stop = this.#options.signal ? AbortSignal.any([this.#options.signal, destroyed]) : destroyed;
    if (!stop.aborted) {
      await this.#options.sleep(delayMs, stop).catch((error: unknown) => {
        if (!stop.aborted) throw error;
      });
    }
    if (destroyed.aborted) return 'interrupted';
    return stop.aborted ? 'not_retried' : undefined;
  }

  private target(exchange: Exchange): { origin: string; path: string; displayPath: string; logUrl: string } {
    if (exchange.absoluteUrl) {
      const url = exchange.absoluteUrl;
      // A presigned target's query is its signature: keep it on the wire, out of the logs.
      return { origin: url.origin, path: `${url.pathname}${url.search}`, displayPath: url.pathname, logUrl: `${url.origin}${url.pathname}` };
    }
    const query = buildQuery(exchange.query);
    const path = `${this.prefix}${exchange.path}${query}`;
    return { origin: this.origin, path, displayPath: exchange.path, logUrl: `${this.origin}${path}` };
  }

  private buildRequest(exchange: Exchange, target: { origin: string; path: string }, json: string | undefined, timeLeftMs: number): HttpRequest {
    const headers: Record<string, string> = { 'user-agent': this.#options.userAgent, accept: exchange.accept ?? 'application/json' };
    if (!exchange.absoluteUrl) headers.authorization = this.#options.apiKey;
    let body: HttpRequest['body'];
    if (json !== undefined) {
      headers['content-type'] = 'application/json';
      body = json;
    } else if (exchange.body) {
      const built = exchange.body();
      Object.assign(headers, built.headers);
      body = built.body;
    }
    // undici reads a time-out of 0 as "none".
    return { origin: target.origin, path: target.path, method: exchange.method, headers, body, timeoutMs: Math.max(1, Math.ceil(timeLeftMs)), signal: this.#options.signal, abortOnTheWire: this.#options.abortOnTheWire };
  }

  private describeHeaders(headers: Record<string, string>): string {
    const shown = Object.entries(headers).map(([name, value]) => `${name}: ${name === 'authorization' ? REDACTED : value}`);
    return `{${shown.join(', ')}}`;
  }

  private failureContext(exchange: Exchange, target: { displayPath: string }, attempts: number) {
    return { ...this.answerContext(exchange.method, target.displayPath), attempts, notFoundHint: exchange.notFoundHint, checkOutcome: exchange.checkOutcome };
  }
}

function buildQuery(query: Exchange['query']): string {
  if (!query) return '';
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) if (value !== undefined) params.append(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** What kind of network failure ended an attempt; undefined when it was not the network (a bug, a local file). */
function failureKind(error: unknown): TransportFailure | undefined {
  if (isTimeout(error)) return 'timeout';
  const code = errorCode(error);
  if (code === CLIENT_DESTROYED_CODE) return 'interrupted';
  if (code === NOT_SENT_CODE) return 'not_sent';
  if (code === RESPONSE_TOO_LARGE_CODE) return 'too_large';
  if (code === 'EMFILE' || code === 'ENFILE') return 'too_many_files';
  if (isTlsError(error)) return 'tls';
  if (isConnectionError(error)) return 'connection';
  if (code !== undefined && (code.startsWith('UND_ERR_') || code.startsWith('HPE_') || code === 'ENOTFOUND')) return 'connection';
  return undefined;
}

/** A relay of `signal` without a listener limit: every request waiting for a slot listens (Node warns past 10). */
function unlimitedListeners(signal: AbortSignal): AbortSignal {
  const relay = new AbortController();
  setMaxListeners(0, relay.signal);
  if (signal.aborted) relay.abort(signal.reason);
  else signal.addEventListener('abort', () => relay.abort(signal.reason), { once: true });
  return relay.signal;
}
