import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { Pool, type Dispatcher } from 'undici';
import { errorCode } from './errors.js';
import { Semaphore } from '../util/semaphore.js';

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
  /** Time-out of this attempt: for the headers, and for each gap in the body. */
  timeoutMs: number;
}

export interface HttpResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A response whose body is still arriving; its slot is held until the body ends or is destroyed. */
export interface HttpStreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/** undici's header or body timer fired: no answer within the time-out. */
export function isTimeout(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}

export interface HttpTransportOptions {
  /** Requests on the wire at once, across every origin; also the socket count of each pool. */
  maxInFlight: number;
  /** Connect time-out per socket (ms). */
  connectTimeoutMs?: number;
  /** How long an idle keep-alive socket is kept (ms). */
  keepAliveTimeoutMs?: number;
}

/**
 * The wire: one undici `Pool` per origin (keep-alive sockets, reused across requests), a semaphore
 * that bounds the requests in flight across all origins (1,000 concurrent calls queue here instead
 * of opening 1,000 sockets), and a time-out per attempt. It sends one attempt; retrying is the
 * caller's business.
 */
export class HttpTransport {
  private readonly pools = new Map<string, Pool>();
  private readonly slots: Semaphore;
  private closed = false;

  constructor(private readonly options: HttpTransportOptions) {
    this.slots = new Semaphore(options.maxInFlight);
  }

  /** Requests holding a slot / waiting for one (for progress displays and tests). */
  get load(): { inFlight: number; queued: number } {
    return { inFlight: this.slots.inFlight, queued: this.slots.queued };
  }

  /**
   * Sends the request and reads the whole body as text. It talks to undici's dispatcher directly,
   * gathering the body's chunks, rather than building a readable stream per response only to
   * drain it.
   */
  async send(request: HttpRequest): Promise<HttpResponse> {
    if (!this.slots.tryAcquire()) await this.slots.acquire();
    try {
      return await new Promise<HttpResponse>((resolve, reject) => {
        let status = 0;
        let headers: IncomingHttpHeaders = {};
        const chunks: Buffer[] = [];
        this.pool(request.origin).dispatch(this.dispatchOptions(request), {
          // Its presence tells undici this handler speaks the controller API (headers as an object).
          onRequestStart: () => undefined,
          onResponseStart: (_controller, statusCode, responseHeaders) => {
            status = statusCode;
            headers = responseHeaders;
          },
          onResponseData: (_controller, chunk) => {
            chunks.push(chunk);
          },
          onResponseEnd: () => {
            resolve({ status, headers, body: chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks).toString('utf8') });
          },
          onResponseError: (_controller, error) => reject(error),
        });
      });
    } finally {
      this.slots.release();
    }
  }

  /**
   * Sends the request and hands back the body as a stream (server-sent events). The slot is
   * released when the body ends or is destroyed; the caller must consume or destroy it.
   */
  async stream(request: HttpRequest): Promise<HttpStreamResponse> {
    if (!this.slots.tryAcquire()) await this.slots.acquire();
    let handedOver = false;
    try {
      const response = await this.pool(request.origin).request(this.dispatchOptions(request));
      const body = response.body as unknown as Readable;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        this.slots.release();
      };
      body.once('close', release);
      body.once('end', release);
      body.once('error', release);
      handedOver = true;
      return { status: response.statusCode, headers: response.headers, body };
    } finally {
      if (!handedOver) this.slots.release();
    }
  }

  /**
   * The time-out rides on undici's own timers (one shared clock, no timer or AbortController per
   * request — this is the hot path of a 500-agent plan): the headers must arrive within
   * `timeoutMs` of the request being written, and no gap between two chunks of the body may
   * exceed it. Time spent waiting for a slot does not count.
   */
  private dispatchOptions(request: HttpRequest): Dispatcher.DispatchOptions {
    return {
      path: request.path,
      method: request.method,
      headers: request.headers,
      body: request.body ?? null,
      headersTimeout: request.timeoutMs,
      bodyTimeout: request.timeoutMs,
    };
  }

  /** Closes every pool, letting requests already sent finish. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map((pool) => pool.close()));
  }

  private pool(origin: string): Pool {
    if (this.closed) throw new Error('the API client is closed');
    let pool = this.pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.options.maxInFlight,
        pipelining: 1,
        keepAliveTimeout: this.options.keepAliveTimeoutMs ?? 10_000,
        connect: { timeout: this.options.connectTimeoutMs ?? 10_000 },
      });
      this.pools.set(origin, pool);
    }
    return pool;
  }
}

/** Reads a response body stream to the end, as UTF-8 text. */
export async function readBodyText(body: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString('utf8');
}
