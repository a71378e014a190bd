/**
 * What the caller's thread and the wire thread say to each other (wire-thread.ts), the codes and
 * settings both sides share, and how an error crosses between them: a thread boundary keeps an
 * error's message but drops its `code` and `cause`, which is what the client reads to tell a
 * time-out from a refused connection.
 */
import type { IncomingHttpHeaders } from 'node:http';

/** The `code` of the error an attempt fails with when its whole time-out has passed. */
export const ATTEMPT_TIMEOUT_CODE = 'ERR_VOXFORM_ATTEMPT_TIMEOUT';
/** The `code` of the error requests fail with when the client is destroyed under them (Ctrl-C, SIGTERM). */
export const CLIENT_DESTROYED_CODE = 'ERR_VOXFORM_CLIENT_DESTROYED';
/** The `code` of the error a request fails with when its `signal` withdrew it before it was sent. */
export const NOT_SENT_CODE = 'ERR_VOXFORM_NOT_SENT';
/** undici's code when an answer outgrows `maxResponseBytes`. */
export const RESPONSE_TOO_LARGE_CODE = 'UND_ERR_RES_EXCEEDED_MAX_SIZE';

/** Largest answer read by default (64 MiB): a list of 500 agents with long prompts is a few MiB. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

export function codedError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

export function destroyedError(): Error {
  return codedError(CLIENT_DESTROYED_CODE, 'the request was stopped: voxform is shutting down');
}

export function notSentError(): Error {
  return codedError(NOT_SENT_CODE, 'the request was withdrawn before it was sent');
}

export function attemptTimeoutError(timeoutMs: number): Error {
  return codedError(ATTEMPT_TIMEOUT_CODE, `no complete answer within ${timeoutMs} ms`);
}

/** The request as it crosses: a body that is a stream never does (those stay on the caller's thread). */
export interface WireRequest {
  origin: string;
  path: string;
  method: 'GET' | 'PUT' | 'POST';
  headers: Record<string, string>;
  body?: string | Uint8Array | undefined;
  timeoutMs: number;
  /** `HttpRequest.ahead`. */
  ahead?: true;
}

/** The socket pools of a transport (`SocketPools` of wire.ts), on whichever thread holds them. */
export interface SocketPoolOptions {
  /** Sockets per origin: the requests in flight at once. */
  connections: number;
  /** Connect time-out per socket (ms). */
  connectTimeoutMs?: number | undefined;
  /** How long an idle keep-alive socket is kept (ms). */
  keepAliveTimeoutMs?: number | undefined;
  /** Largest answer body read (bytes); a larger one fails with `UND_ERR_RES_EXCEEDED_MAX_SIZE`. */
  maxResponseBytes: number;
}

export interface WireThreadSetup {
  pools: SocketPoolOptions;
  /** Requests in flight at once, across every origin (the transport's one bound). */
  maxInFlight: number;
}

export type ToWire =
  /** First, once: what the thread's pools and slots are (it boots before the client that uses it is made). */
  | { kind: 'setup'; setup: WireThreadSetup }
  | { kind: 'send'; id: number; request: WireRequest }
  /** A slot for an exchange the caller's thread sends itself (a streamed body or answer). */
  | { kind: 'acquire'; id: number; ahead?: true }
  | { kind: 'release' }
  /** The caller withdrew a request: if it still waits for a slot, it fails with `NOT_SENT_CODE` unsent. */
  | { kind: 'withdraw'; id: number };

export type FromWire =
  /** `dispatchedAt`: when the attempt was handed to the socket pool, in ms since the epoch (`performance.timeOrigin` based). */
  | { kind: 'answer'; id: number; dispatchedAt: number; status: number; headers: IncomingHttpHeaders; body: string }
  /** A `send` that failed, or an `acquire` withdrawn before its slot came (`dispatchedAt` undefined: never on the wire). */
  | { kind: 'failure'; id: number; dispatchedAt: number | undefined; error: CrossingError }
  | { kind: 'granted'; id: number };

/** An error as it crosses: name, message, code, and its causes (the first of an AggregateError's errors counts as its cause). */
export interface CrossingError {
  name: string;
  message: string;
  code?: string | undefined;
  cause?: CrossingError | undefined;
}

/** How deep a cause chain is carried (errorCode of errors.ts looks no deeper). */
const MAX_CAUSE_DEPTH = 5;

export function errorToCrossing(error: unknown, depth = 0): CrossingError {
  if (error === null || typeof error !== 'object') return { name: 'Error', message: String(error) };
  const { name, message, code, cause, errors } = error as { name?: unknown; message?: unknown; code?: unknown; cause?: unknown; errors?: unknown };
  const next = Array.isArray(errors) && errors.length > 0 ? errors[0] : cause;
  return {
    name: typeof name === 'string' ? name : 'Error',
    message: typeof message === 'string' ? message : String(error),
    ...(typeof code === 'string' ? { code } : {}),
    ...(next !== undefined && next !== null && depth < MAX_CAUSE_DEPTH ? { cause: errorToCrossing(next, depth + 1) } : {}),
  };
}

export function errorFromCrossing(crossing: CrossingError): Error {
  const error = new Error(crossing.message, crossing.cause ? { cause: errorFromCrossing(crossing.cause) } : undefined);
  error.name = crossing.name;
  if (crossing.code !== undefined) Object.assign(error, { code: crossing.code });
  return error;
}

/** A time on this thread's `performance.now()` clock from one in ms since the epoch. */
export function fromEpochMs(epochMs: number): number {
  return epochMs - performance.timeOrigin;
}

/** Now, in ms since the epoch, to the precision of `performance.now()`. */
export function epochNowMs(): number {
  return performance.timeOrigin + performance.now();
}
