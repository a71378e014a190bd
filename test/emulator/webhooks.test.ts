import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { eventually, expectSchema, FRONT_DESK, startReceiver, startTestEmulator, streamedText, type Client } from './helpers.js';

let emulator: RunningEmulator;
let client: Client;
// A short time-out keeps the slow-webhook test fast; nothing here measures time.
beforeAll(async () => ({ emulator, client } = await startTestEmulator({ webhookTimeoutMs: 300 })));
afterAll(() => emulator.close());
beforeEach(() => emulator.control.reset());

async function configure(config: Record<string, unknown>): Promise<void> {
  const res = await client.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config });
  expect(res.status).toBe(200);
}

const logOf = async (callId: string) => (await client.get('/call-logs?limit=100')).body.histories.find((r: { call_id: string }) => r.call_id === callId);

describe('the prefetch webhook (extra_prompt_webhook)', () => {
  it('is called before the session with the spec query, flattened metadata and the configured headers; its answer is merged', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ metadata: { tier: 'gold', loyalty: 7 }, extra_prompt: 'The caller is a VIP.' }));
    });
    try {
      await configure({ prompt: 'Base prompt.', extra_prompt_webhook: { url: `${receiver.url}/prefetch?source=voxform`, headers: { 'x-hook-token': 'tok-123' } } });
      const res = await client.post('/register_call', { agent_id: FRONT_DESK, from_phone: '+15550100001', to_phone: '+15551230001', metadata: { customer: 'c1', tier: 'silver', visits: 3, tags: ['a'] } });
      expect(res.status).toBe(200);

      const got = await receiver.next();
      expect(got.method).toBe('GET');
      expect(got.url.pathname).toBe('/prefetch');
      expect(got.headers['x-hook-token']).toBe('tok-123');
      const query = Object.fromEntries(got.url.searchParams);
      expectSchema('PrefetchWebhookQuery', query);
      expect(query).toEqual({
        source: 'voxform',
        session_id: res.body.session_id,
        agent_id: FRONT_DESK,
        from: '+15550100001',
        to: '+15551230001',
        customer: 'c1',
        tier: 'silver',
        visits: '3',
        tags: '["a"]',
      });

      const record = await logOf(res.body.call_id);
      expect(record.metadata).toEqual({ customer: 'c1', tier: 'gold', visits: 3, tags: ['a'], loyalty: 7 });
      expect(record.agent_config.prompt).toBe('Base prompt.\n\nThe caller is a VIP.');
      const entry = emulator.control.requestLog().find((e) => e.path === '/register_call');
      expect(entry?.webhooks).toEqual([expect.objectContaining({ hook: 'prefetch', ok: true, status: 200 })]);
    } finally {
      await receiver.close();
    }
  });

  it("replaces, not repeats, a parameter the configured URL already carries: the receiver reads the service's", async () => {
    const receiver = await startReceiver();
    try {
      await configure({ extra_prompt_webhook: `${receiver.url}/p?session_id=configured&agent_id=configured&keep=1` });
      const res = await client.post('/register_call', { agent_id: FRONT_DESK, metadata: { keep: '2' } });
      const got = await receiver.next();
      expect([...got.url.searchParams]).toEqual([
        ['session_id', res.body.session_id],
        ['agent_id', FRONT_DESK],
        ['keep', '2'],
      ]);
    } finally {
      await receiver.close();
    }
  });

  it('is called before the first chat message only, without from/to', async () => {
    const receiver = await startReceiver();
    try {
      await configure({ extra_prompt_webhook: `${receiver.url}/p` });
      const first = await client.post('/chat/completions', { agent: { agent_id: FRONT_DESK, metadata: { k: 'v' } }, messages: [{ role: 'user', content: 'Hi' }] });
      const got = await receiver.next();
      expect(Object.fromEntries(got.url.searchParams)).toEqual({ k: 'v', session_id: expect.any(String), agent_id: FRONT_DESK });
      const reply = streamedText(first.text);
      await client.post('/chat/completions', {
        agent: { agent_id: FRONT_DESK },
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: reply },
          { role: 'user', content: 'More' },
        ],
      });
      expect(receiver.received).toHaveLength(1);
    } finally {
      await receiver.close();
    }
  });

  it('a failing prefetch never breaks the session; the failure is in the request log', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(500);
      res.end('boom');
    });
    try {
      await configure({ prompt: 'Base.', extra_prompt_webhook: `${receiver.url}/p` });
      const res = await client.post('/register_call', { agent_id: FRONT_DESK });
      expect(res.status).toBe(200);
      expect((await logOf(res.body.call_id)).agent_config.prompt).toBe('Base.');
      const log = await client.get('/_emulator/requests');
      const entry = log.body.requests.find((e: { path: string }) => e.path === '/register_call');
      expect(entry.webhooks).toEqual([expect.objectContaining({ hook: 'prefetch', ok: false, status: 500, error: 'answered 500' })]);
    } finally {
      await receiver.close();
    }
  });

  it('a slow prefetch times out and the session goes on', async () => {
    const receiver = await startReceiver(() => {
      /* never answers */
    });
    try {
      await configure({ extra_prompt_webhook: `${receiver.url}/slow` });
      const res = await client.post('/register_call', { agent_id: FRONT_DESK });
      expect(res.status).toBe(200);
      const [delivery] = emulator.control.webhookDeliveries();
      expect(delivery).toMatchObject({ hook: 'prefetch', ok: false, error: 'timed out after 300 ms' });
    } finally {
      await receiver.close();
    }
  });

  it('an answer that is not the expected shape is ignored and recorded', async () => {
    const receiver = await startReceiver((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ extra_prompt: 42 }));
    });
    try {
      await configure({ prompt: 'Base.', extra_prompt_webhook: `${receiver.url}/p` });
      const res = await client.post('/register_call', { agent_id: FRONT_DESK });
      expect((await logOf(res.body.call_id)).agent_config.prompt).toBe('Base.');
      expect(emulator.control.webhookDeliveries()[0]).toMatchObject({ ok: false, error: expect.stringMatching(/^answer ignored/) });
    } finally {
      await receiver.close();
    }
  });

  it('an unreachable webhook is a failed delivery, not a failed session', async () => {
    const gone = await startReceiver();
    await gone.close(); // its port now refuses connections
    await configure({ extra_prompt_webhook: `${gone.url}/nothing-listens-here` });
    const res = await client.post('/register_call', { agent_id: FRONT_DESK });
    expect(res.status).toBe(200);
    expect(emulator.control.webhookDeliveries()[0]).toMatchObject({ ok: false, error: expect.stringContaining('ECONNREFUSED') });
  });
});

