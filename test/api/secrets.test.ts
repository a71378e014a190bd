import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/api/index.js';
import { emulatorWithClient, fakeServer, testClient } from './helpers.js';

const KEY = 'sk9ZqT4mW2xV7bN1cR5yH8jL3pF6dG0a';

/** Everything an error exposes to a printer: message, hint, details, stack and the cause chain. */
function everything(error: unknown): string {
  const e = error as ApiError & { cause?: unknown };
  const parts = [String(e.message), String(e.hint), JSON.stringify(e.details), String(e.stack), JSON.stringify(e)];
  let cause: unknown = e.cause;
  for (let i = 0; i < 3 && cause; i++) {
    parts.push(String((cause as Error).message), String((cause as Error).stack));
    cause = (cause as { cause?: unknown }).cause;
  }
  return parts.join('\n');
}

let fake: Awaited<ReturnType<typeof fakeServer>>;

beforeAll(async () => {
  // A careless service: it quotes the authorization header back in every error.
  fake = await fakeServer((req, res) => {
    const key = String(req.headers.authorization);
    if (req.url === '/phones') res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: `Invalid key ${key}` }));
    else if (req.url?.startsWith('/agents/')) res.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: [{ loc: ['header', key], msg: `bad ${key}`, type: 'x' }] }));
    else if (req.url === '/user/credentials') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: false, detail: `key ${key} refused` }));
    else res.writeHead(503, { 'content-type': 'text/plain' }).end(`busy for ${key}`);
  });
});
afterAll(async () => {
  await fake.close();
});

describe('the API key never appears in an error or a debug line', () => {
  it('errors built from answers that echo the key', async () => {
    const test = testClient({ baseUrl: fake.url, apiKey: KEY, retries: 1 });
    const errors = await Promise.all([
      test.client.listPhones().catch((e: unknown) => e),
      test.client.getAgent('a1').catch((e: unknown) => e),
      test.client.setCredential({ provider: 'p', api_key: 'x' }).catch((e: unknown) => e),
      test.client.setAgentFiles({ agent_id: 'a', files: [] }).catch((e: unknown) => e),
    ]);
    expect(errors.map((e) => (e as ApiError).code)).toEqual(['api_unauthorized', 'api_validation', 'api_error', 'api_unavailable']);
    for (const error of errors) {
      expect(everything(error)).not.toContain(KEY);
      expect(everything(error)).toContain('(sensitive)');
    }
    expect(test.debug.length).toBeGreaterThan(4);
    for (const line of test.debug) expect(line).not.toContain(KEY);
    expect(test.debug.some((line) => line.includes('authorization: (sensitive)'))).toBe(true);
    await test.client.close();
  });

  it('debug lines and hook events of a whole session against the emulator', async () => {
    const events: string[] = [];
    const env = await emulatorWithClient({}, { onRequest: (e) => events.push(JSON.stringify(e)), onResponse: (e) => events.push(JSON.stringify(e)) });
    try {
      const key = env.emulator.apiKey;
      env.emulator.control.setFaults([{ path: '/phones', rateLimit: { burst: 0, retryAfterSeconds: 0, limited: 10 } }]);
      await env.client.getAgent('-OKdqbqetEcM4ak369ym');
      await env.client.getAgent('-OKmissing').catch(() => undefined);
      await env.client.listPhones().catch(() => undefined);
      await env.client.chatCompletions({ agent: { agent_id: '-OKdqbqetEcM4ak369ym' }, messages: [{ role: 'user', content: 'hi' }] }).collect();
      expect(env.debug.some((line) => line.startsWith('[voxform api] → GET http://127.0.0.1:'))).toBe(true);
      expect(env.debug.some((line) => line.startsWith('[voxform api] ↻ GET /phones: 429 Too Many Requests'))).toBe(true);
      for (const line of [...env.debug, ...events]) expect(line).not.toContain(key);
      // The emulator's own request log shows what arrived: the key went in the header, and only there.
      for (const entry of env.emulator.control.requestLog()) {
        expect(entry.path + entry.query).not.toContain(key);
        expect(JSON.stringify(entry.headers)).not.toContain(key);
      }
    } finally {
      await env.close();
    }
  });
});

