import net from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { MAX_JSON_DEPTH } from '../../src/util/json-budget.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { FRONT_DESK, HOSTILE_REQUEST_LINES, rawExchange, startTestEmulator, streamedText, type Client } from './helpers.js';
import { seededRandom } from '../../src/util/seeded-random.js';

let emulator: RunningEmulator;
let client: Client;

beforeAll(async () => {
  ({ emulator, client } = await startTestEmulator());
});
afterAll(() => emulator.close());
beforeEach(() => emulator.control.reset());

/** `{"a":{"a":…1…}}` with `levels` objects. */
const nested = (levels: number): string => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;

/** Every kind of request still answers as it should: nothing a bad request did stays behind. */
async function expectStillServing(): Promise<void> {
  expect((await client.get(`/agents/${FRONT_DESK}`)).status).toBe(200);
  expect((await client.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config: { prompt: 'Still here' } })).status).toBe(200);
  expect((await client.post('/register_call', { agent_id: FRONT_DESK, metadata: { ok: true } })).status).toBe(200);
  const logs = await client.get('/call-logs?limit=100');
  expect(logs.status).toBe(200);
  expect(logs.body.histories.length).toBeGreaterThan(0);
  const chat = await client.post('/chat/completions', { agent: { agent_id: FRONT_DESK }, messages: [{ role: 'user', content: 'ping' }] });
  expect(chat.status).toBe(200);
  expect(streamedText(chat.text)).toBe('[Front desk] You said: ping');
  expect((await client.get('/_emulator/state')).status).toBe(200);
  expect(emulator.control.requestLog().filter((e) => e.status >= 500)).toEqual([]);
}

/** Sends raw bytes on a fresh connection; resolves with the status line (empty if none) once the server or `closeAfterMs` ends it. */
function rawRequest(text: string, options: { closeAfterWrite?: boolean } = {}): Promise<string> {
  const { hostname, port } = new URL(emulator.url);
  return new Promise((resolve) => {
    let answer = '';
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(text);
      if (options.closeAfterWrite) socket.destroy();
    });
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      answer += chunk;
      if (answer.includes('\r\n\r\n')) socket.end();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve(answer.split('\r\n')[0] ?? ''));
  });
}

describe('request lines and targets', () => {
  it.each(HOSTILE_REQUEST_LINES.map((line) => [JSON.stringify(line), line]))('%s is a 400, and the emulator serves on', async (_shown, line) => {
    const { hostname, port } = new URL(emulator.url);
    const answer = await rawExchange(emulator.url, `${line}\r\nHost: ${hostname}:${port}\r\nauthorization: ${emulator.apiKey}`);
    expect(answer.status).toBe(400);
    await expectStillServing();
  });

  it('a CONNECT is answered as any other request (Node dropped it unanswered): a host:port target is a 400, a path a 405 with Allow', async () => {
    const { hostname, port } = new URL(emulator.url);
    const tunnel = await rawExchange(emulator.url, `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\nauthorization: ${emulator.apiKey}`);
    expect(tunnel.status).toBe(400);
    expect(tunnel.body).toBe('{"detail":"The request target must be a path, such as /agents."}');
    const onPath = await rawExchange(emulator.url, `CONNECT /agents/${FRONT_DESK} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nauthorization: ${emulator.apiKey}`);
    expect(onPath.status).toBe(405);
    expect(onPath.head).toMatch(/\r\nallow: [A-Z, ]*GET/i);
    await expectStillServing();
  });
});

