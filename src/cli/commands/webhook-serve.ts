import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { VoxformError } from '../../errors.js';
import { documentSyntaxError, readOperatorDocument } from '../../project-files/operator-document.js';
import { describeEndOfCall, describePrefetch } from '../../webhooks/describe.js';
import { parseEndOfCallWebhook, parsePrefetchRequest, prefetchAnswerProblem } from '../../webhooks/receive.js';
import type { CommandContext } from '../context.js';
import { headerNames, loadAgentWebhooks } from '../webhook-agent.js';
import { LISTEN_PORT, wholeNumber } from '../whole-number.js';
import { BodyTooLarge, readBody } from '../../util/read-body.js';
import { isLoopback } from '../../util/loopback.js';
import { printable } from '../../util/printable.js';
import { formatCount } from '../../util/plural.js';
import { WEBHOOK_BUDGET_MS } from '../../webhooks/budget.js';
import { parseRequestTarget } from '../../util/request-target.js';
import { answerConnectAsRequest } from '../../util/connect-request.js';
import { nextCommand, ownFlags } from '../next-command.js';

interface WebhookServeOptions {
  file?: string[];
  env?: string;
  port?: string;
  host?: string;
  prefetchResponse?: string;
  agent?: string;
}

/** Where it listens unless told otherwise (program.ts gives the same defaults). */
const DEFAULT_PORT = '4020';
const DEFAULT_HOST = '127.0.0.1';

/** The largest body read; the service's own limit on JSON bodies (docs/service-api.md, Limits). */
const MAX_WEBHOOK_BODY_BYTES = 1024 * 1024;

export interface ReceiverSettings {
  /** Headers each request must carry with these values (none: nothing is checked). */
  endOfCallHeaders: Readonly<Record<string, string>>;
  prefetchHeaders: Readonly<Record<string, string>>;
  /** The JSON text answered to every valid prefetch GET. */
  prefetchAnswer: string;
  /** Where the one line per request goes. */
  log(line: string): void;
  /**
   * How long a request's headers, then a POST's body, may each take to arrive (default
   * WEBHOOK_BUDGET_MS): the service sends its request at once and gives up on the answer after its
   * budget, so a slower client is not the service.
   */
  bodyTimeoutMs?: number;
  /** The time each line is stamped with (default: now). */
  now?: () => Date;
}

/** A line's time: UTC, as every time voxform prints, marked so (`01:44:00Z`) for a reader in another zone. */
function clock(now: Date): string {
  return `${now.toISOString().slice(11, 19)}Z`;
}

function handleRequest(req: http.IncomingMessage, res: http.ServerResponse, settings: ReceiverSettings): void {
  const target = parseRequestTarget(req.url);
  // The path only, even of a refused target: its query holds a prefetch's metadata values.
  const where = target.path;
  const answer = (status: number, body: string, summary: string, close = false) => {
    res.writeHead(status, { 'content-type': 'application/json', ...(close ? { connection: 'close' } : {}) });
    // A body cut short is not read to its end: drop the connection once the answer is out.
    res.end(body, () => (close ? req.socket.destroy() : undefined));
    // The summary quotes what anyone who reaches the port sent: its control characters are shown escaped.
    settings.log(printable(`${clock(settings.now?.() ?? new Date())}  ${req.method ?? '?'} ${where}  ${summary} -> ${status}`));
  };
  const refuse = (status: number, message: string, event: string, close = false) => answer(status, JSON.stringify({ detail: message }), `${event}  REFUSED: ${message}`, close);

  if (!target.ok) {
    req.resume();
    return refuse(400, target.message, 'request');
  }

  if (req.method === 'GET') {
    req.resume();
    const parsed = parsePrefetchRequest(req.url ?? '/', req.headers, { expectedHeaders: settings.prefetchHeaders });
    if (!parsed.ok) return refuse(parsed.status, parsed.message, 'prefetch');
    return answer(200, settings.prefetchAnswer, `prefetch  ${describePrefetch(parsed.value)}`);
  }
  if (req.method !== 'POST') {
    req.resume();
    res.setHeader('allow', 'GET, POST');
    return refuse(405, `${req.method ?? 'this method'} is not a webhook: the service sends GET for prefetch and POST for end-of-call`, 'unknown');
  }
  // A body still incomplete after the budget is refused (and printed) then, not left to hold the connection for Node's minutes.
  const timeoutMs = settings.bodyTimeoutMs ?? WEBHOOK_BUDGET_MS;
  let late = false;
  const deadline = setTimeout(() => {
    late = true;
    refuse(408, `the body did not arrive within ${formatCount(timeoutMs)} ms`, 'end-of-call', true);
  }, timeoutMs);
  readBody(req, MAX_WEBHOOK_BODY_BYTES).then(
    (body) => {
      clearTimeout(deadline);
      if (late) return;
      const parsed = parseEndOfCallWebhook(body, req.headers, { expectedHeaders: settings.endOfCallHeaders });
      if (!parsed.ok) return refuse(parsed.status, parsed.message, 'end-of-call');
      answer(200, '{}', `end-of-call  ${describeEndOfCall(parsed.value)}`);
    },
    (error: unknown) => {
      clearTimeout(deadline);
      if (late) return;
      if (error instanceof BodyTooLarge) return refuse(413, `the body is over ${MAX_WEBHOOK_BODY_BYTES} bytes`, 'end-of-call', true);
      res.destroy();
    },
  );
}

