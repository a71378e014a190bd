/**
 * The wire thread (src/api/wire-thread.ts): the CLI's client keeps its sockets and its in-flight
 * bound on a thread of their own. These run the compiled client (`dist/`, built before the tests:
 * the thread's module exists only there) and check that what crosses between the threads keeps its
 * meaning: answers whole, failures with their codes (so a time-out is still `api_timeout`, a bad
 * certificate still `api_tls`), the bound, stopping, and a process that ends without closing.
 * No test measures time: a guard that failed would make its test hang and fail.
 */
import { spawn } from 'node:child_process';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type * as ApiModule from '../../src/api/index.js';
import type * as HttpModule from '../../src/api/http.js';
import { useFakeServers } from './helpers.js';
import { selfSignedCertificate } from './self-signed.js';

const root = path.resolve(import.meta.dirname, '../..');
// The compiled modules, typed as their sources.
const { createClient } = (await import(path.join(root, 'dist/api/index.js'))) as typeof ApiModule;
const { HttpTransport } = (await import(path.join(root, 'dist/api/http.js'))) as typeof HttpModule;

const KEY = 'k'.repeat(32);
/** What holds with the wire on its own thread holds with it on the caller's too. */
const EITHER_THREAD = [
  ['on the wire thread', true],
  ['on this thread', false],
] as const;
const { serve, cleanups } = useFakeServers();

function client(baseUrl: string, options: Partial<ApiModule.ClientOptions> = {}) {
  const made = createClient({ baseUrl, apiKey: KEY, wireThread: true, retries: 0, ...options });
  cleanups.push(() => made.close({ abort: true }));
  return made;
}

describe('the transport on the wire thread', () => {
  it('is on the thread when asked (and the compiled thread module is there), on this one otherwise', async () => {
    const threaded = new HttpTransport({ maxInFlight: 2, wireThread: true });
    const local = new HttpTransport({ maxInFlight: 2 });
    cleanups.push(() => threaded.destroy(), () => local.destroy());
    expect(threaded.onWireThread).toBe(true);
    expect(local.onWireThread).toBe(false);
  });

  it('sends the request as given and hands the whole answer back, telling when it was dispatched', async () => {
    const seen: Array<{ method?: string; url?: string; auth?: string; body: string }> = [];
    const fake = await serve((req, res, body) => {
      seen.push({ method: req.method, url: req.url, auth: req.headers.authorization, body });
      res.writeHead(201, { 'content-type': 'application/json', 'x-echo': 'yes' }).end(JSON.stringify({ big: 'z'.repeat(300_000) }));
    });
    const transport = new HttpTransport({ maxInFlight: 2, wireThread: true });
    cleanups.push(() => transport.destroy());
    let dispatchedAt: number | undefined;
    const before = performance.now();
    const answer = await transport.send({
      origin: fake.url,
      path: '/agents/x?y=1',
      method: 'PUT',
      headers: { authorization: KEY, 'content-type': 'application/json' },
      body: '{"name":"n"}',
      timeoutMs: 10_000,
      onDispatch: (at) => (dispatchedAt = at),
    });
    expect(seen).toEqual([{ method: 'PUT', url: '/agents/x?y=1', auth: KEY, body: '{"name":"n"}' }]);
    expect(answer.status).toBe(201);
    expect(answer.headers['x-echo']).toBe('yes');
    expect(JSON.parse(answer.body).big).toHaveLength(300_000);
    // On this thread's clock, within the request's own span.
    expect(dispatchedAt).toBeGreaterThanOrEqual(before - 1);
    expect(dispatchedAt).toBeLessThanOrEqual(performance.now());
  });

  it('keeps at most maxInFlight requests on the wire, the rest queued on the thread', async () => {
    let open = 0;
    let most = 0;
    const waiting: Array<() => void> = [];
    const fake = await serve((_req, res) => {
      open++;
      most = Math.max(most, open);
      waiting.push(() => {
        open--;
        res.end('[]');
      });
      // Answer only once the bound is full (or everything has arrived), so a broken bound shows.
      if (waiting.length >= 2) for (const answer of waiting.splice(0)) answer();
    });
    const test = client(fake.url, { maxInFlight: 2 });
    await Promise.all(Array.from({ length: 8 }, () => test.listPhones()));
    expect(most).toBe(2);
  });
});

describe('failures keep their meaning across the threads', () => {
  it('a body that drips forever ends in api_timeout', async () => {
    const fake = await serve((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 20);
      res.on('close', () => clearInterval(timer));
    });
    const error = await client(fake.url, { timeoutMs: 300 }).listPhones().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'api_timeout', message: expect.stringMatching(/did not answer within 0\.3 s\.$/) });
  });

  it('an answer over the cap is api_response_too_large', async () => {
    const fake = await serve((_req, res) => void res.writeHead(200, { 'content-type': 'application/json' }).end('x'.repeat(2 * 1024 * 1024)));
    const error = await client(fake.url, { maxResponseBytes: 1024 * 1024 }).listPhones().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'api_response_too_large' });
  });

  it('a refused connection is a network failure, retried as on this thread', async () => {
    const fake = await serve((_req, res) => void res.end('[]'));
    const url = fake.url;
    await fake.close();
    const error = await client(url, { retries: 1, backoff: { baseMs: 1, maxMs: 1 } }).listPhones().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'api_unavailable', attempts: 2 });
    expect((error as Error).message).toContain('(connection refused) (after 2 attempts)');
  });

  it('a certificate this machine does not trust is api_tls, naming the cause', async () => {
    const server = createHttpsServer(selfSignedCertificate(), (_req, res) => res.end('[]'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const error = await client(`https://127.0.0.1:${(server.address() as AddressInfo).port}`).listPhones().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'api_tls', message: expect.stringContaining('DEPTH_ZERO_SELF_SIGNED_CERT') });
  });

  it('close({abort: true}) stops a request in flight with api_interrupted', async () => {
    let received!: () => void;
    const arrived = new Promise<void>((resolve) => (received = resolve));
    const fake = await serve(() => received()); // never answers
    const test = client(fake.url, { timeoutMs: 600_000 });
    const pending = test.listPhones().catch((e: unknown) => e);
    await arrived;
    await test.close({ abort: true });
    expect(await pending).toMatchObject({ code: 'api_interrupted' });
  });
});

