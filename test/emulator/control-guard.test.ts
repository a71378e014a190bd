/**
 * The control routes need no key, so they answer only what a web page cannot make a browser send:
 * a Host naming this emulator (DNS rebinding gives a page's requests its own name), no foreign
 * Origin, and bodies declared JSON (a page may send `text/plain` and form bodies across sites
 * without asking). Spec routes, which a key guards, answer any Host as before.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { FRONT_DESK, rawExchange, startTestEmulator } from './helpers.js';

let emulator: RunningEmulator;
let port: number;
beforeAll(async () => {
  ({ emulator } = await startTestEmulator());
  port = Number(new URL(emulator.url).port);
});
afterAll(() => emulator.close());
beforeEach(() => emulator.control.reset());

const SEED = JSON.stringify({ keys: [{ type: 'private', key: 'k'.repeat(32) }], agents: [{ id: 'ag_taken', name: 'Taken', config: {} }] });

/** A request to the emulator with these headers (each `Name: value`), Host first. */
function send(method: string, target: string, host: string, headers: string[] = [], body = '') {
  const length = body === '' ? [] : [`Content-Length: ${Buffer.byteLength(body)}`];
  return rawExchange(emulator.url, [`${method} ${target} HTTP/1.1`, `Host: ${host}`, ...headers, ...length].join('\r\n'), body);
}

const agentIds = () => emulator.control.state().agents.map((agent) => agent.id);

describe('Host', () => {
  it.each([['localhost'], ['127.0.0.1'], ['[::1]'], ['LOCALHOST']])('%s with the emulator\'s port is answered', async (name) => {
    const answer = await send('GET', '/_emulator/state', `${name}:${port}`);
    expect(answer.status).toBe(200);
  });

  it.each([
    ['a page\'s own name (DNS rebinding)', () => `attacker.example:${port}`],
    ['a name ending in localhost', () => `localhost.attacker.example:${port}`],
    ['another port', () => `localhost:${port + 1}`],
    ['no port', () => 'localhost'],
    ['nothing', () => ''],
    ['garbage', () => `local host:${port}`],
  ])('%s is a 403, and the applied webhook tokens stay unread', async (_case, host) => {
    await emulator.control.seed({ keys: [{ type: 'private', key: 'k'.repeat(32) }], agents: [{ id: 'ag_1', name: 'A', config: { session_data_webhook: { url: 'https://h.example/end', headers: { 'x-token': 'planted-webhook-token' } } } }] });
    for (const target of ['/_emulator/state', '/_emulator/requests', '/_emulator']) {
      const answer = await send('GET', target, host());
      expect(answer.status).toBe(403);
      expect(answer.body).not.toContain('planted-webhook-token');
    }
    expect((await send('POST', '/_emulator/seed', host(), ['Content-Type: application/json'], SEED)).status).toBe(403);
    expect(agentIds()).toEqual(['ag_1']);
  });
});

describe('Origin', () => {
  it('the emulator\'s own origin, or none, is answered', async () => {
    expect((await send('GET', '/_emulator/state', `127.0.0.1:${port}`, [`Origin: http://127.0.0.1:${port}`])).status).toBe(200);
    expect((await send('POST', '/_emulator/reset', `localhost:${port}`, [`Origin: http://localhost:${port}`])).status).toBe(200);
  });

  it.each([['another site', 'https://attacker.example'], ['another local port', 'http://localhost:3000'], ['null (a sandboxed page, a file)', 'null']])('%s is a 403 and changes nothing', async (_case, origin) => {
    const answer = await send('POST', '/_emulator/seed', `localhost:${port}`, [`Origin: ${origin}`, 'Content-Type: application/json'], SEED);
    expect(answer.status).toBe(403);
    expect(JSON.parse(answer.body)).toEqual({ detail: 'The control routes do not answer requests a web page sends from another origin.' });
    expect(agentIds()).toContain(FRONT_DESK);
    expect((await send('POST', '/_emulator/reset', `localhost:${port}`, [`Origin: ${origin}`])).status).toBe(403);
  });
});

describe('content types', () => {
  it.each([['text/plain'], ['text/plain; charset=utf-8'], ['application/x-www-form-urlencoded'], ['multipart/form-data; boundary=x'], ['']])(
    'a body of type "%s" (a cross-site form or fetch may send it) is a 415 and replaces nothing',
    async (type) => {
      const answer = await send('POST', '/_emulator/seed', `localhost:${port}`, type === '' ? [] : [`Content-Type: ${type}`], SEED);
      expect(answer.status).toBe(415);
      expect(JSON.parse(answer.body).detail).toMatch(/^A control request's body must be JSON or YAML \(content-type application\/json\), not /);
      expect(agentIds()).toContain(FRONT_DESK);
      expect((await send('PUT', '/_emulator/faults', `localhost:${port}`, type === '' ? [] : [`Content-Type: ${type}`], '{"rules":[{"path":"**","errorRate":1}]}')).status).toBe(415);
      expect(emulator.control.getFaults().rules).toEqual([]);
    },
  );

  it('JSON, and YAML for a seed, are taken; a request without a body needs no type', async () => {
    expect((await send('POST', '/_emulator/seed', `localhost:${port}`, ['Content-Type: application/json; charset=utf-8'], SEED)).status).toBe(200);
    expect(agentIds()).toEqual(['ag_taken']);
    expect((await send('POST', '/_emulator/seed', `localhost:${port}`, ['Content-Type: application/yaml'], 'agents:\n  - { id: ag_y, name: Y, config: {} }\n')).status).toBe(200);
    expect(agentIds()).toEqual(['ag_y']);
    expect((await send('PUT', '/_emulator/put-mode', `localhost:${port}`, ['Content-Type: application/yaml'], 'mode: replace\n')).status).toBe(415);
    expect((await send('POST', '/_emulator/reset', `localhost:${port}`)).status).toBe(200);
    expect(agentIds()).toContain(FRONT_DESK);
  });
});

describe('spec routes', () => {
  it('answer any Host and Origin as before: a key guards them', async () => {
    const answer = await send('GET', `/agents/${FRONT_DESK}`, 'emulator.internal:4010', [`Authorization: ${emulator.apiKey}`, 'Origin: https://elsewhere.example']);
    expect(answer.status).toBe(200);
    expect((await send('GET', `/agents/${FRONT_DESK}`, `attacker.example:${port}`)).status).toBe(401);
  });
});