describe('body size', () => {
  it('a body over 1 MiB is a 413 naming the limit, whether its length is declared or streamed', async () => {
    const big = JSON.stringify({ agent_id: FRONT_DESK, metadata: { blob: 'x'.repeat(1024 * 1024) } });
    const declared = await client.call('POST', '/register_call', { rawBody: big, headers: { 'content-type': 'application/json' } });
    expect(declared.status).toBe(413);
    expect(declared.body).toEqual({ detail: `Request body too large (at most ${1024 * 1024} bytes)` });
    const status = await rawRequest(
      `POST /register_call HTTP/1.1\r\nHost: x\r\nauthorization: ${emulator.apiKey}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n${big.length.toString(16)}\r\n${big}\r\n0\r\n\r\n`,
    );
    expect(status).toBe('HTTP/1.1 413 Payload Too Large');
    await expectStillServing();
  });

  it('a body cut short by the client is not a 500, and later requests are served', async () => {
    await rawRequest(`PUT /agents/${FRONT_DESK} HTTP/1.1\r\nHost: x\r\nauthorization: ${emulator.apiKey}\r\ncontent-length: 500\r\n\r\n{"name":`, { closeAfterWrite: true });
    await expect.poll(() => emulator.control.requestLog().find((e) => e.method === 'PUT')?.status).toBe(400);
    await expectStillServing();
  });
});

