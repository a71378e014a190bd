import { createServer } from 'node:net';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../../src/api/index.js';
import type { FaultRule } from '../../src/emulator/types.js';
import { startEmulator } from '../../src/emulator/index.js';
import { sleepUnlessAborted } from '../../src/util/sleep.js';
import { emulatorWithClient, fakeServer, logged, testClient } from './helpers.js';

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const AGENT_PATH = `/agents/${FRONT_DESK}`;

let env: Awaited<ReturnType<typeof emulatorWithClient>>;

beforeAll(async () => {
  env = await emulatorWithClient();
});
afterAll(async () => {
  await env.close();
});
beforeEach(async () => {
  await env.emulator.control.reset();
  env.retries.length = 0;
  env.waits.length = 0;
});

describe('retries under the emulator’s faults', () => {
  it('20 % 503 (fixed fault seed): every read succeeds, and attempts = requests + retries', async () => {
    env.emulator.control.setFaults([{ path: '/agents/*', method: 'GET', errorRate: 0.2, errorStatus: 503 }], { seed: 20 });
    for (let i = 0; i < 100; i++) expect((await env.client.getAgent(FRONT_DESK)).id).toBe(FRONT_DESK);
    const log = logged(env.emulator, AGENT_PATH, 'GET');
    const failed = log.filter((entry) => entry.status === 503);
    expect(failed.length).toBeGreaterThan(5); // the faults really happened
    expect(env.retries).toHaveLength(failed.length); // each 503 was retried once, nothing more
    expect(log).toHaveLength(100 + env.retries.length);
    expect(env.retries.every((r) => r.status === 503 && r.reason === '503 Service Unavailable' && r.retryAfterMs === undefined)).toBe(true);
    // Full jitter: each wait within its exponential ceiling (250 ms · 2^(n-1)).
    for (const retry of env.retries) expect(retry.delayMs).toBeLessThan(250 * 2 ** (retry.attempt - 1));
  });

  it('the same seed gives the same faults and the same attempts', async () => {
    const run = async () => {
      await env.emulator.control.reset();
      env.emulator.control.setFaults([{ path: '/agents/*', errorRate: 0.2, errorStatus: 503 }], { seed: 'same' });
      env.retries.length = 0;
      for (let i = 0; i < 50; i++) await env.client.getAgent(FRONT_DESK);
      return env.retries.map((r) => r.attempt);
    };
    expect(await run()).toEqual(await run());
  });

  it('a 503 that lasts is api_unavailable after 1 + retries attempts', async () => {
    env.emulator.control.setFaults([{ path: '/phones', errorRate: 1, errorStatus: 503 }]);
    const error = (await env.client.listPhones().catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api_unavailable');
    expect(error.attempts).toBe(5);
    expect(error.message).toBe('GET /phones failed: the service answered 503 Service Unavailable (after 5 attempts).');
    expect(logged(env.emulator, '/phones')).toHaveLength(5);
    expect(env.retries.map((r) => r.attempt)).toEqual([1, 2, 3, 4]);
  });

  it('a 500 is not retried', async () => {
    env.emulator.control.setFaults([{ path: '/phones', errorRate: 1, errorStatus: 500 }]);
    await expect(env.client.listPhones()).rejects.toMatchObject({ code: 'api_unavailable', status: 500, attempts: 1 });
    expect(logged(env.emulator, '/phones')).toHaveLength(1);
  });

  it('429 bursts: Retry-After is honoured, then the request goes through', async () => {
    env.emulator.control.setFaults([{ path: '/agents/*', rateLimit: { burst: 3, retryAfterSeconds: 2, limited: 2 } }]);
    for (let i = 0; i < 8; i++) await env.client.getAgent(FRONT_DESK);
    // Three pass, two are refused, and so on: calls 4 and 7 each met two 429s, then went through.
    const statuses = logged(env.emulator, AGENT_PATH).map((entry) => entry.status);
    expect(statuses).toEqual([200, 200, 200, 429, 429, 200, 200, 200, 429, 429, 200, 200]);
    expect(env.retries.map((r) => [r.status, r.retryAfterMs, r.delayMs])).toEqual([
      [429, 2000, 2000],
      [429, 2000, 2000],
      [429, 2000, 2000],
      [429, 2000, 2000],
    ]);
    expect(env.waits).toEqual([2000, 2000, 2000, 2000]);
  });

  it('429 that outlasts the retries is api_rate_limited', async () => {
    env.emulator.control.setFaults([{ path: '/phones', rateLimit: { burst: 0, retryAfterSeconds: 1, limited: 10 } }]);
    const error = (await env.client.listPhones().catch((e: unknown) => e)) as ApiError;
    expect(error).toMatchObject({ code: 'api_rate_limited', status: 429, attempts: 5 });
    expect(error.hint).toContain('--parallelism');
  });

  it('dropped connections are retried for a GET', async () => {
    env.emulator.control.setFaults([{ path: '/agents/*', dropRate: 0.3 }], { seed: 1 });
    for (let i = 0; i < 40; i++) expect((await env.client.getAgent(FRONT_DESK)).id).toBe(FRONT_DESK);
    const dropped = logged(env.emulator, AGENT_PATH).filter((entry) => entry.status === 0);
    expect(dropped.length).toBeGreaterThan(3);
    expect(env.retries).toHaveLength(dropped.length);
    expect(env.retries.every((r) => r.status === undefined && r.reason !== 'timeout')).toBe(true);
  });

  it('a connection that always drops is api_unavailable naming the dropped connection', async () => {
    env.emulator.control.setFaults([{ path: '/phones', dropRate: 1 }]);
    const error = (await env.client.listPhones().catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api_unavailable');
    expect(error.status).toBeUndefined();
    expect(error.attempts).toBe(5);
    expect(error.message).toMatch(/^GET \/phones failed: could not reach the service at http:\/\/127\.0\.0\.1:\d+ \(.+\) \(after 5 attempts\)\.$/);
  });

  it('a write answered with a 5xx, or whose connection drops once sent, says the service may have applied it; a read does not', async () => {
    const writes = [() => env.client.updateAgent(FRONT_DESK, { name: 'Front desk', config: { prompt: 'Failing.' } }), () => env.client.setPhoneAgent('+15551230001', FRONT_DESK)];
    const faults: FaultRule[] = [
      { path: '**', method: ['PUT', 'POST'], errorRate: 1, errorStatus: 500 },
      { path: '**', method: ['PUT', 'POST'], errorRate: 1, errorStatus: 503 },
      { path: '**', method: ['PUT', 'POST'], dropRate: 1, dropPhase: 'after' },
    ];
    for (const fault of faults) {
      env.emulator.control.setFaults([fault]);
      for (const write of writes) {
        const error = (await write().catch((e: unknown) => e)) as ApiError;
        expect(error.code, JSON.stringify(fault)).toBe('api_unavailable');
        expect(error.message, JSON.stringify(fault)).toMatch(/the service may have applied it\.$/);
        expect(error.hint, JSON.stringify(fault)).toMatch(/^The service may have applied it: `voxform plan` shows what it holds\. /);
      }
    }
    env.emulator.control.setFaults([{ path: '/phones', errorRate: 1, errorStatus: 500 }]);
    const read = (await env.client.listPhones().catch((e: unknown) => e)) as ApiError;
    expect(read.message).toBe('GET /phones failed: the service answered 500 Internal Server Error.');
    expect(read.hint).toBe('The service is unavailable right now; try again later.');
  });

  it('a write one attempt of which may have reached the service says so, whatever the later attempts meet', async () => {
    // The first attempt lands and its answer is lost; then the service goes away (every retry is refused).
    const emulator = await startEmulator({ port: 0 });
    emulator.control.setFaults([{ path: '/agents/*', method: 'PUT', dropRate: 1, dropPhase: 'after' }]);
    let closed: Promise<void> | undefined;
    const writer = testClient({
      baseUrl: emulator.url,
      apiKey: emulator.apiKey,
      onRetry: () => void (closed ??= emulator.close()),
      sleep: async () => void (await closed),
    });
    try {
      const error = (await writer.client.updateAgent(FRONT_DESK, { name: 'Front desk', config: { prompt: 'Landed.' } }).catch((e: unknown) => e)) as ApiError;
      expect(error.code).toBe('api_unavailable');
      expect(error.message).toMatch(
        /^PUT \/agents\/-OKdqbqetEcM4ak369ym failed: could not reach the service at http:\/\/127\.0\.0\.1:\d+ \(connection refused\) \(after 5 attempts\): an earlier attempt may have reached it, and the service may have applied it\.$/,
      );
      expect(error.hint).toMatch(/^The service may have applied it: `voxform plan` shows what it holds\. Nothing listens at /);
    } finally {
      await writer.client.close();
      await closed;
    }
  });

  it('a write whose first attempt may have landed and whose retries are all rate limited says the service may have applied it', async () => {
    env.emulator.control.setFaults([{ path: '/agents/*', method: 'PUT', dropRate: 1, dropPhase: 'after' }]);
    const writer = testClient({
      baseUrl: env.emulator.url,
      apiKey: env.emulator.apiKey,
      onRetry: () => env.emulator.control.setFaults([{ path: '/agents/*', method: 'PUT', rateLimit: { burst: 0, retryAfterSeconds: 0, limited: 10 } }]),
    });
    try {
      const error = (await writer.client.updateAgent(FRONT_DESK, { name: 'Front desk', config: { prompt: 'Landed.' } }).catch((e: unknown) => e)) as ApiError;
      expect(error.code).toBe('api_rate_limited');
      expect(error.message).toMatch(/answered 429 .* \(after 5 attempts\): an earlier attempt may have reached it, and the service may have applied it\.$/);
      expect(error.hint).toMatch(/^The service may have applied it: `voxform plan` shows what it holds\. /);
      env.emulator.control.setFaults([]);
      expect((await env.client.getAgent(FRONT_DESK)).config?.prompt).toBe('Landed.');
    } finally {
      await writer.client.close();
    }
  });

  it('idempotent POSTs and PUTs are retried on 503', async () => {
    env.emulator.control.setFaults([{ path: '**', method: ['POST', 'PUT'], errorRate: 0.3, errorStatus: 503 }], { seed: 3 });
    for (let i = 0; i < 10; i++) {
      await env.client.setPhoneAgent('+15551230001', FRONT_DESK);
      await env.client.setCampaignCaller('cmp_recall_2026', '+15551230001');
      await env.client.setCredential({ provider: 'openai', api_key: 'sk-test' });
      await env.client.updateAgent(FRONT_DESK, { name: 'Front desk', config: { prompt: `x${i}` } });
      await env.client.editCampaignInfo('cmp_recall_2026', { name: `Recall ${i}` });
      await env.client.generatePresignedUrl({ filename: 'a.pdf' });
      await env.client.setAgentFiles({ agent_id: FRONT_DESK, files: [] });
    }
    const log = env.emulator.control.requestLog().filter((e) => e.method !== 'GET');
    const failed = log.filter((e) => e.status === 503);
    expect(failed.length).toBeGreaterThan(5);
    expect(env.retries).toHaveLength(failed.length);
    expect(log).toHaveLength(70 + failed.length);
    expect(new Set(env.retries.map((r) => r.path)).size).toBeGreaterThan(3);
  });
});

describe('no blind retry of a POST that is not safe to repeat', () => {
  const creators = [
    ['/register_call', () => env.client.registerCall({ agent_id: FRONT_DESK })],
    ['/register_sip_call', () => env.client.registerSipCall({ agent_id: FRONT_DESK })],
    ['/sip', () => env.client.createSip({ init_agent: { agent_id: FRONT_DESK } })],
    ['/api_keys', () => env.client.createApiKey({ type: 'public' })],
    ['/knowledge/create_file', () => env.client.createKnowledgeFile({ object_key: 'k', name: 'n' })],
    ['/chat/completions', () => env.client.chatCompletions({ agent: { agent_id: FRONT_DESK }, messages: [{ role: 'user', content: 'hi' }] }).collect()],
  ] as const;

  for (const [path, call] of creators) {
    it(`${path}: a 5xx is not retried, and the error says the service may have acted on it (it promises nothing about a 5xx)`, async () => {
      for (const status of [503, 500] as const) {
        env.emulator.control.setFaults([{ path, errorRate: 1, errorStatus: status }]);
        const error = (await call().catch((e: unknown) => e)) as ApiError;
        expect(error).toMatchObject({ code: 'api_outcome_unknown', status, attempts: 1 });
        expect(error.message).toMatch(new RegExp(`^POST ${path} failed: the service answered ${status} .+: the service may have acted on it\\.$`));
        expect(error.hint).toMatch(/^Check before running it again, or it may be done twice: /);
        expect(error.hint).not.toContain('try again later');
      }
      expect(logged(env.emulator, path)).toHaveLength(2);
      expect(env.retries).toHaveLength(0);
    });

    it(`${path}: a 429 that outlasts the retries keeps its words: the service refused it unhandled`, async () => {
      env.emulator.control.setFaults([{ path, rateLimit: { burst: 0, retryAfterSeconds: 1, limited: 10 } }]);
      const error = (await call().catch((e: unknown) => e)) as ApiError;
      expect(error).toMatchObject({ code: 'api_rate_limited', status: 429, attempts: 5 });
      expect(error.message).not.toContain('may have acted');
    });

    it(`${path}: a dropped connection is not retried, and the error says the service may have acted on it`, async () => {
      env.emulator.control.setFaults([{ path, dropRate: 1, dropPhase: 'after' }]);
      const error = (await call().catch((e: unknown) => e)) as ApiError;
      expect(error).toMatchObject({ code: 'api_outcome_unknown', attempts: 1 });
      expect(error.message).toMatch(new RegExp(`^POST ${path} failed: the request was sent to http://127\\.0\\.0\\.1:\\d+, but no answer came \\(.+\\): the service may have acted on it\\.$`));
      expect(error.message).not.toContain('could not reach');
      expect(error.hint).toMatch(/^Check before running it again, or it may be done twice: /);
      expect(logged(env.emulator, path)).toHaveLength(1);
    });
  }

  it('the hint of a lost answer says where to look: the dashboard for a key or a knowledge file, the call logs for a call', async () => {
    const hints: Record<string, string | undefined> = {};
    for (const [path, call] of creators.filter(([path]) => ['/api_keys', '/knowledge/create_file', '/register_call'].includes(path))) {
      env.emulator.control.setFaults([{ path, dropRate: 1, dropPhase: 'after' }]);
      hints[path] = ((await call().catch((e: unknown) => e)) as ApiError).hint;
    }
    expect(hints).toEqual({
      '/api_keys': 'Check before running it again, or it may be done twice: look for the new key in the service’s dashboard.',
      '/knowledge/create_file': 'Check before running it again, or it may be done twice: the service cannot list its knowledge files, so look for the file in its dashboard: another upload makes a second one.',
      '/register_call': 'Check before running it again, or it may be done twice: `voxform logs` lists the calls the service started.',
    });
  });

  it('a time-out of a create says the service may have acted on it, and how to check, not "try again later"', async () => {
    const slow = testClient({ baseUrl: env.emulator.url, apiKey: env.emulator.apiKey, timeoutMs: 100 });
    // The emulator acts on the request at once and holds its answer back.
    env.emulator.control.setFaults([{ path: '/api_keys', latencyMs: 1500 }]);
    const keysBefore = env.emulator.control.state().keys.length;
    try {
      const error = (await slow.client.createApiKey({ type: 'public' }).catch((e: unknown) => e)) as ApiError;
      expect(error).toMatchObject({ code: 'api_outcome_unknown', attempts: 1 });
      expect(error.message).toMatch(/^POST \/api_keys failed: the request was sent to http:\/\/127\.0\.0\.1:\d+, but no complete answer came within 0\.1 s: the service may have acted on it\.$/);
      expect(error.hint).toBe(
        'Check before running it again, or it may be done twice: look for the new key in the service’s dashboard. A slow service may be given longer with --timeout (or VOXFORM_TIMEOUT), e.g. --timeout 1s.',
      );
      expect(env.emulator.control.state().keys.length).toBe(keysBefore + 1);
      expect(slow.retries).toEqual([]);
    } finally {
      await slow.client.close();
    }
  });

  it('a 429 (the service refused it) is retried even for register_call', async () => {
    env.emulator.control.setFaults([{ path: '/register_call', rateLimit: { burst: 1, retryAfterSeconds: 1, limited: 1 } }]);
    await env.client.registerCall({ agent_id: FRONT_DESK }); // passes; the next attempt is refused
    const call = await env.client.registerCall({ agent_id: FRONT_DESK });
    expect(call.call_id).toBeTruthy();
    expect(logged(env.emulator, '/register_call').map((e) => e.status)).toEqual([200, 429, 200]);
    expect(env.emulator.control.state().sessions.filter((s) => s.kind === 'call')).toHaveLength(2);
  });

  it('a refused connection (nothing sent) is retried for a creating POST', async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
    const { port } = blocker.address() as AddressInfo;
    await new Promise<void>((resolve) => blocker.close(() => resolve()));
    const test = testClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey: 'k'.repeat(32), retries: 2 });
    try {
      const error = (await test.client.createApiKey({ type: 'private' }).catch((e: unknown) => e)) as ApiError;
      expect(error).toMatchObject({ code: 'api_unavailable', attempts: 3 });
      expect(error.message).toContain('connection refused');
      expect(test.retries.map((r) => r.reason)).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
    } finally {
      await test.client.close();
    }
  });

  it('the phone import checks the phone list before a retry: a lost answer never imports twice', async () => {
    env.emulator.control.setFaults([{ path: '/phones/import', dropRate: 1, dropPhase: 'after' }]);
    const result = await env.client.importPhone({ phone: '+15551230002', country: 'US', region: 'us-west', api_key: 'AC1', api_secret: 'shh' });
    expect(result).toMatchObject({ phone: '+15551230002', confirmedBy: 'phone_list' });
    expect(logged(env.emulator, '/phones/import')).toHaveLength(1); // sent once, never again
    expect(logged(env.emulator, '/phones', 'GET')).toHaveLength(1); // the check
    expect(env.emulator.control.state().phones.filter((p) => p.id === '+15551230002')).toHaveLength(1);
  });

  it('the phone import stops with a clear error when the phone list cannot be read to check', async () => {
    env.emulator.control.setFaults([
      { path: '/phones/import', dropRate: 1, dropPhase: 'after' },
      { path: '/phones', method: 'GET', errorRate: 1, errorStatus: 503 },
    ]);
    const error = (await env.client.importPhone({ phone: '+15551230002', country: 'US', region: 'us-west', api_key: 'AC1', api_secret: 'shh' }).catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api_unavailable');
    expect(error.message).toBe(
      'POST /phones/import of +15551230002 failed, and the phone list could not be read to check whether an attempt got through (GET /phones failed: the service answered 503 Service Unavailable (after 5 attempts)).',
    );
    expect(logged(env.emulator, '/phones/import')).toHaveLength(1); // never sent blind
  });

  it('the phone import retries when the phone list shows the number is still missing', async () => {
    // One import passes, the next two are refused, and so on: the first import primes the cycle.
    env.emulator.control.setFaults([{ path: '/phones/import', rateLimit: { burst: 1, retryAfterSeconds: 0, limited: 2 } }]);
    await env.client.importPhone({ phone: '+15551230009', country: 'US', region: 'us-west', api_key: 'AC1', api_secret: 'shh' });
    const result = await env.client.importPhone({ phone: '+15551230002', country: 'US', region: 'us-west', api_key: 'AC1', api_secret: 'shh' });
    expect(result.confirmedBy).toBe('response');
    expect(logged(env.emulator, '/phones/import').map((e) => e.status)).toEqual([200, 429, 429, 200]);
    expect(logged(env.emulator, '/phones', 'GET')).toHaveLength(2);
  });
});