/** The status lines Node answers a client error with, when not 400 (node:_http_server). */
const NODE_CLIENT_ERROR_STATUS: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
};

/** How long after a body's deadline Node's own request timeout ends a request that is still open. */
const BACKSTOP_MARGIN_MS = 2000;

/** The receiver's server, not yet listening: one line per request to `settings.log`. */
export function createReceiver(settings: ReceiverSettings): http.Server {
  const timeoutMs = settings.bodyTimeoutMs ?? WEBHOOK_BUDGET_MS;
  // How many requests on each socket are not yet fully answered. A client error (a request whose
  // headers are late, too large or unparsable) may be answered only while this is 0: then every earlier
  // answer on a kept-alive connection is out whole, and a new one starts at a message boundary.
  const answering = new WeakMap<Socket, number>();
  const isIdle = (socket: Socket) => socket.writable && (answering.get(socket) ?? 0) === 0;
  const server = http.createServer(
    {
      headersTimeout: timeoutMs,
      // Only a backstop: a POST's body has its own deadline (handleRequest), which must come first, and
      // a busy process runs a timer late; Node's own 408 at the backstop has no body and no printed line.
      requestTimeout: timeoutMs + BACKSTOP_MARGIN_MS,
      // Node checks these timeouts only this often (30 s by default), so a slow client is refused close to the budget.
      connectionsCheckingInterval: Math.max(1, Math.ceil(timeoutMs / 10)),
    },
    (req, res) => {
      const socket = req.socket;
      answering.set(socket, (answering.get(socket) ?? 0) + 1);
      // 'close' comes once an answer is out, or its connection gone.
      res.once('close', () => answering.set(socket, (answering.get(socket) ?? 1) - 1));
      handleRequest(req, res, settings);
    },
  );
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT' && isIdle(socket)) {
      // Headers still incomplete after the budget, on a fresh connection or a kept-alive one: refused (and printed) then, as a slow body is.
      const message = `the headers did not arrive within ${formatCount(timeoutMs)} ms`;
      const body = JSON.stringify({ detail: message });
      socket.end(`HTTP/1.1 408 Request Timeout\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`, () => socket.destroy());
      settings.log(`${clock(settings.now?.() ?? new Date())}  ? ?  request  REFUSED: ${message} -> 408`);
      return;
    }
    // Anything else as Node answers it without this listener: 431 for headers too large, 408 for a request past its time, 400 for one it cannot parse.
    if (isIdle(socket)) socket.write(`HTTP/1.1 ${NODE_CLIENT_ERROR_STATUS[error.code ?? ''] ?? '400 Bad Request'}\r\nConnection: close\r\n\r\n`);
    socket.destroy();
  });
  answerConnectAsRequest(server);
  return server;
}

/** What a `--prefetch-response` file may hold: an answer is a few fields. */
const MAX_PREFETCH_RESPONSE_BYTES = 1024 * 1024;