describe('nesting depth', () => {
  it(`accepts ${MAX_JSON_DEPTH} levels and refuses one more with a 422 json_invalid at the opening bracket`, async () => {
    // The body is one level; metadata adds the rest.
    const fits = `{"agent_id":"${FRONT_DESK}","metadata":${nested(MAX_JSON_DEPTH - 1)}}`;
    expect((await client.call('POST', '/register_call', { rawBody: fits, headers: { 'content-type': 'application/json' } })).status).toBe(200);
    const deep = `{"agent_id":"${FRONT_DESK}","metadata":${nested(MAX_JSON_DEPTH)}}`;
    const refused = await client.call('POST', '/register_call', { rawBody: deep, headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(422);
    expect(refused.body).toEqual({
      detail: [{ type: 'json_invalid', loc: ['body', deep.lastIndexOf('{"a":')], msg: `JSON decode error: the body nests deeper than ${MAX_JSON_DEPTH} levels` }],
    });
    await expectStillServing();
  });

  it('metadata nested thousands of levels deep is refused, so the call log stays servable (it was a 500 on every later GET /call-logs)', async () => {
    for (const path of ['/register_call', '/chat/completions']) {
      const body = path === '/register_call' ? `{"agent_id":"${FRONT_DESK}","metadata":${nested(5000)}}` : `{"agent":{"agent_id":"${FRONT_DESK}","metadata":${nested(5000)}},"messages":[]}`;
      expect((await client.call('POST', path, { rawBody: body, headers: { 'content-type': 'application/json' } })).status).toBe(422);
    }
    const arrays = `{"name":"x","config":{"prompt":"p","tools":${'['.repeat(200_000)}${']'.repeat(200_000)}}}`;
    expect((await client.call('PUT', `/agents/${FRONT_DESK}`, { rawBody: arrays, headers: { 'content-type': 'application/json' } })).status).toBe(422);
    await expectStillServing();
  });

  it('a metadata key named __proto__ is kept as a key, on a call and a chat alike, and changes no prototype', async () => {
    const body = `{"agent_id":"${FRONT_DESK}","metadata":{"__proto__":{"polluted":"yes"},"plain":1}}`;
    expect((await client.call('POST', '/register_call', { rawBody: body, headers: { 'content-type': 'application/json' } })).status).toBe(200);
    const record = (await client.get('/call-logs?limit=1')).body.histories[0];
    expect(Object.keys(record.metadata)).toEqual(['__proto__', 'plain']);
    expect(record.metadata.polluted).toBeUndefined();
    const chat = `{"agent":{"agent_id":"${FRONT_DESK}","metadata":{"__proto__":{"polluted":"yes"}}},"messages":[{"role":"user","content":"ping"}]}`;
    expect((await client.call('POST', '/chat/completions', { rawBody: chat, headers: { 'content-type': 'application/json' } })).status).toBe(200);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    await expectStillServing();
  });

  it('brackets inside strings do not count', async () => {
    const text = '['.repeat(500) + '\\"{'.repeat(100);
    const answer = await client.post('/register_call', { agent_id: FRONT_DESK, metadata: { note: text } });
    expect(answer.status).toBe(200);
    const record = (await client.get('/call-logs?limit=1')).body.histories[0];
    expect(record.metadata.note).toBe(text);
  });

  it('control routes and seeds refuse deep bodies with a 400', async () => {
    expect((await client.call('PUT', '/_emulator/faults', { rawBody: nested(1000), headers: { 'content-type': 'application/json' } })).status).toBe(400);
    const seed = { agents: [], call_logs: [{ call_id: 'c1', agent_id: FRONT_DESK, ts: 1, metadata: JSON.parse(nested(200)) }] };
    const answer = await client.post('/_emulator/seed', seed);
    expect(answer.status).toBe(400);
    expect(answer.body.detail).toContain(`nests deeper than ${MAX_JSON_DEPTH} levels`);
    await expectStillServing();
  });
});

describe('other malformed requests', () => {
  it('a Host header no URL can be made of gets URLs with the emulator’s own address, not a 500', async () => {
    const body = JSON.stringify({ agent_id: FRONT_DESK });
    const status = await rawRequest(
      `POST /register_sip_call HTTP/1.1\r\nHost: [zz\r\nauthorization: ${emulator.apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
    );
    expect(status).toBe('HTTP/1.1 200 OK');
    await expectStillServing();
  });

  it.each([
    ['not JSON', '{"agent_id":', 422],
    ['a JSON string', '"hello"', 422],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0xfe, 0x7d]).toString('latin1'), 422],
    ['an empty body', '', 422],
  ])('%s is a 4xx', async (_what, rawBody, status) => {
    expect((await client.call('POST', '/register_call', { rawBody, headers: { 'content-type': 'application/json' } })).status).toBe(status);
    await expectStillServing();
  });
});

describe('a body not declared JSON', () => {
  const body = JSON.stringify({ name: 'Renamed', config: {} });

  it.each([
    ['text/plain', { 'content-type': 'text/plain' }],
    ['form-encoded', { 'content-type': 'application/x-www-form-urlencoded' }],
    ['undeclared', {}],
  ])('%s is a 422 at ["body"], as the service refuses it, and changes nothing', async (_what, headers) => {
    const answer = await client.call('PUT', `/agents/${FRONT_DESK}`, { rawBody: body, headers });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ detail: [{ type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from' }] });
    expect((await client.get(`/agents/${FRONT_DESK}`)).body.name).not.toBe('Renamed');
  });

  it.each(['application/json; charset=utf-8', 'application/merge-patch+json'])('%s is read as JSON', async (type) => {
    expect((await client.call('PUT', `/agents/${FRONT_DESK}`, { rawBody: body, headers: { 'content-type': type } })).status).toBe(200);
  });
});

function randomValue(next: () => number, depth: number): unknown {
  const pick = Math.floor(next() * (depth > 90 ? 5 : 8));
  const strings = ['', FRONT_DESK, '+15551230001', '__proto__', 'constructor', '\u0000', 'ñ', 'x'.repeat(300)];
  switch (pick) {
    case 0:
      return null;
    case 1:
      return next() < 0.5;
    case 2:
      return [0, -1, 1e308, 0.5, 2 ** 53 + 1][Math.floor(next() * 5)];
    case 3:
    case 4:
      return strings[Math.floor(next() * strings.length)];
    case 5:
      return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
    default: {
      const keys = ['agent_id', 'metadata', 'agent', 'messages', 'config', 'name', 'prompt', 'phone', 'files', '__proto__', 'role', 'content'];
      const object: Record<string, unknown> = {};
      for (let i = Math.floor(next() * 4); i > 0; i--) object[keys[Math.floor(next() * keys.length)] as string] = randomValue(next, depth + 1);
      return object;
    }
  }
}

describe('seeded fuzzing of every write operation', () => {
  it('valid bodies with one field made random never get a 5xx, and the emulator serves normally afterwards', async () => {
    const next = seededRandom(20260110);
    const agent = { agent_id: FRONT_DESK, metadata: { a: 1 } };
    const targets: Array<[string, string, Record<string, unknown>]> = [
      ['PUT', `/agents/${FRONT_DESK}`, { name: 'n', config: { prompt: 'p', flow: { response_delay: 1 } } }],
      ['POST', '/register_call', { ...agent, from_phone: '+15551230001', session_continuation: { messages: [] } }],
      ['POST', '/register_sip_call', { ...agent }],
      ['POST', '/sip', { init_agent: agent, region: 'us-west' }],
      ['POST', '/chat/completions', { agent, messages: [{ role: 'user', content: 'hi' }], end_of_session: false }],
      ['POST', '/phones/import', { country: 'US', phone: '+15551239999', region: 'us-west', api_key: 'k', api_secret: 's' }],
      ['POST', '/phones/%2B15551230001/set_agent', { agent_id: FRONT_DESK }],
      ['PUT', '/campaigns/cmp_recall_2026/info', { name: 'c', include_metadata_in_prompt: true }],
      ['POST', '/campaigns/cmp_recall_2026/set_caller', { caller: '+15551230001' }],
      ['POST', '/api_keys', { type: 'private', name: 'k' }],
      ['POST', '/user/credentials', { provider: 'openai', api_key: 'k' }],
      ['POST', '/knowledge/generate_presigned_url', { filename: 'a.txt' }],
      ['POST', '/knowledge/create_file', { object_key: 'knowledge/none/a.txt', name: 'a' }],
      ['POST', '/knowledge/set_agent_files', { agent_id: FRONT_DESK, files: [] }],
    ];
    for (let i = 0; i < 300; i++) {
      const [method, path, valid] = targets[i % targets.length] as (typeof targets)[number];
      const body: Record<string, unknown> = structuredClone(valid);
      const fields = Object.keys(body);
      body[fields[Math.floor(next() * fields.length)] as string] = randomValue(next, 0);
      let text = JSON.stringify(body);
      // Some bodies nest around the depth limit, some are cut at a random place.
      if (next() < 0.1) text = `{"agent_id":"${FRONT_DESK}","metadata":${nested(next() < 0.5 ? 60 + Math.floor(next() * 20) : 5000)}}`;
      if (next() < 0.1) text = text.slice(0, Math.floor(next() * text.length));
      const answer = await client.call(method, path, { rawBody: text, headers: { 'content-type': 'application/json' } });
      expect(answer.status, `${method} ${path} ${text.slice(0, 200)}`).toBeLessThan(500);
    }
    await expectStillServing();
  });
});

describe('what a request stores cannot break later requests', () => {
  it('a webhook with headers no HTTP request can carry is a failed delivery, not a 500 on every session of the agent', async () => {
    for (const headers of [{ 'bad name': 'v' }, { 'x-token': 'line\nbreak' }]) {
      const hook = { url: 'http://127.0.0.1:9/hook', headers };
      expect((await client.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config: { extra_prompt_webhook: hook, session_data_webhook: hook } })).status).toBe(200);
      const call = await client.post('/register_call', { agent_id: FRONT_DESK });
      expect(call.status).toBe(200);
      const chat = await client.post('/chat/completions', { agent: { agent_id: FRONT_DESK }, messages: [{ role: 'user', content: 'hi' }], end_of_session: true });
      expect(chat.status).toBe(200);
      const ended = await client.post(`/_emulator/calls/${call.body.call_id}/end`, { status: 'user-ended' });
      expect(ended.status).toBe(200);
      expect(ended.body.webhook).toMatchObject({ ok: false, error: expect.stringMatching(/^cannot be sent: /) });
    }
    expect(emulator.control.requestLog().filter((e) => e.status >= 500)).toEqual([]);
  });

  it('a prefetch answer nested too deeply is ignored (its metadata would be served in the call log)', async () => {
    const { startReceiver } = await import('./helpers.js');
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"metadata":${nested(5000)}}`);
    });
    try {
      await client.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config: { extra_prompt_webhook: `${receiver.url}/prefetch` } });
      expect((await client.post('/register_call', { agent_id: FRONT_DESK })).status).toBe(200);
      expect(emulator.control.webhookDeliveries().at(-1)).toMatchObject({ ok: false, error: `answered JSON nested deeper than ${MAX_JSON_DEPTH} levels` });
      await expectStillServing();
    } finally {
      await receiver.close();
    }
  });
});