describe("the caller's other secrets never appear, not even cut short", () => {
  // A header value of a webhook, say: the client knows it only through `redact`.
  const HEADER_SECRET = 'hdr-SECRET-7f3a9c1e5b2d8046';
  /** Quotes the secret so that a text shortened to `kept` characters keeps its first 9 (the cut goes through it). */
  const echo = (kept: number) => `${'x'.repeat(kept - 10)} ${HEADER_SECRET} and more`;
  let careless: Awaited<ReturnType<typeof fakeServer>>;

  beforeAll(async () => {
    careless = await fakeServer((req, res) => {
      if (req.url === '/chat/completions') {
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`event: error\ndata: ${echo(200)}\n\n`);
      } else {
        res.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: echo(299) }));
      }
    });
  });
  afterAll(async () => {
    await careless.close();
  });

  it('is scrubbed before an error shortens what the service echoed', async () => {
    const redact = (text: string) => text.replaceAll(HEADER_SECRET, '(sensitive)');
    const test = testClient({ baseUrl: careless.url, apiKey: KEY, retries: 0, redact });
    const errors = [
      await test.client.getAgent('a1').catch((e: unknown) => e),
      await test.client.chatCompletions({ agent: { agent_id: 'a1' }, messages: [{ role: 'user', content: 'hi' }] }).collect().catch((e: unknown) => e),
    ];
    for (const error of errors) {
      expect(everything(error)).not.toContain(HEADER_SECRET.slice(0, 8));
      expect((error as ApiError).message).toContain('(sensitiv');
    }
    await test.client.close();
  });
});

describe('secrets the service echoes JSON-escaped are scrubbed as the error quotes them, decoded', () => {
  const ESCAPED_KEY = 'vxKey_R7&mQ2<z9>Lp';
  const HEADER_SECRET = 'Tok&en<Sec>ret42';
  /** JSON as Go's encoding/json writes it: `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026`. */
  const goJson = (value: unknown) => JSON.stringify(value).replace(/[<>&]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
  /** JSON whose strings are written with every character `\u`-escaped. */
  const everyCharEscaped = (text: string) => `{"detail":"${[...text].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('')}"}`;
  let careful: Awaited<ReturnType<typeof fakeServer>>;
  let chatErrors = 0;

  beforeAll(async () => {
    careful = await fakeServer((req, res) => {
      const key = String(req.headers.authorization).replace(/^Bearer /, '');
      const json = { 'content-type': 'application/json' };
      if (req.url === '/phones') res.writeHead(401, json).end(everyCharEscaped(`Invalid API key ${key}`));
      else if (req.url === '/chat/completions') {
        // An error event, then (for the next request) an error in a chunk: both as Go's JSON writes them.
        const event = chatErrors++ === 0 ? 'event: error\n' : '';
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`${event}data: ${goJson({ error: { message: `bad key ${key}, header ${HEADER_SECRET}` } })}\n\n`);
      }
      else if (req.url?.startsWith('/agents/-a3')) res.writeHead(401, json).end(goJson({ detail: `upstream said: ${goJson({ error: `invalid key ${key}` })}` }));
      else if (req.url?.startsWith('/agents/-a2')) res.writeHead(422, json).end(goJson({ detail: [{ loc: ['header', 'X-Token', HEADER_SECRET], msg: `bad ${HEADER_SECRET}`, type: 'x' }] }));
      else res.writeHead(401, json).end(goJson({ detail: `Invalid API key ${key}` }));
    });
  });
  afterAll(async () => {
    await careful.close();
  });

  it('the key and what redact names, in every escape form JSON allows', async () => {
    const redact = (text: string) => text.split(HEADER_SECRET).join('(sensitive)');
    const test = testClient({ baseUrl: careful.url, apiKey: ESCAPED_KEY, retries: 0, redact });
    const errors = [
      await test.client.getAgent('-a1').catch((e: unknown) => e),
      await test.client.listPhones().catch((e: unknown) => e),
      await test.client.getAgent('-a2').catch((e: unknown) => e),
    ];
    // An upstream's JSON error quoted inside the service's: the key escaped as Go writes it, after one decoding.
    errors.push(await test.client.getAgent('-a3').catch((e: unknown) => e));
    for (let i = 0; i < 2; i++) errors.push(await test.client.chatCompletions({ agent: { agent_id: 'a1' }, messages: [{ role: 'user', content: 'hi' }] }).collect().catch((e: unknown) => e));
    expect(errors.map((e) => (e as ApiError).code)).toEqual(['api_unauthorized', 'api_unauthorized', 'api_validation', 'api_unauthorized', 'api_error', 'api_error']);
    for (const error of errors) {
      expect(everything(error)).not.toContain(ESCAPED_KEY);
      expect(everything(error)).not.toContain(HEADER_SECRET);
      // Nor as the service escaped them.
      expect(everything(error)).not.toContain('vxKey_R7\\u0026');
      expect(everything(error)).not.toContain('Tok\\u0026en');
      expect((error as ApiError).message).toContain('(sensitive)');
    }
    await test.client.close();
  });
});

