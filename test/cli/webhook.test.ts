/**
 * `voxform webhook send` and `voxform webhook serve` as a user runs them: the built CLI, on
 * loopback only, with planted secrets that must never reach the terminal.
 */
import { execFileSync, spawn } from 'node:child_process';
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { repoRoot, runCliInProcess, useTempDirs, type CliResult } from '../helpers/cli.js';
import { git } from '../helpers/git.js';
import { HOSTILE_REQUEST_LINES, rawExchange } from '../emulator/helpers.js';
import { createReceiver, type ReceiverSettings } from '../../src/cli/commands/webhook-serve.js';
import { selfSignedCertificate } from '../api/self-signed.js';

const HOOK_TOKEN = 'hook-token-planted-7c6b5a49';
const PREFETCH_TOKEN = 'prefetch-token-planted-0d1e2f3a';
const LOGGED_SECRET = 'logged-header-planted-8899aabb';
const ENV = { HOOK_TOKEN, PREFETCH_TOKEN };
const PLANTED = [HOOK_TOKEN, PREFETCH_TOKEN, LOGGED_SECRET];
const FRONT_DESK = '-OKdqbqetEcM4ak369ym';

function manifest(endOfCallUrl = 'https://hooks.example.com/voice/end-of-call'): string {
  return `agents:
  front-desk:
    id: "${FRONT_DESK}"
    config:
      prompt: You answer the phone of a dental practice.
      session_data_webhook:
        url: ${endOfCallUrl}
        headers:
          x-hook-token: \${env:HOOK_TOKEN}
      extra_prompt_webhook:
        url: https://hooks.example.com/voice/prefetch
        headers:
          x-prefetch-token: \${env:PREFETCH_TOKEN}
  booking:
    id: -OKdqbqetEcM4ak369yn
    config:
      prompt: You book appointments.
`;
}

const tempDir = useTempDirs();
const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

function expectNoSecret(...outputs: string[]): void {
  for (const output of outputs) for (const secret of PLANTED) expect(output).not.toContain(secret);
}

async function eventually(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !check(); waited += 20) {
    if (waited > 20_000) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

interface RunningServe {
  url: string;
  stdout(): string;
  stop(): Promise<{ code: number | null; stdout: string; stderr: string }>;
}

/** `voxform webhook serve --port 0 …` as a child process, once it listens. */
async function startServe(args: string[], cwd: string, env: Record<string, string> = ENV): Promise<RunningServe> {
  const child = spawn(process.execPath, [path.join(repoRoot, 'bin/voxform.cjs'), 'webhook', 'serve', '--port', '0', ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  let done = false;
  void exited.then(() => (done = true));
  const stop = async () => {
    if (!done) child.kill('SIGINT');
    return { code: await exited, stdout, stderr };
  };
  cleanups.push(stop);
  await eventually(() => /listening on http:\/\/\S+/.test(stdout) || done, 'webhook serve to listen');
  const url = /listening on (http:\/\/\S+)/.exec(stdout)?.[1];
  if (!url) throw new Error(`webhook serve did not start:\n${stdout}\n${stderr}`);
  return { url, stdout: () => stdout, stop };
}

interface Received {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
}

/** A receiver of our own that answers as `respond` says and records what it got. */
async function startReceiver(respond: (res: ServerResponse) => void): Promise<{ url: string; received: Received[] }> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
      respond(res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const answerWith = (status: number, body = '', type = 'application/json') => (res: ServerResponse) => res.writeHead(status, { 'content-type': type }).end(body);

function send(args: string[], cwd: string, env: Record<string, string> = ENV): Promise<CliResult> {
  return runCliInProcess(['webhook', 'send', ...args], { cwd, env });
}

/** The receiver of `webhook serve`, in process, with these settings over none checked; its lines kept. */
async function listeningReceiver(settings: Partial<ReceiverSettings>): Promise<{ url: string; lines: string[] }> {
  const lines: string[] = [];
  const server = createReceiver({ endOfCallHeaders: {}, prefetchHeaders: {}, prefetchAnswer: '{}', log: (line) => lines.push(line), ...settings });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, lines };
}

describe('the receiver of voxform webhook serve, in process', () => {
  it('stamps each line with its time in UTC, marked Z, whatever the zone', async () => {
    const { url, lines } = await listeningReceiver({ now: () => new Date('2026-12-01T01:44:00.500Z') });
    expect((await fetch(`${url}/e`, { method: 'PUT', body: '{}' })).status).toBe(405);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^01:44:00Z {2}PUT \/e {2}unknown {2}REFUSED: /);
  });

  it('refuses a body that does not all arrive within its time (set low here), with 408 and a printed line, and closes the connection', async () => {
    const { url, lines } = await listeningReceiver({ bodyTimeoutMs: 20 });
    // 100 bytes declared, one sent, and the socket kept open: only the receiver's time ends it.
    const answer = await rawExchange(url, `POST /e HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100`, '{');
    expect(answer.status).toBe(408);
    expect(answer.body).toContain('{"detail":"the body did not arrive within 20 ms"}');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{2}:\d{2}:\d{2}Z {2}POST \/e {2}end-of-call {2}REFUSED: the body did not arrive within 20 ms -> 408$/);
    // A body that arrives in time is read as before.
    expect((await fetch(`${url}/e`, { method: 'POST', body: 'not json' })).status).toBe(400);
    expect(lines).toHaveLength(2);
  });

  it('answers a CONNECT as any other request, with a printed line (Node dropped it unanswered), and serves on', async () => {
    const { url, lines } = await listeningReceiver({});
    const tunnel = await rawExchange(url, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443');
    expect(tunnel.status).toBe(400);
    const onPath = await rawExchange(url, `CONNECT /hooks HTTP/1.1\r\nHost: ${new URL(url).host}`);
    expect(onPath.status).toBe(405);
    expect(onPath.head).toMatch(/\r\nallow: GET, POST\r\n/i);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/ {2}CONNECT example\.com:443 {2}request {2}REFUSED: The request target must be a path, such as \/agents\. -> 400$/);
    expect(lines[1]).toMatch(/ {2}CONNECT \/hooks {2}unknown {2}REFUSED: CONNECT is not a webhook: .* -> 405$/);
    expect((await fetch(`${url}/e`, { method: 'POST', body: 'not json' })).status).toBe(400);
  });

  it('prints a refused request target by its path only, never its query (a prefetch\'s metadata values)', async () => {
    const { url, lines } = await listeningReceiver({});
    const host = new URL(url).host;
    for (const target of ['//hooks/pre', '/%zz/pre']) {
      expect((await rawExchange(url, `GET ${target}?customer_id=metadata-value-planted&session_id=s1&agent_id=a1 HTTP/1.1\r\nHost: ${host}`)).status).toBe(400);
    }
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/ {2}GET \/\/hooks\/pre {2}request {2}REFUSED: The request target must be a path, such as \/agents\. -> 400$/);
    expect(lines[1]).toMatch(/ {2}GET \/%zz\/pre {2}request {2}REFUSED: The request path holds a malformed percent-escape\. -> 400$/);
    expect(lines.join('\n')).not.toContain('metadata-value-planted');
  });
});

