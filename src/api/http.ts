import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { errorCode } from './errors.js';
import { Semaphore } from '../util/semaphore.js';
import { dispatchOptions, SocketPools, type HttpRequest, type HttpResponse } from './wire.js';
import { ATTEMPT_TIMEOUT_CODE, attemptTimeoutError, MAX_RESPONSE_BYTES, notSentError } from './wire-messages.js';
import { WireThread } from './wire-thread-link.js';

export type { HttpRequest, HttpResponse } from './wire.js';
export { ATTEMPT_TIMEOUT_CODE, CLIENT_DESTROYED_CODE, MAX_RESPONSE_BYTES, NOT_SENT_CODE, RESPONSE_TOO_LARGE_CODE } from './wire-messages.js';

/** A response whose body is still arriving; its slot is held until the body ends or is destroyed. */
export interface HttpStreamResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Readable;
}

/** No answer within the time-out: undici's header or body timer fired, or the attempt's own deadline passed. */
export function isTimeout(error: unknown): boolean {
  const code = errorCode(error);
  return code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' || code === ATTEMPT_TIMEOUT_CODE;
}

export interface HttpTransportOptions {
  /** Requests on the wire at once, across every origin; also the socket count of each pool. */
  maxInFlight: number;
  /** Connect time-out per socket (ms). */
  connectTimeoutMs?: number;
  /** How long an idle keep-alive socket is kept (ms). */
  keepAliveTimeoutMs?: number;
  /** Largest answer body read (bytes); a larger one fails with `UND_ERR_RES_EXCEEDED_MAX_SIZE`. Default `MAX_RESPONSE_BYTES`. */
  maxResponseBytes?: number;
  /**
   * Hold the sockets and the slots on a thread of their own (wire-thread.ts), so that no request
   * waits for this thread's CPU work: the CLI's choice. Where the compiled thread module is not at
   * hand (running from the TypeScript sources), the wire stays on this thread.
   */
  wireThread?: boolean;
}

/**
 * The wire: one undici `Pool` per origin (keep-alive sockets, reused across requests), one bound on
 * the requests in flight across all origins (1,000 concurrent calls queue instead of opening 1,000
 * sockets), a time-out per attempt and a cap on the size of an answer. It sends one attempt;
 * retrying is the caller's business. With `wireThread`, the bound and the sockets of every exchange
 * with a plain body live on the wire thread; a streamed body or answer is sent from this thread,
 * holding a slot of the same bound.
 */
export class HttpTransport {
  /** This thread's sockets: every exchange without a wire thread, and the streamed ones with it. */
  private readonly pools: SocketPools;
  private readonly wire: WireThread | undefined;
  /** This thread's slots, when there is no wire thread (the wire thread holds them otherwise). */
  private readonly slots: Semaphore;

  constructor(private readonly options: HttpTransportOptions) {
    this.slots = new Semaphore(options.maxInFlight);
    const pools = {
      connections: options.maxInFlight,
      connectTimeoutMs: options.connectTimeoutMs,
      keepAliveTimeoutMs: options.keepAliveTimeoutMs,
      maxResponseBytes: this.maxResponseBytes,
    };
    this.pools = new SocketPools(pools);
    this.wire = options.wireThread ? WireThread.start({ pools, maxInFlight: options.maxInFlight }) : undefined;
  }

  /** Whether the sockets and slots are on the wire thread (asked for, and its compiled module at hand). */
  get onWireThread(): boolean {
    return this.wire !== undefined;
  }

  /** The largest answer body this transport reads (bytes). */
  get maxResponseBytes(): number {
    return this.options.maxResponseBytes ?? MAX_RESPONSE_BYTES;
  }

  /** Sends the request and reads the whole body as text. */
  async send(request: HttpRequest): Promise<HttpResponse> {
    if (this.wire && !isStream(request.body)) return this.wire.send(request);
    await this.acquire(request.signal, request.ahead);
    try {
      return await this.pools.exchange(request);
    } finally {
      this.release();
    }
  }

  /**
   * Sends the request and hands back the body as a stream (server-sent events). The slot is
   * released when the body ends or is destroyed; the caller must consume or destroy it. The
   * attempt's time-out covers the body too: when it passes, the body fails with the time-out.
   */
  async stream(request: HttpRequest): Promise<HttpStreamResponse> {
    // The whole library adds its `request` API to every dispatcher, this pool's included.
    await import('undici');
    await this.acquire(request.signal, request.ahead);
    let handedOver = false;
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(attemptTimeoutError(request.timeoutMs)), request.timeoutMs);
    try {
      const pool = this.pools.pool(request.origin);
      request.onDispatch?.(performance.now());
      const pending = pool.request({ ...dispatchOptions(request), signal: abort.signal });
      // Once the time-out has passed, the request still rejects when undici gets to abort it.
      pending.catch(() => undefined);
      const response = await Promise.race([pending, rejectWhenAborted(abort.signal)]);
      const body = response.body as unknown as Readable;
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        clearTimeout(timer);
        this.release();
      };
      body.once('close', release);
      body.once('end', release);
      body.once('error', release);
      handedOver = true;
      return { status: response.statusCode, headers: response.headers, body };
    } finally {
      if (!handedOver) {
        clearTimeout(timer);
        this.release();
      }
    }
  }

  /** Closes every pool, letting requests already sent finish. */
  async close(): Promise<void> {
    await Promise.all([this.pools.close(), this.wire?.close()]);
  }

  /**
   * Stops at once: requests on the wire and the ones queued for a slot fail with
   * `CLIENT_DESTROYED_CODE` (a run interrupted by Ctrl-C or SIGTERM must not wait for them).
   */
  async destroy(): Promise<void> {
    await Promise.all([this.pools.destroy(), this.wire?.destroy()]);
  }

  /** A slot, unless `signal` withdraws the request first (then it fails with `NOT_SENT_CODE`); `ahead` as `HttpRequest.ahead`. */
  private async acquire(signal: AbortSignal | undefined, ahead: boolean | undefined): Promise<void> {
    if (signal?.aborted) throw notSentError();
    if (this.wire) await this.wire.acquireSlot(signal, ahead);
    else if (!this.slots.tryAcquire()) await this.slots.acquire(signal, ahead).catch(() => Promise.reject(notSentError()));
  }

  private release(): void {
    if (this.wire) this.wire.releaseSlot();
    else this.slots.release();
  }
}

/** A body that can be read only once, on the thread that holds it. */
function isStream(body: HttpRequest['body']): boolean {
  return body !== undefined && typeof body !== 'string' && !(body instanceof Uint8Array);
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
