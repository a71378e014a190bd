/**
 * The socket pools and one attempt on them: undici's `Pool` per origin (keep-alive sockets reused
 * across requests), a time-out for the whole attempt and a cap on the size of an answer. It runs on
 * whichever thread holds the wire: the CLI's wire thread (wire-thread.ts), or the caller's own.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { createRequire } from 'node:module';
import type { Readable } from 'node:stream';
import type { Dispatcher, Pool } from 'undici';
import { attemptTimeoutError, destroyedError, type SocketPoolOptions } from './wire-messages.js';

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
  /**
   * The longest this attempt may take once it holds a slot: connecting, sending, the headers and the
   * whole body of the answer (a body that keeps dripping is cut off too).
   */
  timeoutMs: number;
  /**
   * Withdraws the request while it waits for a slot: it then fails with `NOT_SENT_CODE` and is
   * never sent. A request already on the wire is not affected (its answer is waited for).
   */
  signal?: AbortSignal | undefined;
  /** Takes the next free slot before the requests already waiting (`Exchange.ahead`). */
  ahead?: boolean | undefined;
  /**
   * Told when the attempt left the queue and was handed to the socket pool (its clock started), as
   * a time on this thread's `performance.now()` clock. It is called before the attempt settles.
   */
  onDispatch?: (atMs: number) => void;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/**
 * undici's `Pool`, loaded alone. `import 'undici'` loads the whole library (fetch, WebSocket,
 * cookies, mocks, caches): 100 ms of every command's start-up, for one class; its pool module on
 * its own takes 40 ms. The version is the one package-lock.json pins, and every client test uses
 * this path. The file is not part of undici's public interface: should an update move it, the whole
 * library is loaded instead (slower to start, same behaviour).
 */
let PoolClass: typeof Pool | undefined;

/** Loaded on first use (a caller whose every request goes through the wire thread never loads it), or ahead with `loadPoolModule`. */
export function loadPoolModule(): typeof Pool {
  if (PoolClass) return PoolClass;
  PoolClass = requirePool();
  return PoolClass;
}

function requirePool(): typeof Pool {
  const require = createRequire(import.meta.url);
  try {
    return require('undici/lib/dispatcher/pool.js') as typeof Pool;
  } catch {
    return (require('undici') as { Pool: typeof Pool }).Pool;
  }
}

/** The pools of one transport, one per origin, and single attempts on them (no slots, no retries). */
export class SocketPools {
  private readonly pools = new Map<string, Pool>();
  private closed = false;
  private destroyed = false;

  constructor(private readonly options: SocketPoolOptions) {}

  /**
   * Sends one attempt and reads the whole body as text. It talks to undici's dispatcher directly,
   * gathering the body's chunks, rather than building a readable stream per response only to
   * drain it. undici's own timers give the precise failure when the headers are late or the body
   * stalls; the attempt's own timer bounds the whole exchange, a body that drips a byte now and then
   * included.
   */
  exchange(request: HttpRequest): Promise<HttpResponse> {
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
        finish();
      };
      // The caller hears of the time-out at once, even while the socket is still connecting
      // (undici hands out the abort handle only once the request is written); the attempt is
      // aborted as soon as it can be.
      let expired: Error | undefined;
      const timer = setTimeout(() => {
        expired = attemptTimeoutError(request.timeoutMs);
        abortAttempt?.(expired);
        settle(() => reject(expired));
      }, request.timeoutMs);
      request.onDispatch?.(performance.now());
      pool.dispatch(dispatchOptions(request), {
        onRequestStart: (controller) => {
          abortAttempt = (error) => controller.abort(error);
          if (expired) controller.abort(expired);
        },
        onResponseStart: (_controller, statusCode, responseHeaders) => {
          status = statusCode;
          headers = responseHeaders;
        },
        onResponseData: (_controller, chunk) => {
          chunks.push(chunk);
        },
        onResponseEnd: () =>
          settle(() => resolve({ status, headers, body: chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8') })),
        onResponseError: (_controller, error) => settle(() => reject(error)),
      });
    });
  }

  /** The pool of an origin (made on first use); throws once the pools are closed or destroyed. */
  pool(origin: string): Pool {
    if (this.destroyed) throw destroyedError();
    if (this.closed) throw new Error('the API client is closed');
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new (loadPoolModule())(origin, {
        connections: this.options.connections,
        pipelining: 1,
        keepAliveTimeout: this.options.keepAliveTimeoutMs ?? 10_000,
        connect: { timeout: this.options.connectTimeoutMs ?? 10_000 },
        maxResponseSize: this.options.maxResponseBytes,
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }

  /** Closes every pool, letting requests already sent finish. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  /** Stops at once: requests on the wire fail with `CLIENT_DESTROYED_CODE`. */
  async destroy(): Promise<void> {
    this.closed = true;
    this.destroyed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.destroy(destroyedError())));
  }
}

/**
 * undici's own timers give the precise failure when the headers are late or the body stalls; the
 * attempt's own timer (one per attempt) bounds the whole exchange. Time spent waiting for a slot
 * does not count.
 */
export function dispatchOptions(request: HttpRequest): Dispatcher.DispatchOptions {
  return {
    path: request.path,
    method: request.method,
    headers: request.headers,
    body: request.body ?? null,
    headersTimeout: request.timeoutMs,
    bodyTimeout: request.timeoutMs,
  };
}