/** What the receiver answers a client that sends `head` (not ended by a blank line) and waits: the socket is kept open until the receiver closes it. */
function unfinishedHeaders(base: string, head: string): Promise<string> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    let answer = '';
    const socket = connect(Number(port), hostname, () => socket.write(head));
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer));
  });
}

describe('the receiver of voxform webhook serve, with a client slow to send its headers', () => {
  it('refuses headers that do not all arrive within the budget (set low here), with 408 and a printed line, and closes the connection', async () => {
    const { url, lines } = await listeningReceiver({ bodyTimeoutMs: 20, now: () => new Date('2026-12-01T01:44:00Z') });
    const answer = await unfinishedHeaders(url, 'POST /e HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl');
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    expect(answer).toContain('\r\n\r\n{"detail":"the headers did not arrive within 20 ms"}');
    expect(lines).toEqual(['01:44:00Z  ? ?  request  REFUSED: the headers did not arrive within 20 ms -> 408']);
    // A request whose headers arrive in time is answered as before: on a receiver whose budget a loaded
    // machine cannot outlast, so the verdict does not hang on how fast fetch writes its headers.
    const patient = await listeningReceiver({ bodyTimeoutMs: 60_000 });
    expect((await fetch(`${patient.url}/e`, { method: 'POST', body: 'not json' })).status).toBe(400);
    expect(patient.lines).toHaveLength(1);
  });

  it('refuses late headers the same way on a kept-alive connection, after an earlier request was answered', async () => {
    const { url, lines } = await listeningReceiver({ bodyTimeoutMs: 100, now: () => new Date('2026-12-01T01:44:00Z') });
    const { hostname, port } = new URL(url);
    const answer = await new Promise<string>((resolve) => {
      let received = '';
      let secondSent = false;
      const socket = connect(Number(port), hostname, () => socket.write('GET /p?session_id=s1&agent_id=a1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'));
      socket.setEncoding('latin1');
      socket.on('data', (chunk: string) => {
        received += chunk;
        // The first answer (chunked) is whole: the second request's headers start, and never end.
        if (!secondSent && received.endsWith('0\r\n\r\n')) {
          secondSent = true;
          socket.write('POST /e HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: appl');
        }
      });
      socket.on('error', () => undefined);
      socket.on('close', () => resolve(received));
    });
    expect(answer).toMatch(/^HTTP\/1\.1 200 /);
    expect(answer).toContain('\r\n\r\n{"detail":"the headers did not arrive within 100 ms"}');
    expect(answer.slice(answer.indexOf('0\r\n\r\n') + 5)).toMatch(/^HTTP\/1\.1 408 /);
    expect(lines).toEqual(['01:44:00Z  GET /p  prefetch  session s1, agent a1, no metadata -> 200', '01:44:00Z  ? ?  request  REFUSED: the headers did not arrive within 100 ms -> 408']);
  });

  it('answers a request Node cannot parse with a 400, as before, and prints nothing for it', async () => {
    const { url, lines } = await listeningReceiver({ bodyTimeoutMs: 60_000 });
    expect(await unfinishedHeaders(url, 'NOT HTTP AT ALL\r\n\r\n')).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(lines).toEqual([]);
  });
});