describe('the end-of-call webhook (session_data_webhook)', () => {
  it('POSTs the spec payload when a call ends with a status, and the log record is final', async () => {
    const receiver = await startReceiver();
    try {
      await configure({ session_data_webhook: { url: `${receiver.url}/end`, headers: { 'x-hook-token': 'end-token' } } });
      const call = await client.post('/register_call', { agent_id: FRONT_DESK, from_phone: '+15550100002', to_phone: '+15551230001', metadata: { customer: 'c9' } });
      const end = await client.post(`/_emulator/calls/${call.body.call_id}/end`, {
        status: 'user-ended',
        duration: 42,
        messages: [
          { role: 'assistant', content: 'Hello!' },
          { role: 'user', content: 'Bye.' },
        ],
      });
      expect(end.status).toBe(200);
      expect(end.body.webhook).toMatchObject({ hook: 'end_of_call', ok: true, status: 200 });

      const got = await receiver.next();
      expect(got.method).toBe('POST');
      expect(got.headers['x-hook-token']).toBe('end-token');
      expect(got.headers['content-type']).toBe('application/json');
      const payload = JSON.parse(got.body);
      expectSchema('EndOfCallPayload', payload);
      expect(typeof payload.chat).toBe('string');
      expect(JSON.parse(payload.chat)).toEqual([
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'Bye.' },
      ]);
      expect(payload).toMatchObject({
        call_id: call.body.call_id,
        session_id: call.body.session_id,
        agent_id: FRONT_DESK,
        duration: 42,
        call_status: 'user-ended',
        error_message: null,
        chars_used: 10,
        voip: { provider: 'twilio', from: '+15550100002', to: '+15551230001' },
        recording: { recording_url: '' },
        metadata: { customer: 'c9' },
        function_calls: [],
      });
      expect(payload.cost_breakdown.map((c: { type: string }) => c.type)).toEqual(['stt', 'tts', 'llm']);
      expect(payload.agent_config.session_data_webhook.url).toBe(`${receiver.url}/end`);

      const record = await logOf(call.body.call_id);
      expect(record).toMatchObject({ call_status: 'user-ended', duration: 42, chat: payload.chat });
    } finally {
      await receiver.close();
    }
  });

  it('a chat with end_of_session fires it with call_status chat_completion', async () => {
    const receiver = await startReceiver();
    try {
      await configure({ session_data_webhook: `${receiver.url}/end` });
      const res = await client.post('/chat/completions', { agent: { agent_id: FRONT_DESK }, messages: [{ role: 'user', content: 'Thanks, bye' }], end_of_session: true });
      expect(res.status).toBe(200);
      const payload = JSON.parse((await receiver.next()).body);
      expectSchema('EndOfCallPayload', payload);
      expect(payload.call_status).toBe('chat_completion');
      expect(Number.isInteger(payload.duration)).toBe(true);
      expect(JSON.parse(payload.chat)).toEqual([
        { role: 'user', content: 'Thanks, bye' },
        { role: 'assistant', content: '[Front desk] You said: Thanks, bye' },
      ]);
      expect(payload.cost_breakdown.map((c: { type: string }) => c.type)).toEqual(['llm']);
      // The delivery is recorded once the receiver has answered.
      const [delivery] = await eventually(() => emulator.control.webhookDeliveries().length === 1 && emulator.control.webhookDeliveries(), 'the delivery');
      expect(delivery).toMatchObject({ hook: 'end_of_call', ok: true, status: 200 });
    } finally {
      await receiver.close();
    }
  });

  it('a failing or slow end-of-call webhook never breaks ending the call', async () => {
    const failing = await startReceiver((_req, res) => {
      res.writeHead(503);
      res.end();
    });
    const slow = await startReceiver(() => undefined);
    try {
      await configure({ session_data_webhook: `${failing.url}/end` });
      const a = await client.post('/register_call', { agent_id: FRONT_DESK });
      const endA = await client.post(`/_emulator/calls/${a.body.call_id}/end`, { status: 'error', error_message: 'line dropped' });
      expect(endA.status).toBe(200);
      expect(endA.body.webhook).toMatchObject({ ok: false, error: 'answered 503' });
      expect((await logOf(a.body.call_id))).toMatchObject({ call_status: 'error', error_message: 'line dropped' });

      await configure({ session_data_webhook: `${slow.url}/end` });
      const b = await client.post('/register_call', { agent_id: FRONT_DESK });
      const endB = await emulator.control.endCall(b.body.call_id, 'timeout');
      expect(endB.webhook).toMatchObject({ ok: false, error: 'timed out after 300 ms' });
      expect(endB.record.call_status).toBe('timeout');
      const logged = (await client.get('/_emulator/requests')).body.webhooks;
      expect(logged.map((d: { error?: string }) => d.error)).toEqual(['answered 503', 'timed out after 300 ms']);
    } finally {
      await failing.close();
      await slow.close();
    }
  });

  it('ending a call twice is a 409; unknown calls are 404; bad statuses are 400', async () => {
    const call = await client.post('/register_call', { agent_id: FRONT_DESK });
    expect((await client.post(`/_emulator/calls/${call.body.call_id}/end`, { status: 'agent-ended' })).status).toBe(200);
    expect((await client.post(`/_emulator/calls/${call.body.call_id}/end`, { status: 'agent-ended' })).status).toBe(409);
    expect((await client.post('/_emulator/calls/call_nope/end', { status: 'agent-ended' })).status).toBe(404);
    const other = await client.post('/register_call', { agent_id: FRONT_DESK });
    expect((await client.post(`/_emulator/calls/${other.body.call_id}/end`, { status: 'COMPLETED' })).status).toBe(400);
    expect((await client.post(`/_emulator/calls/${other.body.call_id}/end`, { status: 'user-ended', duration: 1.5 })).status).toBe(400);
  });

  it('with webhooks limited to loopback, other hosts are skipped and recorded', async () => {
    await configure({ session_data_webhook: 'https://hooks.example.com/voice/end-of-call' });
    const call = await client.post('/register_call', { agent_id: FRONT_DESK });
    const end = await emulator.control.endCall(call.body.call_id, 'user-ended');
    expect(end.webhook).toMatchObject({ ok: false, error: 'skipped: only loopback webhooks are allowed' });
  });
});

describe('the webhooks option', () => {
  it.each(['off', 'Loopback', false])("refuses %j rather than read it as 'all' and call real hosts", async (value) => {
    const started = startEmulator({ port: 0, webhooks: value as never });
    await expect(started).rejects.toMatchObject({ code: 'emulator_options_invalid', message: expect.stringContaining("'all', 'loopback', 'none'") });
    // Should it have started, close it so the run does not hang.
    await started.then((running) => running.close(), () => undefined);
  });
});

describe('the port and putMode options', () => {
  it.each([
    [{ port: -5 }, 'The port option -5 is not a port number from 0 to 65535'],
    [{ port: 1.5 }, 'The port option 1.5 is not a port number from 0 to 65535'],
    [{ putMode: 'bogus' }, `The putMode option "bogus" is not 'merge' or 'replace'`],
  ])('refuses %j with emulator_options_invalid, not a raw error or a silent default', async (options, message) => {
    const started = startEmulator(options as never);
    await expect(started).rejects.toMatchObject({ code: 'emulator_options_invalid', message: `${message}; the emulator was not started.` });
    await started.then((running) => running.close(), () => undefined);
  });
});