describe('time-outs and concurrency', () => {
  it('a service that does not answer within timeoutMs is one api_timeout, not one per attempt', async () => {
    const slow = testClient({ baseUrl: env.emulator.url, apiKey: env.emulator.apiKey, timeoutMs: 100, retries: 4 });
    env.emulator.control.setFaults([{ path: '/phones', latencyMs: 1500 }]);
    try {
      const error = (await slow.client.listPhones().catch((e: unknown) => e)) as ApiError;
      expect(error.code).toBe('api_timeout');
      expect(error.attempts).toBe(1);
      expect(error.message).toMatch(/^GET \/phones failed: the service at http:\/\/127\.0\.0\.1:\d+ did not answer within 0\.1 s\.$/);
      expect(error.hint).toBe('The service is slow or unreachable: try again later, or give it longer with --timeout (or VOXFORM_TIMEOUT), e.g. --timeout 1s.');
      expect(slow.retries).toEqual([]);
    } finally {
      await slow.client.close();
    }
  });

  it('a write that does not answer within timeoutMs says the service may have applied it, whatever it writes', async () => {
    const slow = testClient({ baseUrl: env.emulator.url, apiKey: env.emulator.apiKey, timeoutMs: 100, retries: 4 });
    env.emulator.control.setFaults([
      { path: '/agents/*', method: 'PUT', latencyMs: 1500 },
      { path: '/phones/*/set_agent', method: 'POST', latencyMs: 1500 },
    ]);
    try {
      const writes = [() => slow.client.updateAgent(FRONT_DESK, { name: 'Front desk', config: { prompt: 'Slow.' } }), () => slow.client.setPhoneAgent('+15551230001', FRONT_DESK)];
      for (const write of writes) {
        const error = (await write().catch((e: unknown) => e)) as ApiError;
        expect(error.code).toBe('api_timeout');
        expect(error.message).toMatch(/did not answer within 0\.1 s: the request was sent, and the service may have applied it\.$/);
        expect(error.hint).toMatch(/^The service may have applied it: `voxform plan` shows what it holds\. The service is slow or unreachable: /);
      }
    } finally {
      await slow.client.close();
    }
  });

  it('an attempt after a quick failure gets the time that is left, and the time-out names every attempt', async () => {
    let requests = 0;
    const fake = await fakeServer((req) => {
      // The first connection is dropped at once; the second request is never answered.
      if (++requests === 1) req.socket.destroy();
    });
    const test = testClient({ baseUrl: fake.url, apiKey: 'k'.repeat(32), timeoutMs: 300, retries: 4 });
    try {
      const error = (await test.client.listPhones().catch((e: unknown) => e)) as ApiError;
      expect(error.code).toBe('api_timeout');
      expect(error.attempts).toBe(2);
      expect(error.message).toMatch(/did not answer within 0\.3 s \(after 2 attempts\)\.$/);
      expect(test.retries.map((r) => r.reason)).not.toContain('timeout');
      expect(requests).toBe(2);
    } finally {
      await test.client.close();
      await fake.close();
    }
  });

  it('1,000 concurrent calls keep at most maxInFlight requests and sockets open', async () => {
    let active = 0;
    let peak = 0;
    let sockets = 0;
    const fake = await fakeServer((_req, res) => {
      active++;
      peak = Math.max(peak, active);
      setTimeout(() => {
        active--;
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"id":"a","name":"A","config":{}}');
      }, 2);
    });
    fake.server.on('connection', () => sockets++);
    const test = testClient({ baseUrl: fake.url, apiKey: 'k'.repeat(32), maxInFlight: 8 });
    try {
      const agents = await Promise.all(Array.from({ length: 1000 }, () => test.client.getAgent('a')));
      expect(agents).toHaveLength(1000);
      expect(peak).toBeLessThanOrEqual(8);
      expect(peak).toBeGreaterThan(1);
      expect(sockets).toBeLessThanOrEqual(8);
    } finally {
      await test.client.close();
      await fake.close();
    }
  });
});

