import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { compilePathPattern, FaultInjector } from '../../src/emulator/faults.js';
import { FRONT_DESK, startTestEmulator, type Client } from './helpers.js';

let emulator: RunningEmulator;
let client: Client;
beforeAll(async () => ({ emulator, client } = await startTestEmulator()));
afterAll(() => emulator.close());
beforeEach(() => emulator.control.reset());

const statuses = async (n: number, path = '/phones') => {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push((await client.get(path)).status);
  return out;
};

describe('path patterns', () => {
  it.each([
    ['/agents/*', '/agents/-OKdqbqetEcM4ak369ym', true],
    ['/agents/*', '/agents/x/call-histories', false],
    ['/agents/**', '/agents/x/call-histories', true],
    ['/phones/*/set_agent', '/phones/+15551230001/set_agent', true],
    ['**', '/anything/at/all', true],
    ['/call-log?', '/call-logs', true],
    ['^/agents/[^/]+$', '/agents/abc', true],
    ['re:call-histories$', '/agents/abc/call-histories', true],
    ['re:^/phones$', '/phones/import', false],
  ])('%s on %s → %s', (pattern, path, expected) => {
    expect(compilePathPattern(pattern).test(path)).toBe(expected);
  });
});

describe('faults', () => {
  it('latency: the request succeeds and the log names the fault (no timing asserted)', async () => {
    emulator.control.setFaults([{ path: '/phones', latencyMs: 5, jitterMs: 5 }]);
    expect((await client.get('/phones')).status).toBe(200);
    expect((await client.get(`/agents/${FRONT_DESK}`)).status).toBe(200);
    const log = emulator.control.requestLog();
    expect(log.find((e) => e.path === '/phones')?.faults).toEqual(['latency']);
    expect(log.find((e) => e.path.startsWith('/agents/'))?.faults).toEqual([]);
  });

  it('latency holds the answer, not the change: a PUT takes effect as it arrives and answers after its latency', async () => {
    emulator.control.setFaults([{ path: '/agents/*', method: 'PUT', latencyMs: 3_000 }]);
    let answered = false;
    const put = client.put(`/agents/${FRONT_DESK}`, { name: 'Changed', config: {} }).then((answer) => ((answered = true), answer));
    // The GETs are not delayed: they see the change while the PUT's answer is still held.
    let name: unknown;
    for (let attempt = 0; attempt < 200 && name !== 'Changed'; attempt++) name = (await client.get(`/agents/${FRONT_DESK}`)).body.name;
    expect(name).toBe('Changed');
    expect(answered).toBe(false);
    expect((await put).status).toBe(200);
  });

  it('latency holds no answer for a caller that has gone: stopping the emulator does not wait for one', async () => {
    const { emulator: own } = await startTestEmulator();
    own.control.setFaults([{ path: '/phones', latencyMs: 60_000 }]);
    const gone = new AbortController();
    const get = request(`${own.url}/phones`, { headers: { authorization: own.apiKey }, signal: gone.signal }).catch(() => 'aborted');
    while (own.control.requestLog().length === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    gone.abort();
    expect(await get).toBe('aborted');
    await own.close();
    // Its handling ended with the caller; held for the whole minute, it would still be open (status 0).
    expect(own.control.requestLog()[0]?.status).toBe(200);
  });

  it('errorRate 1 answers 503 (default) or 500, without handling the request', async () => {
    emulator.control.setFaults([{ path: '/agents/*', method: 'PUT', errorRate: 1 }]);
    const put = await client.put(`/agents/${FRONT_DESK}`, { name: 'Changed', config: {} });
    expect(put.status).toBe(503);
    expect(put.body).toEqual({ detail: 'Service Unavailable' });
    expect((await client.get(`/agents/${FRONT_DESK}`)).body.name).toBe('Front desk'); // GET not matched, PUT not applied
    emulator.control.setFaults([{ path: '**', errorRate: 1, errorStatus: 500 }]);
    expect((await client.get('/phones')).status).toBe(500);
  });

  it('an error rate with a seed gives the same statuses on every run', async () => {
    const run = async () => {
      emulator.control.setFaults([{ path: '/phones', errorRate: 0.3 }], { seed: 'repeatable' });
      return statuses(40);
    };
    const first = await run();
    const second = await run();
    expect(second).toEqual(first);
    const failed = first.filter((s) => s === 503).length;
    expect(failed).toBeGreaterThan(0);
    expect(failed).toBeLessThan(40);
    emulator.control.setFaults([{ path: '/phones', errorRate: 0.3 }], { seed: 'another seed' });
    expect(await statuses(40)).not.toEqual(first);
  });

  it('rateLimit: burst requests pass, then 429 with Retry-After, in a repeating cycle', async () => {
    const res = await client.put('/_emulator/faults', { rules: [{ path: '/phones', rateLimit: { burst: 2, retryAfterSeconds: 3 } }] });
    expect(res.status).toBe(200);
    expect(await statuses(6)).toEqual([200, 200, 429, 200, 200, 429]);
    const limited = await client.get('/phones');
    await client.get('/phones');
    const third = await client.get('/phones');
    expect(limited.status).toBe(200);
    expect(third.status).toBe(429);
    expect(third.headers['retry-after']).toBe('3');
    expect(third.body).toEqual({ detail: 'Too Many Requests' });
  });

  it('rateLimit with limited > 1', async () => {
    emulator.control.setFaults([{ path: '/phones', rateLimit: { burst: 1, retryAfterSeconds: 0, limited: 2 } }]);
    expect(await statuses(6)).toEqual([200, 429, 429, 200, 429, 429]);
  });

  it('dropRate 1 destroys the connection without an answer', async () => {
    emulator.control.setFaults([{ path: '/phones', dropRate: 1 }]);
    await expect(request(`${emulator.url}/phones`, { headers: { authorization: emulator.apiKey } })).rejects.toThrow();
    expect(emulator.control.requestLog().find((e) => e.path === '/phones')).toMatchObject({ status: 0, faults: ['dropped'] });
    expect((await client.get(`/agents/${FRONT_DESK}`)).status).toBe(200);
  });

  it('dropPhase after: the change happens, the answer is lost', async () => {
    emulator.control.setFaults([{ path: '/agents/*', method: 'PUT', dropRate: 1, dropPhase: 'after' }]);
    await expect(
      request(`${emulator.url}/agents/${FRONT_DESK}`, {
        method: 'PUT',
        headers: { authorization: emulator.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Applied anyway', config: {} }),
      }),
    ).rejects.toThrow();
    expect((await client.get(`/agents/${FRONT_DESK}`)).body.name).toBe('Applied anyway');
  });

  it('the first matching rule decides', async () => {
    emulator.control.setFaults([
      { path: '/phones', method: ['GET'] },
      { path: '**', errorRate: 1 },
    ]);
    expect((await client.get('/phones')).status).toBe(200);
    expect((await client.get(`/agents/${FRONT_DESK}`)).status).toBe(503);
  });

  it('never touches the control surface', async () => {
    emulator.control.setFaults([{ path: '**', errorRate: 1, dropRate: 1 }]);
    expect((await client.get('/_emulator/faults')).status).toBe(200);
    expect((await client.del('/_emulator/faults')).status).toBe(200);
    expect((await client.get('/phones')).status).toBe(200);
  });

  it('refuses invalid rules with a 400 naming the problem', async () => {
    for (const body of [
      { rules: [{ path: '/x', errorRate: 2 }] },
      { rules: [{ path: '/x', errorStatus: 404 }] },
      { rules: [{ path: '/x', rateLimit: { burst: -1, retryAfterSeconds: 1 } }] },
      // Retry-After is whole seconds: "1.5" is a header the service never sends.
      { rules: [{ path: '/x', rateLimit: { burst: 1, retryAfterSeconds: 1.5 } }] },
      { rules: [{ path: '^(' }] },
      { rules: [{ latencyMs: 5 }] },
      { rules: [{ path: '/x', latency: 5 }] },
      // Past the longest timer Node keeps: it would fire after 1 ms instead.
      { rules: [{ path: '/x', latencyMs: 2_147_483_000, jitterMs: 1_000 }] },
      { rule: [] },
    ]) {
      const res = await client.put('/_emulator/faults', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.detail).toMatch(/^Invalid fault settings: /);
    }
  });

  it('refuses a regular expression that repeats a repeating group, before any request is matched on it', async () => {
    const res = await client.put('/_emulator/faults', { rules: [{ path: 're:^/(a+)+$', latencyMs: 1 }] });
    expect(res.status).toBe(400);
    expect(res.body.detail).toBe(
      'Invalid fault settings: path "re:^/(a+)+$" repeats a group that repeats (at character 3 of the expression); simplify it (nested quantifiers such as (a+)+ take exponential time)',
    );
    expect((await client.get('/_emulator/faults')).body).toEqual({ rules: [] });
    expect((await client.get('/phones')).status).toBe(200);
  });

  it('refuses bad settings from a library caller with the code and message the control surface answers with', async () => {
    let thrown: unknown;
    try {
      emulator.control.setFaults([{ path: '/x', errorRate: 2 }]);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toMatchObject({ code: 'emulator_options_invalid', message: expect.stringMatching(/^Invalid fault settings: /), hint: expect.stringContaining('docs/emulator.md') });
    expect((await client.put('/_emulator/faults', { rules: [{ path: '/x', errorRate: 2 }] })).body.detail).toBe((thrown as Error).message);
  });

  it('GET shows the rules; DELETE clears them', async () => {
    await client.put('/_emulator/faults', { seed: 7, rules: [{ path: '/phones', errorRate: 1 }] });
    expect((await client.get('/_emulator/faults')).body).toEqual({ seed: 7, rules: [{ path: '/phones', errorRate: 1 }] });
    expect((await client.get('/phones')).status).toBe(503);
    await client.del('/_emulator/faults');
    expect((await client.get('/phones')).status).toBe(200);
  });
});

describe('faults from options (the CLI flags)', () => {
  it('failRate 1 answers 503 everywhere; latency adds a rule', async () => {
    const { emulator: failing, client: c } = await startTestEmulator({ failRate: 1, latencyMs: [1, 3] });
    try {
      expect((await c.get('/phones')).status).toBe(503);
      expect(failing.control.getFaults().rules).toEqual([{ path: '**', latencyMs: 1, jitterMs: 2, errorRate: 1, errorStatus: 503 }]);
      await failing.control.reset();
      expect(failing.control.getFaults().rules).toHaveLength(1); // reset restores the flag rules
    } finally {
      await failing.close();
    }
  });

  it('refuses out-of-range options', async () => {
    await expect(startTestEmulator({ failRate: 1.5 })).rejects.toThrow(/Fail rate/);
    await expect(startTestEmulator({ latencyMs: [10, 5] })).rejects.toThrow(/Latency/);
    await expect(startTestEmulator({ latencyMs: 99_999_999_999 })).rejects.toThrow(/Latency 99999999999 is not a number of milliseconds from 0 to 2147483647/);
    await expect(startTestEmulator({ latencyMs: [0, 99_999_999_999] })).rejects.toThrow(/Latency/);
  });
});

describe('regular expression paths run with a time budget', () => {
  it('a path expression stopped for running too long matches no request again; globs never go through the budget', () => {
    const matched: string[] = [];
    const injector = new FaultInjector(1, (pattern, subject) => {
      matched.push(`${pattern.source} ${subject}`);
      return subject.endsWith('!') ? { timedOut: true } : { matched: pattern.test(subject), truncated: false };
    });
    injector.set({ rules: [{ path: 're:^/a', errorRate: 1 }, { path: '/a*', latencyMs: 1 }] });
    expect(injector.decide('GET', '/aa')?.status).toBe(503);
    expect(injector.decide('GET', '/aa!')?.labels).toEqual(['latency']);
    expect(injector.decide('GET', '/aa')?.labels).toEqual(['latency']);
    expect(matched).toEqual(['^\\/a /aa', '^\\/a /aa!']);
  });
});
