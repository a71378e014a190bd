/** Handlers answer with a `Reply`: the server alone writes to the socket (so a fault can drop an answer). */
import type { ServerResponse } from 'node:http';

export interface Reply {
  status: number;
  /** A JSON body (any JSON value, including a bare string). */
  json?: unknown;
  /** A JSON body already serialized (from a cache). */
  jsonText?: string;
  /** A raw body (with its content-type in `headers`). */
  raw?: string | Buffer;
  /** Server-Sent Events: each string is one event's data, written as its own chunk. */
  sse?: string[];
  headers?: Record<string, string>;
}

export const json = (status: number, body: unknown, headers?: Record<string, string>): Reply => ({ status, json: body, ...(headers ? { headers } : {}) });

export const detail = (status: number, message: string): Reply => json(status, { detail: message });

export const NOT_FOUND = (): Reply => detail(404, 'Not found');

/** Thrown by handlers to answer with a status and `{detail}` at once. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message);
  }
}

/** Writes a reply. SSE events go out one write each, as a streaming server would send them. */
export function writeReply(res: ServerResponse, reply: Reply): void {
  const headers: Record<string, string | number> = { ...reply.headers };
  if (reply.sse) {
    res.writeHead(reply.status, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', ...headers });
    for (const event of reply.sse) res.write(`data: ${event}\n\n`);
    res.end();
    return;
  }
  let body: string | Buffer | undefined = reply.raw;
  if (reply.json !== undefined || reply.jsonText !== undefined) {
    body = reply.jsonText ?? JSON.stringify(reply.json);
    headers['content-type'] = 'application/json';
  }
  if (body !== undefined) headers['content-length'] = Buffer.byteLength(body);
  res.writeHead(reply.status, headers);
  res.end(body);
}