describe('voxform webhook send → voxform webhook serve on loopback', () => {
  it('delivers both events with the agent\'s headers; serve checks them and says what arrived; no secret is printed', async () => {
    const dir = await tempDir({ 'voxform.yaml': manifest(), 'prefetch.json': '{"metadata": {"tier": "gold"}, "extra_prompt": "The caller is a VIP."}' });
    const serve = await startServe(['--agent', 'front-desk', '--prefetch-response', 'prefetch.json'], dir);
    expect(serve.stdout()).toContain('headers      end-of-call x-hook-token; prefetch x-prefetch-token (agent front-desk)');

    const endOfCall = await send(['--to', `${serve.url}/hooks/end`, '--event', 'end-of-call', '--agent', 'front-desk'], dir);
    expect(endOfCall.stdout).toContain(`end-of-call  POST ${serve.url}/hooks/end  (a sample payload; headers of agent front-desk: x-hook-token)`);
    expect(endOfCall.stdout).toMatch(/^PASS {2}answered 200 in \d+ ms \(the service waits 2,000 ms\)$/m);
    expect(endOfCall.code).toBe(0);

    const prefetch = await send(['--to', `${serve.url}/hooks/prefetch`, '--event', 'prefetch', '--agent', 'front-desk'], dir);
    expect(prefetch.stdout).toMatch(/^PASS {2}answered 200 in \d+ ms .* with a PrefetchWebhookResponse: metadata keys tier; extra_prompt of 20 characters$/m);
    expect(prefetch.code).toBe(0);

    await eventually(() => serve.stdout().split('\n').filter((line) => line.includes(' -> ')).length === 2, 'two request lines');
    const result = await serve.stop();
    expect(result.stdout).toMatch(new RegExp(`POST /hooks/end {2}end-of-call {2}call sample-call-0001, agent ${FRONT_DESK}, user-ended, 42 s, 4 messages, 1 function call, [0-9.]+ credits, metadata customer_id, source -> 200`));
    expect(result.stdout).toMatch(new RegExp(`GET /hooks/prefetch {2}prefetch {2}session sample-session-0001, agent ${FRONT_DESK}, from \\+15551230001, to \\+15559870002, metadata customer_id, source -> 200`));
    expectNoSecret(endOfCall.stdout, endOfCall.stderr, prefetch.stdout, prefetch.stderr, result.stdout, result.stderr);
  });

  it('answers every malformed request line and URL with a 400 and keeps serving (one `GET //[` once ended it)', async () => {
    const dir = await tempDir({ 'voxform.yaml': manifest() });
    const serve = await startServe([], dir);
    const host = new URL(serve.url).host;
    for (const line of HOSTILE_REQUEST_LINES) {
      expect((await rawExchange(serve.url, `${line}\r\nHost: ${host}`)).status, JSON.stringify(line)).toBe(400);
    }
    const prefetch = await send(['--to', `${serve.url}/hooks/prefetch`, '--event', 'prefetch'], dir);
    expect(prefetch.code).toBe(0);
    await eventually(() => serve.stdout().includes('GET /hooks/prefetch  prefetch'), 'the prefetch line');
    const result = await serve.stop();
    expect(result.stdout).toContain('GET //[  request  REFUSED: The request target is not a valid URL. -> 400');
    expect(result.stdout).toContain('GET /%zz  request  REFUSED: The request path holds a malformed percent-escape. -> 400');
    expect(result.code).toBe(130);
  });

  it('a wrong header fails on both sides: send exits 1, serve refuses with 401 naming the header, not its value', async () => {
    const dir = await tempDir({ 'voxform.yaml': manifest() });
    const serve = await startServe(['--agent', 'front-desk'], dir);
    const wrong = { HOOK_TOKEN: `${HOOK_TOKEN}-old`, PREFETCH_TOKEN };
    const result = await send(['--to', `${serve.url}/hook`, '--event', 'end-of-call', '--agent', 'front-desk'], dir, wrong);
    expect(result.stdout).toContain('FAIL  the receiver answered 401; the service expects a 2xx answer');
    expect(result.code).toBe(1);
    const unsent = await send(['--to', `${serve.url}/hook`, '--event', 'prefetch'], dir);
    expect(unsent.stdout).toContain('no headers (--agent NAME sends the agent\'s)');
    expect(unsent.code).toBe(1);
    await eventually(() => serve.stdout().split('\n').filter((line) => line.includes(' -> ')).length === 2, 'two request lines');
    const log = (await serve.stop()).stdout;
    expect(log).toContain('POST /hook  end-of-call  REFUSED: the secret header "x-hook-token" is missing or wrong -> 401');
    expect(log).toContain('GET /hook  prefetch  REFUSED: the secret header "x-prefetch-token" is missing or wrong -> 401');
    expectNoSecret(result.stdout, result.stderr, log);
    expect(log).not.toContain(wrong.HOOK_TOKEN);
  });

  it('serve reports a payload that is not JSON, not an end-of-call payload, too large, or not a webhook at all', async () => {
    const dir = await tempDir({});
    const serve = await startServe([], dir);
    const post = (body: string) => fetch(`${serve.url}/hook`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
    const notJson = await post('{"call_id": ');
    expect(notJson.status).toBe(400);
    const wrongShape = await post(JSON.stringify({ call_id: 'c1', agent_id: 'a1', session_id: 's1', chat: '[]', ts: 1, duration: 3, call_status: 'finished' }));
    expect(wrongShape.status).toBe(422);
    expect(await wrongShape.json()).toEqual({ detail: 'not an end-of-call payload: call_status must be equal to one of the allowed values' });
    expect((await post('x'.repeat(1024 * 1024 + 1)).catch(() => ({ status: 413 }))).status).toBe(413);
    expect((await fetch(`${serve.url}/hook`, { method: 'PUT', body: '{}' })).status).toBe(405);
    expect((await fetch(`${serve.url}/hook?agent_id=a1`)).status).toBe(422);
    await eventually(() => serve.stdout().split('\n').filter((line) => line.includes(' -> ')).length === 5, 'five request lines');
    const log = (await serve.stop()).stdout;
    expect(log).toContain('end-of-call  REFUSED: the body is not JSON -> 400');
    expect(log).toContain('end-of-call  REFUSED: not an end-of-call payload: call_status must be equal to one of the allowed values -> 422');
    expect(log).toContain(`end-of-call  REFUSED: the body is over ${1024 * 1024} bytes -> 413`);
    expect(log).toContain('PUT /hook  unknown  REFUSED: PUT is not a webhook');
    expect(log).toContain('GET /hook  prefetch  REFUSED: not a prefetch request: session_id is required -> 422');
  });

  it('serve prints the control characters of what arrives escaped, never raw to the terminal', async () => {
    const serve = await startServe([], await tempDir({}));
    const payload = {
      chat: '[]', function_calls: [], ts: 1, duration: 3, agent_config: {}, agent_id: 'agent\u001b[31m', call_id: 'call\u001b]0;pwned\u0007',
      chars_used: 0, session_id: 's1', cost_breakdown: [], voip: {}, recording: { recording_url: '' }, metadata: { 'key\u009b2J': 1 }, call_status: 'user-ended', error_message: null,
    };
    expect((await fetch(`${serve.url}/hook`, { method: 'POST', body: JSON.stringify(payload) })).status).toBe(200);
    expect((await fetch(`${serve.url}/hook?session_id=s%1b%5B2J&agent_id=a%0Dfaked&from=%07&tier%1b=1`)).status).toBe(200);
    await eventually(() => serve.stdout().split('\n').filter((line) => line.includes(' -> ')).length === 2, 'two request lines');
    const log = (await serve.stop()).stdout;
    expect(log).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(log).toContain('call call\\u001b]0;pwned\\u0007, agent agent\\u001b[31m, user-ended');
    expect(log).toContain('metadata key\\u009b2J -> 200');
    expect(log).toContain('session s\\u001b[2J, agent a\\rfaked, from \\u0007, metadata tier\\u001b -> 200');
  });

  it('serve shows the manifest\'s header names escaped in its banner (a pull request writes them)', async () => {
    const manifest = [
      'version: 1',
      'agents:',
      '  desk:',
      '    id: "-OKdqbqetEcM4ak369ym"',
      '    config:',
      '      session_data_webhook: { url: "https://hooks.example.com/end", headers: { "X-\\e]0;pwned\\a": "${env:HOOK_TOKEN}" } }',
      '',
    ].join('\n');
    const serve = await startServe(['--agent', 'desk'], await tempDir({ 'voxform.yaml': manifest }));
    const banner = serve.stdout();
    expect(banner).toContain('end-of-call X-\\u001b]0;pwned\\u0007; prefetch none (agent desk)');
    expect(banner).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expectNoSecret(banner);
  });

  it('Ctrl-C stops serve cleanly: it says so and exits 130', async () => {
    const serve = await startServe([], await tempDir({}));
    const result = await serve.stop();
    expect(result.code).toBe(130);
    expect(result.stderr).toBe('Stopping… (Ctrl-C again stops at once).\nerror[interrupted]: voxform webhook serve stopped at your request.\n  hint: Run `voxform webhook serve --port 0` again to listen again.\n');
  });

  it('Ctrl-C: the line to listen again carries the options that chose what it served, as typed (docs/plan.md, Interrupts)', async () => {
    const dir = await tempDir({ 'my hooks.yaml': manifest(), 'prefetch.json': '{}' });
    const serve = await startServe(['-f', 'my hooks.yaml', '--agent', 'front-desk', '--prefetch-response', 'prefetch.json'], dir);
    const result = await serve.stop();
    expect(result.code).toBe(130);
    expect(result.stderr).toContain("  hint: Run `voxform webhook serve --port 0 --agent front-desk --prefetch-response prefetch.json -f 'my hooks.yaml'` again to listen again.\n");
    expectNoSecret(result.stdout, result.stderr);
  });
});

describe('webhook serve beyond loopback', () => {
  it('warns that others can reach it, and that no header is checked without --agent', async () => {
    const serve = await startServe(['--host', '0.0.0.0'], await tempDir({}));
    const result = await serve.stop();
    expect(result.stderr).toContain('warning: listening on 0.0.0.0, not loopback: whoever can reach this machine can send it requests, and without --agent no header is checked.\n');
    expect(result.code).toBe(130);
  });
});

describe('voxform webhook send checks the answer', () => {
  it.each([
    ['a PrefetchWebhookResponse', answerWith(200, '{"metadata": {"tier": "gold", "visits": 3}}'), 0, 'with a PrefetchWebhookResponse: metadata keys tier, visits; extra_prompt none'],
    ['metadata that is not an object', answerWith(200, '{"metadata": "gold"}'), 1, 'but not with a PrefetchWebhookResponse: metadata must be object; the service would ignore it'],
    ['a JSON list', answerWith(200, '[]'), 1, 'but not with a PrefetchWebhookResponse: not a JSON object'],
    ['text', answerWith(200, 'hello', 'text/plain'), 1, 'FAIL  the receiver answered something that is not JSON; the service would go on without the extra data'],
    ['no body', answerWith(200), 1, 'with no JSON body; a prefetch answer is a PrefetchWebhookResponse'],
    ['a 500', answerWith(500, '{}'), 1, 'FAIL  the receiver answered 500'],
  ])('prefetch answered with %s', async (_what, respond, code, expected) => {
    const receiver = await startReceiver(respond);
    const result = await send(['--to', `${receiver.url}/p?token=in-the-url`, '--event', 'prefetch'], await tempDir({}));
    expect(result.stdout).toContain(expected);
    expect(result.code).toBe(code);
    expect(receiver.received[0]?.method).toBe('GET');
    // The operator's query stays on the URL; the spec's parameters are added to it.
    expect(new URL(receiver.received[0]?.path ?? '', 'http://x').searchParams.get('token')).toBe('in-the-url');
    expect(result.stdout).not.toContain('in-the-url');
  });

  it('prints the control characters of the receiver\'s answer escaped, never raw to the terminal', async () => {
    const receiver = await startReceiver(answerWith(200, JSON.stringify({ metadata: { 'tier\u001b]0;pwned\u0007': 'gold', 'visits\u009b2J': 3 } })));
    const result = await send(['--to', receiver.url, '--event', 'prefetch'], await tempDir({}));
    expect(result.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(result.stdout).toContain('metadata keys tier\\u001b]0;pwned\\u0007, visits\\u009b2J; extra_prompt none');
    expect(result.code).toBe(0);
  });

  it.each([
    [204, 0, 'PASS  answered 204'],
    [500, 1, 'FAIL  the receiver answered 500; the service expects a 2xx answer'],
  ])('end-of-call answered %d', async (status, code, expected) => {
    const receiver = await startReceiver(answerWith(status));
    const result = await send(['--to', receiver.url, '--event', 'end-of-call'], await tempDir({}));
    expect(result.stdout).toContain(expected);
    expect(result.code).toBe(code);
    expect(receiver.received[0]?.headers['content-type']).toBe('application/json');
  });

  it('a receiver that does not answer within the service\'s budget fails, and so does one that is not there', async () => {
    const silent = await startReceiver(() => undefined);
    const slow = await send(['--to', silent.url, '--event', 'end-of-call'], await tempDir({}));
    expect(slow.stdout).toContain('FAIL  the receiver timed out after 2000 ms');
    expect(slow.code).toBe(1);
    const closed = await startReceiver(answerWith(200));
    const port = new URL(closed.url).port;
    await cleanups.pop()?.();
    const refused = await send(['--to', `http://127.0.0.1:${port}/`, '--event', 'end-of-call'], await tempDir({}));
    expect(refused.stdout).toContain('FAIL  the receiver refused the connection: nothing listens there (ECONNREFUSED); ');
    expect(refused.code).toBe(1);
  });

  it('a TLS handshake that fails says why in a sentence, without OpenSSL\'s internals: a plain-HTTP receiver, a self-signed certificate', async () => {
    const plain = await startReceiver(answerWith(200));
    const notTls = await send(['--to', plain.url.replace('http:', 'https:'), '--event', 'end-of-call'], await tempDir({}));
    expect(notTls.stdout).toContain('FAIL  the receiver failed the TLS handshake: the server did not answer in TLS (is it a plain http:// service?) (EPROTO); the service expects a 2xx answer');
    expect(notTls.code).toBe(1);
    const selfSigned = createHttpsServer(selfSignedCertificate(), (_req, res) => answerWith(200)(res));
    await new Promise<void>((resolve) => selfSigned.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => (selfSigned.closeAllConnections(), selfSigned.close(() => resolve()))));
    const untrusted = await send(['--to', `https://127.0.0.1:${(selfSigned.address() as AddressInfo).port}/`, '--event', 'end-of-call'], await tempDir({}));
    expect(untrusted.stdout).toContain('FAIL  the receiver failed the TLS handshake: its certificate is self-signed, and this machine does not trust it (DEPTH_ZERO_SELF_SIGNED_CERT); ');
    expect(untrusted.code).toBe(1);
    for (const output of [notTls.stdout, untrusted.stdout]) expect(output).not.toMatch(/SSL routines|openssl|\\n/i);
  });
});

describe('where webhook send sends', () => {
  it('uses the agent\'s configured URL only with --to-configured, and then with its headers', async () => {
    const receiver = await startReceiver(answerWith(200));
    const dir = await tempDir({ 'voxform.yaml': manifest(`${receiver.url}/configured`) });
    const refused = await send(['--event', 'end-of-call', '--agent', 'front-desk'], dir);
    expect(refused.stderr).toContain('error[webhook_target_missing]: Say where to send the webhook: --to URL, or --to-configured for the URL the agent configures.');
    expect(refused.code).toBe(1);
    expect(receiver.received).toEqual([]);

    const result = await send(['--to-configured', '--event', 'end-of-call', '--agent', 'front-desk'], dir);
    expect(result.stdout).toContain(`end-of-call  POST ${receiver.url}/configured  (a sample payload; headers of agent front-desk: x-hook-token)`);
    expect(result.code).toBe(0);
    expect(receiver.received[0]).toMatchObject({ method: 'POST', path: '/configured' });
    expect(receiver.received[0]?.headers['x-hook-token']).toBe(HOOK_TOKEN);
    expectNoSecret(result.stdout, result.stderr);
  });
});

describe('webhook send --call: a logged call\'s payload', () => {
  let emulator: RunningEmulator;

  async function loggedCall(end: boolean): Promise<string> {
    emulator = await startEmulator({ port: 0, quiet: true, webhooks: 'none' });
    cleanups.push(() => emulator.close());
    const call = (route: string, method: string, body: unknown) =>
      fetch(`${emulator.url}${route}`, { method, headers: { authorization: emulator.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const config = { prompt: 'Hello.', session_data_webhook: { url: 'https://hooks.example.com/end', headers: { 'x-hook-token': LOGGED_SECRET } } };
    expect((await call(`/agents/${FRONT_DESK}`, 'PUT', { name: 'Front desk', config })).status).toBe(200);
    const registered = (await (await call('/register_call', 'POST', { agent_id: FRONT_DESK, from_phone: '+15550100001', to_phone: '+15551230001', metadata: { customer: 'c1' } })).json()) as { call_id: string };
    if (end) await emulator.control.endCall(registered.call_id, 'agent-ended', { duration: 12 });
    return registered.call_id;
  }

  const connection = () => ({ VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: emulator.apiKey });

  it('sends the record as the service would, and keeps its secrets out of the terminal', async () => {
    const callId = await loggedCall(true);
    const receiver = await startReceiver(answerWith(200, '{}'));
    const result = await send(['--to', receiver.url, '--event', 'end-of-call', '--call', callId], await tempDir({}), connection());
    expect(result.stdout).toContain(`(the payload of call ${callId}; no headers`);
    expect(result.code).toBe(0);
    const body = JSON.parse(receiver.received[0]?.body ?? '{}') as Record<string, unknown>;
    expect(body).toMatchObject({ call_id: callId, agent_id: FRONT_DESK, call_status: 'agent-ended', duration: 12, metadata: { customer: 'c1' } });
    // The receiver is the one the service would send the config to; the terminal never sees it.
    expect(JSON.stringify(body.agent_config)).toContain(LOGGED_SECRET);
    expectNoSecret(result.stdout, result.stderr);

    const prefetch = await send(['--to', receiver.url, '--event', 'prefetch', '--call', callId], await tempDir({}), connection());
    expect(prefetch.code).toBe(0);
    expect(Object.fromEntries(new URL(receiver.received[1]?.path ?? '', 'http://x').searchParams)).toMatchObject({ session_id: expect.any(String), agent_id: FRONT_DESK, customer: 'c1', from: '+15550100001' });
  });

  it('reads the call from the service the manifests name, where the operator names none', async () => {
    const callId = await loggedCall(true);
    const receiver = await startReceiver(answerWith(200, '{}'));
    const dir = await tempDir({ 'voxform.yaml': `base_url: ${emulator.url}\nagents:\n  desk: { id: "${FRONT_DESK}" }\n` });
    const result = await send(['--to', receiver.url, '--event', 'end-of-call', '--call', callId], dir, { VOXFORM_API_KEY: emulator.apiKey, VOXFORM_TRUSTED_ORIGINS: emulator.url });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`(the payload of call ${callId}; no headers`);
  });

  it('refuses a call that is not logged, or (for end-of-call) has not ended', async () => {
    const callId = await loggedCall(false);
    const dir = await tempDir({});
    const missing = await send(['--to', 'http://127.0.0.1:9/', '--event', 'end-of-call', '--call', 'no-such-call'], dir, connection());
    expect(missing.stderr).toContain('error[call_not_found]: No call no-such-call in the 10,000 most recent call records.');
    expect(missing.code).toBe(1);
    const open = await send(['--to', 'http://127.0.0.1:9/', '--event', 'end-of-call', '--call', callId], dir, connection());
    expect(open.stderr).toContain(`error[webhook_call_not_ended]: Call ${callId} has not ended (its status is registered)`);
    expect(open.code).toBe(1);
  });

  it('shows the control characters of a logged call\'s status escaped in its error, never raw', async () => {
    emulator = await startEmulator({ port: 0, quiet: true, webhooks: 'none', seed: { keys: [{ type: 'private', key: 'webhookSendControlKey00000000001' }], call_logs: [{ call_id: 'call-ringing', agent_id: FRONT_DESK, ts: 1_767_225_600, call_status: 'ringing\u001b]0;pwned\u0007' }] } });
    cleanups.push(() => emulator.close());
    const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: 'webhookSendControlKey00000000001' };
    const result = await send(['--to', 'http://127.0.0.1:9/', '--event', 'end-of-call', '--call', 'call-ringing'], await tempDir({}), env);
    expect(result.code).toBe(1);
    expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(result.stderr).toContain('error[webhook_call_not_ended]: Call call-ringing has not ended (its status is ringing\\u001b]0;pwned\\u0007)');
  });

  /**
   * `--local`'s account with an ended call whose logged agent carries `x-trace: WORDS` in its
   * end-of-call headers: words `webhook send` prints in its verdict. `tracked`: the file is committed,
   * as when a pull request commits it.
   */
  async function localCallWithHeader(words: string, tracked: boolean): Promise<{ dir: string; callId: string }> {
    const dir = await tempDir({});
    // Any run with --local makes the folder's account from the default seed.
    const made = await send(['--local', '--to', 'http://127.0.0.1:9/', '--event', 'end-of-call', '--call', 'no-such-call'], dir, {});
    expect(made.stderr).toContain('call_not_found');
    const dataFile = path.join(dir, '.voxform', 'local.json');
    const data = JSON.parse(await readFile(dataFile, 'utf8')) as { call_logs: Array<Record<string, unknown>> };
    const record = data.call_logs.find((one) => one.call_status === 'user-ended');
    if (!record) throw new Error('the default seed has no ended call');
    record.agent_config = { prompt: 'Hello.', session_data_webhook: { url: 'https://hooks.example.com/end', headers: { 'x-trace': words } } };
    await writeFile(dataFile, JSON.stringify(data));
    if (tracked) {
      git(dir, 'init', '-q', '-b', 'main');
      git(dir, 'add', '.voxform/local.json');
      // Committed as the pull request's job checks it out: a file changed since is the operator's.
      git(dir, 'commit', '-qm', 'pull request');
    }
    return { dir, callId: record.call_id as string };
  }

  it("a committed .voxform/local.json's header values hide none of the words they hold (docs/security.md §5); an ignored one's are the machine's, searched for", async () => {
    const words = 'the service waits';
    const receiver = await startReceiver(answerWith(200, '{}'));
    const committed = await localCallWithHeader(words, true);
    const result = await send(['--local', '--to', receiver.url, '--event', 'end-of-call', '--call', committed.callId], committed.dir, {});
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain(`(${words} 2,000 ms)`);
    expect(result.stdout + result.stderr).not.toContain('(sensitive)');
    // The receiver gets the record as the emulator keeps it, as the service would send it.
    expect(JSON.parse(receiver.received[0]?.body ?? '{}')).toMatchObject({ agent_config: { session_data_webhook: { headers: { 'x-trace': words } } } });

    const own = await localCallWithHeader(words, false);
    const ownResult = await send(['--local', '--to', receiver.url, '--event', 'end-of-call', '--call', own.callId], own.dir, {});
    expect(ownResult.code, ownResult.stderr).toBe(0);
    expect(ownResult.stdout).toContain('((sensitive) 2,000 ms)');
  });
});

describe('bad flags: one clear sentence, exit 1, no stack trace', () => {
  it.each([
    [['send', '--to', 'not a url', '--event', 'prefetch'], 'error[webhook_url_invalid]: --to is not a URL.'],
    [['send', '--to', 'ftp://127.0.0.1/x', '--event', 'prefetch'], 'error[webhook_url_invalid]: --to uses ftp; webhooks are http:// or https://.'],
    [['send', '--to', 'http://127.0.0.1:9/', '--to-configured', '--event', 'prefetch'], 'error[webhook_target_missing]: --to and --to-configured contradict each other.'],
    [['send', '--to-configured', '--event', 'prefetch'], 'error[webhook_target_missing]: --to-configured needs --agent NAME: the URL is the one that agent configures.\n  hint: Add --agent NAME (an agent of the manifests), or give --to URL instead.'],
    [['send', '--to', 'http://127.0.0.1:9/'], 'error[invalid_argument]: `voxform webhook send` needs --event <event>.\n  hint: Run `voxform webhook send --help`'],
    [['send', '--to', 'http://127.0.0.1:9/', '--event', 'hangup'], 'error[invalid_option]: The value given to --event is not one it takes: choose end-of-call or prefetch.\n  hint: '],
    [['send', '--to', 'http://127.0.0.1:9/', '--event', 'prefetch', '--agent', 'front-dsk'], 'error[agent_unknown]: --agent "front-dsk" is not an agent of the manifests.\n  hint: Did you mean front-desk?'],
    [['send', '--to-configured', '--event', 'prefetch', '--agent', 'booking'], 'error[webhook_not_configured]: Agent booking configures no extra_prompt_webhook'],
    [['serve', '--port', 'http'], 'error[invalid_option]: The value given to --port is not a whole number from 0 to 65,535.\n  hint: Give --port 0 to let the system pick a free port.'],
    [['serve', '--port', '0', '--prefetch-response', 'missing.json'], 'error[file_unreadable]: --prefetch-response missing.json does not exist.'],
    [['serve', '--port', '0', '--prefetch-response', 'bad.json'], 'error[webhook_response_invalid]: --prefetch-response bad.json is not a PrefetchWebhookResponse: extra_prompt must be string.'],
    [['serve', '--port', '0', '--prefetch-response', 'voxform.yaml'], 'error[webhook_response_invalid]: voxform.yaml:1:1: --prefetch-response voxform.yaml is not valid JSON: expected a value (an object, a list, a string in double quotes, a number, true, false or null), found "a".'],
  ])('webhook %j', async (args, expected) => {
    const dir = await tempDir({ 'voxform.yaml': manifest(), 'bad.json': '{"extra_prompt": 42}' });
    const result = await runCliInProcess(['webhook', ...args], { cwd: dir, env: ENV });
    expect(result.stderr).toContain(expected);
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(1);
    expectNoSecret(result.stdout, result.stderr);
  });

  it('manifests with errors stop send and serve, each saying what it did not do (serve sends nothing: it did not start)', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'agents:\n  a:\n    id: -OKdqbqetEcM4ak369ym\n    config: { prompt: hi, colour: blue }\n' });
    for (const [args, outcome] of [
      [['send', '--to', 'http://127.0.0.1:9/x', '--event', 'end-of-call', '--agent', 'a'], 'nothing was sent'],
      [['serve', '--port', '0', '--agent', 'a'], 'the receiver was not started'],
    ] as const) {
      const result = await runCliInProcess(['webhook', ...args], { cwd: dir, env: ENV });
      expect(result.stderr, args[0]).toContain(`error[manifest_invalid]: The manifests have 1 error (listed above); ${outcome}.`);
      expect(result.code, args[0]).toBe(1);
    }
  });

  it('flags that leave the target unclear are refused before manifests are read: a folder without one is not manifest_not_found', async () => {
    const dir = await tempDir({});
    for (const [flags, sentence] of [
      [['--to', 'http://127.0.0.1:9/x', '--to-configured'], '--to and --to-configured contradict each other.'],
      [[], 'Say where to send the webhook: --to URL, or --to-configured for the URL the agent configures.'],
    ] as const) {
      const result = await runCliInProcess(['webhook', 'send', '--event', 'end-of-call', ...flags, '--agent', 'a'], { cwd: dir, env: ENV });
      expect(result.stderr, sentence).toContain(`error[webhook_target_missing]: ${sentence}`);
      expect(result.code, sentence).toBe(1);
    }
  });

  it('an --agent the manifests do not have, when they have no agent: send and serve name the file read, not voxform.yaml', async () => {
    const dir = await tempDir({ 'agents.yaml': 'version: 1\nagents: {}\n' });
    for (const args of [['send', '--to', 'http://127.0.0.1:9/', '--event', 'prefetch'], ['serve', '--port', '0']]) {
      const result = await runCliInProcess(['webhook', ...args, '--agent', 'desk'], { cwd: dir, env: ENV });
      expect(result.stderr, args[0]).toBe('error[agent_unknown]: --agent "desk" is not an agent of the manifests.\n  hint: Give an agent name from agents.yaml (-f to name other manifests).\n');
      expect(result.code, args[0]).toBe(1);
    }
  });

  it('serve refuses a --prefetch-response that is a FIFO or a device at once, instead of waiting on it forever', async () => {
    const dir = await tempDir({});
    execFileSync('mkfifo', [path.join(dir, 'answer.fifo')]);
    for (const [file, kind] of [
      ['answer.fifo', 'a FIFO (named pipe)'],
      ['/dev/zero', 'a device'],
    ] as const) {
      const result = await runCliInProcess(['webhook', 'serve', '--port', '0', '--prefetch-response', file], { cwd: dir, env: ENV });
      expect(result.stderr, file).toContain(`error[file_unreadable]: --prefetch-response ${file} is ${kind}, not a regular file.`);
      expect(result.code, file).toBe(1);
    }
  });

  it('serve on a port that is taken', async () => {
    const receiver = await startReceiver(answerWith(200));
    const port = new URL(receiver.url).port;
    const result = await runCliInProcess(['webhook', 'serve', '--port', port], { cwd: await tempDir({}) });
    expect(result.stderr).toContain(`error[webhook_listen_failed]: voxform webhook serve cannot listen on 127.0.0.1:${port}: port ${port} is taken.`);
    expect(result.code).toBe(1);
  });
});

describe('the configured prefetch answer', () => {
  it('is answered as written to every valid prefetch', async () => {
    const dir = await tempDir({ 'answer.json': '{"extra_prompt": "Speak slowly."}' });
    const serve = await startServe(['--prefetch-response', 'answer.json'], dir);
    const answer = await fetch(`${serve.url}/p?session_id=s1&agent_id=a1`);
    expect(await answer.json()).toEqual({ extra_prompt: 'Speak slowly.' });
    await writeFile(path.join(dir, 'answer.json'), '{}');
    expect(await (await fetch(`${serve.url}/p?session_id=s1&agent_id=a1`)).json()).toEqual({ extra_prompt: 'Speak slowly.' });
  });
});