describe('withdrawing requests that wait for a slot (ApiClient.withSignal)', () => {
  it.each(EITHER_THREAD)('%s: the queued ones fail with api_not_sent and never reach the service; the one on the wire is answered', async (_where, wireThread) => {
    const arrived: string[] = [];
    let answerFirst!: () => void;
    const fake = await serve((req, res) => {
      arrived.push(req.url ?? '');
      answerFirst = () => res.end('[]');
    });
    const base = client(fake.url, { maxInFlight: 1, wireThread, timeoutMs: 60_000 });
    const stop = new AbortController();
    const viewed = base.withSignal(stop.signal);
    expect(viewed.maxInFlight).toBe(1);
    const results = ['/phones', '/agents/a', '/agents/b'].map((_path, i) =>
      (i === 0 ? viewed.listPhones() : viewed.getAgent(i === 1 ? 'a' : 'b')).then(
        () => 'answered',
        (error: { code?: string }) => error.code,
      ),
    );
    while (arrived.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    stop.abort();
    expect(await results[1]).toBe('api_not_sent');
    expect(await results[2]).toBe('api_not_sent');
    answerFirst();
    expect(await results[0]).toBe('answered');
    expect(arrived).toEqual(['/phones']);
    // The client itself is not stopped: a request without the signal goes out.
    fake.server.removeAllListeners('request');
    fake.server.on('request', (_req, res) => res.end('[]'));
    expect(await base.listPhones()).toEqual([]);
  });
});

describe('many requests waiting on one stop signal', () => {
  it.each(EITHER_THREAD)('%s: no listener-leak warning, however many wait (a large apply queues hundreds)', async (_where, wireThread) => {
    const warnings: string[] = [];
    const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);
    process.on('warning', onWarning);
    try {
      const fake = await serve((_req, res) => void res.end('[]'));
      const viewed = client(fake.url, { maxInFlight: 1, wireThread }).withSignal(new AbortController().signal);
      const answers = await Promise.all(Array.from({ length: 40 }, () => viewed.listPhones()));
      expect(answers).toHaveLength(40);
      // Warnings are emitted on the next tick.
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((warning) => warning.startsWith('MaxListenersExceededWarning'))).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('streams and the process', () => {
  it('a streamed answer (chat) is read on this thread, holding a slot of the same bound', async () => {
    let open = 0;
    let most = 0;
    const fake = await serve((req, res) => {
      open++;
      most = Math.max(most, open);
      res.on('finish', () => open--);
      if (req.url?.startsWith('/chat/completions')) {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write('data: {"choices":[{"delta":{"content":"hi"}}]}\n\n');
        setTimeout(() => res.end('data: [DONE]\n\n'), 50);
      } else {
        res.end('[]');
      }
    });
    const test = client(fake.url, { maxInFlight: 1 });
    const [chunks, phones] = await Promise.all([
      test.chatCompletions({ agent: { agent_id: 'a' }, messages: [{ role: 'user', content: 'hi' }] }).collect(),
      test.listPhones(),
    ]);
    expect(JSON.stringify(chunks)).toContain('hi');
    expect(phones).toEqual([]);
    expect(most).toBe(1);
  });

  it('a process whose client is never closed still ends when its work is done', async () => {
    const fake = await serve((_req, res) => void res.end('[]'));
    const script = `
      const { createClient } = await import(${JSON.stringify(path.join(root, 'dist/api/index.js'))});
      const client = createClient({ baseUrl: ${JSON.stringify(fake.url)}, apiKey: ${JSON.stringify(KEY)}, wireThread: true });
      const phones = await client.listPhones();
      process.stdout.write(JSON.stringify(phones));
    `;
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect({ code, out }).toEqual({ code: 0, out: '[]' });
  });

  it('starts in a process run with a Node option a thread may not have (`node --trace-gc`)', async () => {
    const fake = await serve((_req, res) => void res.end('[]'));
    const script = `
      const { createClient } = await import(${JSON.stringify(path.join(root, 'dist/api/index.js'))});
      const client = createClient({ baseUrl: ${JSON.stringify(fake.url)}, apiKey: ${JSON.stringify(KEY)}, wireThread: true });
      process.stdout.write('answer ' + JSON.stringify(await client.listPhones()));
    `;
    const child = spawn(process.execPath, ['--trace-gc', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    // --trace-gc writes its own lines to stdout too.
    expect({ code, answer: /answer (.*)$/.exec(out)?.[1] }).toEqual({ code: 0, answer: '[]' });
  });
});