/** The `--prefetch-response` file's JSON, checked to be an answer the service would use. */
async function readPrefetchResponse(file: string, ctx: CommandContext): Promise<string> {
  const example = '{"metadata": {"tier": "gold"}, "extra_prompt": "…"}';
  // Read under the guards: a FIFO would hold the open (and the start) forever, a device never end.
  const read = await readOperatorDocument(path.resolve(ctx.cwd, file), { shown: file, maxBytes: MAX_PREFETCH_RESPONSE_BYTES, json: true });
  if (!read.ok && read.unreadable) throw new VoxformError('file_unreadable', `--prefetch-response ${file} ${read.message}.`, { hint: `Give a JSON file such as ${example}.` });
  if (!read.ok) throw documentSyntaxError('webhook_response_invalid', `--prefetch-response ${file}`, read, `Fix the JSON at that line and column; a PrefetchWebhookResponse reads ${example}.`);
  const problem = prefetchAnswerProblem(read.value);
  if (problem) {
    throw new VoxformError('webhook_response_invalid', `--prefetch-response ${file} is not a PrefetchWebhookResponse: ${problem}.`, { hint: 'It may hold `metadata` (an object) and `extra_prompt` (a string), nothing else.' });
  }
  return JSON.stringify(read.value);
}

function listen(server: http.Server, port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      const why = error.code === 'EADDRINUSE' ? `port ${port} is taken` : error.code === 'EADDRNOTAVAIL' ? `${host} is not an address of this machine` : error.message;
      reject(new VoxformError('webhook_listen_failed', `voxform webhook serve cannot listen on ${host}:${port}: ${why}.`, { hint: 'Pick another --port (0 picks a free one) or --host.' }));
    });
    server.listen(port, host, () => resolve((server.address() as AddressInfo).port));
  });
}

function closeServer(server: http.Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/** `voxform webhook serve`: checks each webhook (schema, headers, size), one line each, until Ctrl-C (exit 130). */
export async function run(options: WebhookServeOptions, ctx: CommandContext): Promise<number> {
  const port = wholeNumber('--port', options.port ?? DEFAULT_PORT, LISTEN_PORT);
  const host = options.host ?? DEFAULT_HOST;
  const agent = options.agent === undefined ? undefined : await loadAgentWebhooks(options.agent, options, ctx, 'the receiver was not started');
  const prefetchAnswer = options.prefetchResponse === undefined ? '{}' : await readPrefetchResponse(options.prefetchResponse, ctx);
  const settings: ReceiverSettings = {
    endOfCallHeaders: agent?.hooks['end-of-call'].headers ?? {},
    prefetchHeaders: agent?.hooks.prefetch.headers ?? {},
    prefetchAnswer,
    log: (line) => ctx.stdout.write(`${line}\n`),
  };
  const server = createReceiver(settings);
  const bound = await listen(server, port, host);
  ctx.onExit(() => closeServer(server));
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  const checks = agent
    ? `end-of-call ${headerNames(settings.endOfCallHeaders)}; prefetch ${headerNames(settings.prefetchHeaders)} (agent ${agent.localName})`
    : 'none (--agent NAME checks the headers the agent configures)';
  ctx.stdout.write(
    [
      `voxform webhook serve listening on ${url}`,
      '  end-of-call  POST any path, checked against EndOfCallPayload',
      `  prefetch     GET any path, checked against PrefetchWebhookQuery; answers ${options.prefetchResponse ?? '{}'}`,
      `  headers      ${checks}`,
      'Press Ctrl-C to stop.',
      '',
    ].join('\n'),
  );
  if (!isLoopback(host)) {
    ctx.stderr.write(`warning: listening on ${host}, not loopback: whoever can reach this machine can send it requests${agent ? '' : ', and without --agent no header is checked'}.\n`);
  }
  await ctx.interrupted();
  await closeServer(server);
  throw new VoxformError('interrupted', 'voxform webhook serve stopped at your request.', { hint: `Run \`${serveAgainCommand(options)}\` again to listen again.` });
}

/**
 * This run's command line (nextCommand's rule): pasted, it checks what this one checked (the
 * manifests and environment, the agent's headers, the prefetch answer) where this one listened.
 */
function serveAgainCommand(options: WebhookServeOptions): string {
  const own = ownFlags([
    ['--port', options.port === DEFAULT_PORT ? undefined : options.port],
    ['--host', options.host === DEFAULT_HOST ? undefined : options.host],
    ['--agent', options.agent],
    ['--prefetch-response', options.prefetchResponse],
  ]);
  return nextCommand(['webhook serve', ...own].join(' '), { file: options.file, env: options.env });
}
