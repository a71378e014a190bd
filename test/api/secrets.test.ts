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