describe("a key escaped inside an upstream's JSON error the service quotes in its own", () => {
  /** Every character as a JSON `\u` escape. */
  const everyCharEscaped = (text: string) => [...text].map((ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`).join('');
  /** The upstream's error, its key fully escaped, as the service quotes it: a string inside its own JSON. */
  const upstream = (key: string) => `upstream said: ${JSON.stringify({ error: 'bad key KEY' }).replace('KEY', everyCharEscaped(key))}`;
  let quoting: Awaited<ReturnType<typeof fakeServer>>;
  let chatErrors = 0;

  beforeAll(async () => {
    quoting = await fakeServer((req, res) => {
      const key = String(req.headers.authorization).replace(/^Bearer /, '');
      if (req.url === '/chat/completions') {
        // An error event, then (for the next request) an error in a chunk.
        const event = chatErrors++ === 0 ? 'event: error\n' : '';
        res.writeHead(200, { 'content-type': 'text/event-stream' }).end(`${event}data: ${JSON.stringify({ error: { message: upstream(key) } })}\n\n`);
      } else if (req.url === '/user/credentials') res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ success: false, detail: upstream(key) }));
      else res.writeHead(502, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: upstream(key) }));
    });
  });
  afterAll(async () => {
    await quoting.close();
  });

  it('is scrubbed from an HTTP error, a refusal in a 2xx answer and both errors of a chat stream', async () => {
    const test = testClient({ baseUrl: quoting.url, apiKey: KEY, retries: 0 });
    const errors = [await test.client.listPhones().catch((e: unknown) => e), await test.client.setCredential({ provider: 'p', api_key: 'x' }).catch((e: unknown) => e)];
    for (let i = 0; i < 2; i++) errors.push(await test.client.chatCompletions({ agent: { agent_id: 'a1' }, messages: [{ role: 'user', content: 'hi' }] }).collect().catch((e: unknown) => e));
    expect(errors.map((e) => (e as ApiError).code)).toEqual(['api_unavailable', 'api_error', 'api_error', 'api_error']);
    for (const error of errors) {
      expect(everything(error)).not.toContain(KEY);
      // Nor as the upstream escaped it.
      expect(everything(error)).not.toContain(everyCharEscaped(KEY.slice(0, 4)));
      expect((error as ApiError).message).toContain('bad key (sensitive)');
    }
    await test.client.close();
  });
});
