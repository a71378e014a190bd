import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { startEmulator, type EmulatorOptions, type RunningEmulator } from '../../src/emulator/index.js';
import { validateAgainst } from '../../src/schema/validate.js';

export const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
export const BOOKING = '-OKdqbqetEcM4ak369yn';

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed JSON when the answer is JSON, else the text. */
  body: any;
  text: string;
}

/** A small client for the emulator: JSON in, JSON (or text) out, the seeded key by default. */
export function clientFor(emulator: RunningEmulator) {
  const call = async (method: string, path: string, options: { body?: unknown; rawBody?: string; headers?: Record<string, string>; auth?: string | null } = {}): Promise<Answer> => {
    const headers: Record<string, string> = { ...options.headers };
    const auth = options.auth === undefined ? emulator.apiKey : options.auth;
    if (auth !== null) headers.authorization = auth;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    const res = await request(`${emulator.url}${path}`, { method: method as 'GET', headers, body });
    const text = await res.body.text();
    const type = String(res.headers['content-type'] ?? '');
    return { status: res.statusCode, headers: res.headers, text, body: type.includes('json') && text ? JSON.parse(text) : text };
  };
  return {
    call,
    get: (path: string, options: Parameters<typeof call>[2] = {}) => call('GET', path, options),
    put: (path: string, body: unknown, options: Parameters<typeof call>[2] = {}) => call('PUT', path, { ...options, body }),
    post: (path: string, body: unknown, options: Parameters<typeof call>[2] = {}) => call('POST', path, { ...options, body }),
    del: (path: string) => call('DELETE', path),
  };
}

export type Client = ReturnType<typeof clientFor>;

/** Starts an emulator for one test file (in memory, default seed unless told). */
export async function startTestEmulator(options: EmulatorOptions = {}): Promise<{ emulator: RunningEmulator; client: Client }> {
  const emulator = await startEmulator({ webhooks: 'loopback', ...options });
  return { emulator, client: clientFor(emulator) };
}

/** Throws with the schema issues when `value` does not match a service definition. */
export function expectSchema(defName: string, value: unknown): void {
  const issues = validateAgainst(defName, value);
  if (issues.length > 0) throw new Error(`${defName}: ${JSON.stringify(issues, null, 1)}`);
}

export interface ReceivedRequest {
  method: string;
  url: URL;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/**
 * A webhook receiver on loopback. `respond` decides each answer; by default 200 `{}`. `next()`
 * resolves with the next request received (or one already received and not yet taken).
 */
export async function startReceiver(respond?: (req: ReceivedRequest, res: http.ServerResponse) => void) {
  const received: ReceivedRequest[] = [];
  const waiting: Array<(r: ReceivedRequest) => void> = [];
  let taken = 0;
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const got: ReceivedRequest = { method: req.method ?? '', url: new URL(req.url ?? '/', 'http://receiver'), headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(got);
      const waiter = waiting.shift();
      if (waiter) {
        taken++;
        waiter(got);
      }
      if (respond) respond(got, res);
      else {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{}');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    next(): Promise<ReceivedRequest> {
      if (taken < received.length) return Promise.resolve(received[taken++] as ReceivedRequest);
      return new Promise((resolve) => waiting.push(resolve));
    },
    close(): Promise<void> {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The data of each SSE event of a body. */
export function sseEvents(text: string): string[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      if (!block.startsWith('data: ')) throw new Error(`not an SSE data event: ${block}`);
      return block.slice('data: '.length);
    });
}

/** The content of a chat completions stream, joined. */
export function streamedText(text: string): string {
  return sseEvents(text)
    .filter((e) => e !== '[DONE]')
    .map((e) => JSON.parse(e).choices[0].delta.content ?? '')
    .join('');
}

/** Polls `check` until it returns a value other than undefined/false (webhook deliveries finish after the answer). */
export async function eventually<T>(check: () => T | undefined | false | Promise<T | undefined | false>, what = 'the condition'): Promise<T> {
  for (let attempt = 0; attempt < 500; attempt++) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Request lines no server should fall over: targets that are not paths or not URLs, malformed escapes, and lines Node's parser refuses. */
export const HOSTILE_REQUEST_LINES: readonly string[] = [
  'GET //[ HTTP/1.1',
  'GET //[::1 HTTP/1.1',
  'GET http://[ HTTP/1.1',
  'GET http://evil.example/x HTTP/1.1',
  'GET //evil.example/x HTTP/1.1',
  'OPTIONS * HTTP/1.1',
  'GET /%zz HTTP/1.1',
  'POST /hooks/%E0%A4%A HTTP/1.1',
  'GET /a b HTTP/1.1',
  'GET  HTTP/1.1',
  'BREW / HTTP/1.1',
  'GET / HTTP/9.9',
  'GET /\x01 HTTP/1.1',
  '\x16\x03\x01\x02\x00 hello',
];

/**
 * Sends `head` (a request line and headers, without the blank line that ends them) with
 * `Connection: close` and an optional body on a fresh connection to `base`; resolves with the
 * status (0 when there was no answer), the answer's head and its body, once the server closes.
 */
export function rawExchange(base: string, head: string, body = ''): Promise<{ status: number; head: string; body: string }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    let answer = '';
    const socket = net.connect(Number(port), hostname.replace(/^\[|\]$/g, ''), () => socket.write(`${head}\r\nConnection: close\r\n\r\n${body}`));
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const end = answer.indexOf('\r\n\r\n');
      const status = /^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1];
      resolve({ status: status ? Number(status) : 0, head: end < 0 ? answer : answer.slice(0, end), body: end < 0 ? '' : answer.slice(end + 4) });
    });
  });
}
