/**
 * The emulator behind a proxy that rewrites its JSON answers: for answers the service might send and
 * the emulator never does (its data file and requests are checked), each test says what to send
 * instead. `rewrite` gets the request and the answer's text, and returns the text to send.
 */
import { fakeServer } from '../api/helpers.js';

export type AnswerRewrite = (request: { method: string; path: string }, text: string) => string;

export interface RewritingProxy {
  url: string;
  /** What the proxy makes of each answer from now on (at first, every answer as it is). */
  rewrite: AnswerRewrite;
  close(): Promise<void>;
}

/** Headers a proxy must not pass on as they are: it sends a body of its own length. */
const HOP_HEADERS = new Set(['host', 'connection', 'content-length', 'transfer-encoding', 'keep-alive']);

export async function startRewritingProxy(target: string): Promise<RewritingProxy> {
  const proxy: RewritingProxy = {
    url: '',
    rewrite: (_request, text) => text,
    close: async () => server.close(),
  };
  const server = await fakeServer(async (req, res, body) => {
    const headers = Object.fromEntries(Object.entries(req.headers).filter(([name]) => !HOP_HEADERS.has(name))) as Record<string, string>;
    const upstream = await fetch(`${target}${req.url ?? '/'}`, { method: req.method, headers, body: body === '' ? undefined : body });
    const text = proxy.rewrite({ method: req.method ?? 'GET', path: req.url ?? '/' }, await upstream.text());
    res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'application/json' }).end(text);
  });
  proxy.url = server.url;
  return proxy;
}