describe('a stop while a request waits to be retried', () => {
  /** A client whose waits between attempts end only when their signal aborts: what a 40 s Retry-After is, seen from a stop. */
  function waitingClient() {
    let waiting!: () => void;
    const waitStarted = new Promise<void>((resolve) => (waiting = resolve));
    const test = testClient({
      baseUrl: env.emulator.url,
      apiKey: env.emulator.apiKey,
      sleep: (_ms, signal) => {
        waiting();
        return new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
      },
    });
    return { ...test, waitStarted };
  }

  beforeEach(() => {
    env.emulator.control.setFaults([{ path: '**', rateLimit: { burst: 0, retryAfterSeconds: 40, limited: 100 } }]);
  });

  it('the signal ends the wait at once: api_not_sent, naming the failed attempt, and no second attempt', async () => {
    const test = waitingClient();
    const stop = new AbortController();
    const pending = test.client.withSignal(stop.signal).createApiKey({ type: 'private' }).catch((e: unknown) => e);
    await test.waitStarted;
    expect(test.retries.map((r) => r.retryAfterMs)).toEqual([40_000]);
    stop.abort();
    const error = (await pending) as ApiError;
    expect(error).toMatchObject({ code: 'api_not_sent', attempts: 1 });
    expect(error.message).toBe('POST /api_keys failed: not sent again (the run is stopping); attempt 1 had failed: 429 Too Many Requests.');
    expect(logged(env.emulator, '/api_keys')).toHaveLength(1);
    await test.client.close();
  });

  it('closing the client with abort ends the wait too: api_interrupted', async () => {
    const test = waitingClient();
    const pending = test.client.getAgent(FRONT_DESK).catch((e: unknown) => e);
    await test.waitStarted;
    await test.client.close({ abort: true });
    expect(await pending).toMatchObject({ code: 'api_interrupted', attempts: 1 });
    expect(logged(env.emulator, AGENT_PATH)).toHaveLength(1);
  });

  it('the real sleep ends when its signal aborts, its timer cleared', async () => {
    const stop = new AbortController();
    const slept = sleepUnlessAborted(3_600_000, stop.signal);
    stop.abort();
    await slept;
    await sleepUnlessAborted(3_600_000, stop.signal);
  });
});
