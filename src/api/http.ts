/**
 * The wire: an undici `Pool` per origin, one bound on the requests in flight across all origins, a
 * time-out per attempt and a cap on the size of an answer. One attempt; retrying is requester.ts's.
 */
import { setMaxListeners } from 'node:events';
import type { IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type { Dispatcher, Pool } from 'undici';
import { errorCode } from './errors.js';
import { Semaphore } from '../util/semaphore.js';

const ATTEMPT_TIMEOUT_CODE = 'ERR_VOXFORM_ATTEMPT_TIMEOUT';
/** Requests fail with this when the client is destroyed under them (Ctrl-C, SIGTERM). */
export const CLIENT_DESTROYED_CODE = 'ERR_VOXFORM_CLIENT_DESTROYED';
/** A request fails with this when its `signal` withdrew it before it was sent. */
export const NOT_SENT_CODE = 'ERR_VOXFORM_NOT_SENT';
/** undici's code when an answer outgrows `maxResponseBytes`. */
export const RESPONSE_TOO_LARGE_CODE = 'UND_ERR_RES_EXCEEDED_MAX_SIZE';

/** Largest JSON body the service takes in one request (docs/service-api.md, Limits): plan refuses a larger update before apply would send it. */
export const MAX_REQUEST_BODY_BYTES = 1024 * 1024;

/** Largest answer read by default (64 MiB): a list of 500 agents with long prompts is a few MiB. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/** One HTTP exchange, as the transport sends it. */
export interface HttpRequest {
  /** `https://host:port` (no path). */
  origin: string;
  /** Path and query, starting with `/`. */
  path: string;
  method: 'GET' | 'PUT' | 'POST';
  headers: Record<string, string>;
  /** A body that is sent once; a stream cannot be replayed, so retries must build a new one. */
  body?: string | Uint8Array | Readable | undefined;
  /** The longest this attempt may take once it holds a slot, the whole body of the answer included. */
  timeoutMs: number;
  /** Withdraws the request while it waits for a slot (`NOT_SENT_CODE`); one on the wire is not affected, unless `abortOnTheWire`. */
  signal?: AbortSignal | undefined;
  /** `signal` cuts the attempt short on the wire too, its answer's body included: it fails as when the client is destroyed (`CLIENT_DESTROYED_CODE`). */
  abortOnTheWire?: boolean | undefined;
  /** Told, on `performance.now()`'s clock, when the attempt left the queue (its clock started). */
  onDispatch?: (atMs: number) => void;
}

/** An answer, its body read whole as text. */
export interface HttpResponse<Body = string> {
  status: number;
  headers: IncomingHttpHeaders;
  body: Body;
}

/** An answer whose body is still arriving; its slot is held until the body ends or is destroyed. */
export type HttpStreamResponse = HttpResponse<Readable>;

/** No answer within the time-out: undici's header or body timer fired, or the attempt's own deadline passed. */
export function isTimeout(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === ATTEMPT_TIMEOUT_CODE;
}

interface HttpTransportOptions {
  /** Requests on the wire at once, across every origin; also the socket count of each pool. */
  maxInFlight: number;
  /** Connect time-out per socket (ms). */
  connectTimeoutMs: number;
  /** Largest answer body read (bytes); a larger one fails with `UND_ERR_RES_EXCEEDED_MAX_SIZE`. Default `MAX_RESPONSE_BYTES`. */
  maxResponseBytes?: number;
}

export class HttpTransport {
  private readonly pools = new Map<string, Pool>();
  private readonly slots: Semaphore;
  private closed = false;
  private destroyed = false;
  private readonly destruction = new AbortController();

  constructor(private readonly options: HttpTransportOptions) {
    this.slots = new Semaphore(options.maxInFlight);
    // Every request waiting to be retried listens.
    setMaxListeners(0, this.destruction.signal);
  }

  /** Aborts once the transport is destroyed: what waits to send again stops waiting. */
  get stopped(): AbortSignal {
    return this.destruction.signal;
  }

  /** The largest answer body this transport reads (bytes). */
  get maxResponseBytes(): number {
    return this.options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  }

  /** Sends the request and reads the whole body as text. */
  async send(request: HttpRequest): Promise<HttpResponse> {
    await this.acquire(request.signal);
    try {
      return await this.exchange(request);
    } finally {
      this.slots.release();
    }
  }

  /**
   * Sends the request and hands back the body as a stream (server-sent events), holding the slot until
   * the body ends or is destroyed. The attempt's time-out covers the body too.
   */
  async stream(request: HttpRequest): Promise<HttpStreamResponse> {
    // The whole library adds its `request` API to every dispatcher, this pool's included.
    await import('undici');
    await this.acquire(request.signal);
    let handedOver = false;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(attemptTimeoutError(request.timeoutMs)), request.timeoutMs);
    const stopListening = onStop(request, () => abort.abort(destroyedError()));
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      clearTimeout(timer);
      stopListening();
      this.slots.release();
    };
    try {
      const pool = this.pool(request.origin);
      request.onDispatch?.(performance.now());
      const pending = pool.request({ ...dispatchOptions(request), signal: abort.signal });
      // Once the time-out has passed, the request still rejects when undici gets to abort it.
      pending.catch(() => undefined);
      const response = await Promise.race([pending, rejectWhenAborted(abort.signal)]);
      const body = response.body as unknown as Readable;
      body.once('close', release);
      body.once('end', release);
      body.once('error', release);
      handedOver = true;
      return { status: response.statusCode, headers: response.headers, body };
    } finally {
      if (!handedOver) release();
    }
  }

  /** Closes every pool, letting requests already sent finish. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all(this.takePools().map((pool) => pool.close()));
  }

  /** Stops at once: requests on the wire or queued fail with `CLIENT_DESTROYED_CODE` (a stopped run must not wait). */
  async destroy(): Promise<void> {
    this.closed = true;
    this.destroyed = true;
    this.destruction.abort();
    await Promise.all(this.takePools().map((pool) => pool.destroy(destroyedError())));
  }

  private takePools(): Pool[] {
    const pools = [...this.pools.values()];
    this.pools.clear();
    return pools;
  }

  /** A slot, unless `signal` withdraws the request first (then it fails with `NOT_SENT_CODE`). */
  private async acquire(signal: AbortSignal | undefined): Promise<void> {
    if (signal?.aborted) throw notSentError();
    if (!this.slots.tryAcquire()) await this.slots.acquire(signal).catch(() => Promise.reject(notSentError()));
  }

  /** The pool of an origin (made on first use); throws once the transport is closed or destroyed. */
  private pool(origin: string): Pool {
    if (this.destroyed) throw destroyedError();
    if (this.closed) throw new Error('the API client is closed');
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new (loadPoolClass())(origin, {
        connections: this.options.maxInFlight,
        pipelining: 1,
        keepAliveTimeout: 10_000,
        connect: { timeout: this.options.connectTimeoutMs },
        maxResponseSize: this.maxResponseBytes,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** One attempt on the origin's dispatcher directly, the body's chunks gathered without a stream. */
  private exchange(request: HttpRequest): Promise<HttpResponse> {
    const pool = this.pool(request.origin);
    return new Promise<HttpResponse>((resolve, reject) => {
      let status = 0;
      let headers: IncomingHttpHeaders = {};
      const chunks: Buffer[] = [];
      let settled = false;
      let abortAttempt: ((error: Error) => void) | undefined;
      const settle = (finish: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stopListening();
        finish();
      };
      // The caller hears of the time-out or the stop at once, even while connecting (undici hands
      // out the abort handle only once the request is written).
      let cut: Error | undefined;
      const cutShort = (error: Error) => {
        cut = error;
        abortAttempt?.(error);
        settle(() => reject(error));
      };
      const timer = setTimeout(() => cutShort(attemptTimeoutError(request.timeoutMs)), request.timeoutMs);
      const stopListening = onStop(request, () => cutShort(destroyedError()));
      request.onDispatch?.(performance.now());
      pool.dispatch(dispatchOptions(request), {
        onRequestStart: (controller) => {
          abortAttempt = (error) => controller.abort(error);
          if (cut) controller.abort(cut);
        },
        onResponseStart: (_controller, statusCode, responseHeaders) => {
          status = statusCode;
          headers = responseHeaders;
        },
        onResponseData: (_controller, chunk) => {
          chunks.push(chunk);
        },
        onResponseEnd: () => settle(() => resolve({ status, headers, body: Buffer.concat(chunks).toString('utf8') })),
        onResponseError: (_controller, error) => settle(() => reject(error)),
      });
    });
  }
}

/**
 * undici's `Pool`, loaded alone: `import 'undici'` loads the whole library, most of a command's
 * start-up. The file is not public interface: should an update move it, the whole library is loaded.
 */
let PoolClass: typeof Pool | undefined;

function loadPoolClass(): typeof Pool {
  if (PoolClass) return PoolClass;
  const require = createRequire(import.meta.url);
  try {
    PoolClass = require('undici/lib/dispatcher/pool.js') as typeof Pool;
  } catch {
    PoolClass = (require('undici') as { Pool: typeof Pool }).Pool;
  }
  return PoolClass;
}

/** undici's timers name the failure when headers are late or the body stalls; the attempt's timer bounds the whole. */
function dispatchOptions(request: HttpRequest): Dispatcher.DispatchOptions {
  return {
    path: request.path,
    method: request.method,
    headers: request.headers,
    body: request.body ?? null,
    headersTimeout: request.timeoutMs,
    bodyTimeout: request.timeoutMs,
  };
}

function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

function destroyedError(): Error {
  return codedError(CLIENT_DESTROYED_CODE, 'the request was stopped: voxform is shutting down');
}

function notSentError(): Error {
  return codedError(NOT_SENT_CODE, 'the request was withdrawn before it was sent');
}

function attemptTimeoutError(timeoutMs: number): Error {
  return codedError(ATTEMPT_TIMEOUT_CODE, `no complete answer within ${timeoutMs} ms`);
}

/** Calls `stop` when the request's signal cuts it short on the wire (`abortOnTheWire`); returns what stops listening. */
function onStop(request: HttpRequest, stop: () => void): () => void {
  const signal = request.abortOnTheWire ? request.signal : undefined;
  if (!signal) return () => undefined;
  signal.addEventListener('abort', stop, { once: true });
  return () => signal.removeEventListener('abort', stop);
}

function rejectWhenAborted(signal: AbortSignal): Promise<never> {
  return new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
}

/** Reads a response body stream to the end, as UTF-8 text. */
export async function readBodyText(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}
