import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { BOOKING, expectSchema, FRONT_DESK, sseEvents, startTestEmulator, streamedText, type Client } from './helpers.js';

let emulator: RunningEmulator;
let client: Client;
beforeAll(async () => ({ emulator, client } = await startTestEmulator()));
afterAll(() => emulator.close());
beforeEach(() => emulator.control.reset());

const logOf = async (callId: string) => {
  const res = await client.get('/call-logs?limit=100');
  return res.body.histories.find((r: { call_id: string }) => r.call_id === callId);
};

describe('POST /register_call', () => {
  it('answers {call_id, session_id}; the call is logged as registered', async () => {
    const res = await client.post('/register_call', { agent_id: FRONT_DESK, from_phone: '+15550101999', to_phone: '+15551230001', metadata: { customer: 'c1' } });
    expect(res.status).toBe(200);
    expectSchema('RegisterCallResponse', res.body);
    const record = await logOf(res.body.call_id);
    expect(record).toMatchObject({ call_status: 'registered', session_id: res.body.session_id, agent_id: FRONT_DESK, metadata: { customer: 'c1' } });
    expect(record.voip).toEqual({ provider: 'twilio', from: '+15550101999', to: '+15551230001' });
    expectSchema('GlobalCallHistoryRecord', record);
  });

  it('refuses an unknown agent (422 at agent_id) and a bad body', async () => {
    const unknown = await client.post('/register_call', { agent_id: '-OKnope' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'agent_id'] });
    const bad = await client.post('/register_call', { agent_id: FRONT_DESK, metadata: 'x', agent_config: { flow: { response_delay: 'x' } } });
    expect(bad.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'agent_config', 'flow', 'response_delay'],
      ['body', 'metadata'],
    ]);
  });

  it('continues a session: session_continuation.session_id keeps the session id and its history', async () => {
    const first = await client.post('/register_call', { agent_id: FRONT_DESK, metadata: { a: 1 } });
    await emulator.control.endCall(first.body.call_id, 'user-ended', { messages: [{ role: 'user', content: 'first call' }] });
    const second = await client.post('/register_call', {
      agent_id: FRONT_DESK,
      metadata: { b: 2 },
      session_continuation: { session_id: first.body.session_id, messages: [{ role: 'user', content: 'again' }] },
    });
    expect(second.status).toBe(200);
    expect(second.body.session_id).toBe(first.body.session_id);
    expect(second.body.call_id).not.toBe(first.body.call_id);
    const record = await logOf(second.body.call_id);
    expect(JSON.parse(record.chat)).toEqual([
      { role: 'user', content: 'first call' },
      { role: 'user', content: 'again' },
    ]);
    expect(record.metadata).toEqual({ a: 1, b: 2 });
    const unknown = await client.post('/register_call', { agent_id: FRONT_DESK, session_continuation: { session_id: 'ses_nope' } });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['body', 'session_continuation', 'session_id']);
  });

  it('refuses a knowledge file id the account does not hold in a session agent_config, on every operation that starts one', async () => {
    const config = { knowledge_base: { files: ['kf_nope'] } };
    const logged = async () => (await client.get('/call-logs?limit=100')).body.histories.length;
    const before = await logged();
    const refused = [
      [await client.post('/register_call', { agent_id: FRONT_DESK, agent_config: config }), ['body', 'agent_config', 'knowledge_base', 'files', 0]],
      [await client.post('/register_sip_call', { agent_id: FRONT_DESK, agent_config: config }), ['body', 'agent_config', 'knowledge_base', 'files', 0]],
      [await client.post('/sip', { init_agent: { agent_id: FRONT_DESK, agent_config: config }, region: 'us-west' }), ['body', 'init_agent', 'agent_config', 'knowledge_base', 'files', 0]],
      [await client.post('/chat/completions', { agent: { agent_id: FRONT_DESK, agent_config: config }, messages: [] }), ['body', 'agent', 'agent_config', 'knowledge_base', 'files', 0]],
    ] as const;
    for (const [res, loc] of refused) {
      expect(res.status).toBe(422);
      expect(res.body.detail).toEqual([{ type: 'value_error', loc, msg: 'Value error, no knowledge file with this id' }]);
    }
    expect(await logged()).toBe(before);
  });

  it('refuses to continue a session of another agent (422 at session_continuation.session_id), starting nothing', async () => {
    const first = await client.post('/register_call', { agent_id: FRONT_DESK, metadata: { a: 1 } });
    const logged = async () => (await client.get('/call-logs?limit=100')).body.histories.length;
    const before = await logged();
    const other = await client.post('/register_call', { agent_id: BOOKING, session_continuation: { session_id: first.body.session_id } });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ detail: [{ type: 'value_error', loc: ['body', 'session_continuation', 'session_id'], msg: 'Value error, this session belongs to another agent' }] });
    const sip = await client.post('/sip', { init_agent: { agent_id: BOOKING, session_continuation: { session_id: first.body.session_id } } });
    expect(sip.body.detail[0].loc).toEqual(['body', 'init_agent', 'session_continuation', 'session_id']);
    expect(await logged()).toBe(before);
  });

  it('session_continuation is closed: an unknown field in it or in its messages is extra_forbidden, and no session starts', async () => {
    const logged = async () => (await client.get('/call-logs?limit=100')).body.histories.length;
    const before = await logged();
    const misspelt = await client.post('/register_call', { agent_id: FRONT_DESK, session_continuation: { sesion_id: 'x' } });
    expect(misspelt.status).toBe(422);
    expect(misspelt.body).toEqual({ detail: [{ type: 'extra_forbidden', loc: ['body', 'session_continuation', 'sesion_id'], msg: 'Extra inputs are not permitted' }] });
    const message = await client.post('/sip', { init_agent: { agent_id: FRONT_DESK, session_continuation: { messages: [{ role: 'user', content: 'Hi', name: 'caller' }] } }, region: 'us-west' });
    expect(message.status).toBe(422);
    expect(message.body).toEqual({ detail: [{ type: 'extra_forbidden', loc: ['body', 'init_agent', 'session_continuation', 'messages', 0, 'name'], msg: 'Extra inputs are not permitted' }] });
    expect(await logged()).toBe(before);
  });

  it('applies agent_config by top-level key for the session only', async () => {
    const res = await client.post('/register_call', { agent_id: FRONT_DESK, agent_config: { prompt: 'Session prompt', voice: { provider: 'openai', voice_id: 'alloy' } } });
    const record = await logOf(res.body.call_id);
    expect(record.agent_config.prompt).toBe('Session prompt');
    expect(record.agent_config.voice).toEqual({ provider: 'openai', voice_id: 'alloy' });
    expect((await client.get(`/agents/${FRONT_DESK}`)).body.config.prompt).not.toBe('Session prompt');
  });
});

describe('SIP', () => {
  it('POST /register_sip_call answers {call_id, sip_uri}', async () => {
    const res = await client.post('/register_sip_call', { agent_id: BOOKING });
    expect(res.status).toBe(200);
    expectSchema('RegisterSipCallResponse', res.body);
    expect(res.body.sip_uri).toBe(`sip:${res.body.call_id}@127.0.0.1`);
    expect((await logOf(res.body.call_id)).voip.provider).toBe('sip');
  });

  it('POST /register_sip_call refuses read-only fields (update shape) and needs the header', async () => {
    const res = await client.post('/register_sip_call', { agent_id: BOOKING, agent_config: { llm: { model: 'x' } } }, { auth: null });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { type: 'missing', loc: ['header', 'authorization'], msg: 'Field required' },
      { type: 'extra_forbidden', loc: ['body', 'agent_config', 'llm', 'model'], msg: 'Extra inputs are not permitted' },
    ]);
  });

  it('POST /sip answers {sip: "sip:<call_id>@<host>"}', async () => {
    const res = await client.post('/sip', { init_agent: { agent_id: FRONT_DESK, metadata: { x: 'y' } }, region: 'us-west' });
    expect(res.status).toBe(200);
    expectSchema('CreateSipResponse', res.body);
    const callId = /^sip:(call_[0-9a-f]+)@127\.0\.0\.1$/.exec(res.body.sip)?.[1];
    expect(callId).toBeTruthy();
    expect((await logOf(callId as string)).metadata).toEqual({ x: 'y' });
    const bad = await client.post('/sip', { region: 'us-west' });
    expect(bad.body.detail).toEqual([{ type: 'missing', loc: ['body', 'init_agent'], msg: 'Field required' }]);
    const unknown = await client.post('/sip', { init_agent: { agent_id: '-OKnope' } });
    expect(unknown.body.detail[0].loc).toEqual(['body', 'init_agent', 'agent_id']);
  });
});

describe('POST /chat/completions', () => {
  const ask = (messages: Array<{ role: string; content: string }>, extra: Record<string, unknown> = {}) =>
    client.post('/chat/completions', { agent: { agent_id: FRONT_DESK }, messages, ...extra });

  it('streams the documented reply as OpenAI chunks, then [DONE]', async () => {
    const res = await ask([{ role: 'user', content: 'What time do you open?' }]);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/event-stream/);
    const events = sseEvents(res.text);
    expect(events[events.length - 1]).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((e) => JSON.parse(e));
    for (const chunk of chunks) expectSchema('ChatCompletionChunk', chunk);
    expect(chunks.length).toBeGreaterThan(3);
    expect(chunks[0].choices[0].delta.role).toBe('assistant');
    expect(chunks.slice(0, -1).every((c) => c.choices[0].finish_reason === null)).toBe(true);
    expect(chunks[chunks.length - 1].choices[0].finish_reason).toBe('stop');
    expect(new Set(chunks.map((c) => c.session_id)).size).toBe(1);
    expect(streamedText(res.text)).toBe('[Front desk] You said: What time do you open?');
  });

  it('greets with the first message when there is no user message yet', async () => {
    expect(streamedText((await ask([])).text)).toBe('Hello, Acme Dental. How can I help you?');
  });

  it('continues the conversation whose transcript the messages extend; end_of_session ends it', async () => {
    const first = await ask([{ role: 'user', content: 'Hi' }]);
    const sessionId = JSON.parse(sseEvents(first.text)[0] as string).session_id;
    const history = [
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: streamedText(first.text) },
      { role: 'user', content: 'Bye' },
    ];
    const second = await ask(history, { end_of_session: true });
    expect(JSON.parse(sseEvents(second.text)[0] as string).session_id).toBe(sessionId);
    expect(streamedText(second.text)).toBe('[Front desk] You said: Bye');
    const logs = (await client.get('/call-logs?limit=100')).body.histories.filter((r: { session_id: string }) => r.session_id === sessionId);
    expect(logs).toHaveLength(1);
    expect(logs[0].call_status).toBe('chat_completion');
    expect(JSON.parse(logs[0].chat)).toEqual([...history, { role: 'assistant', content: '[Front desk] You said: Bye' }]);
    expect(logs[0].voip.provider).toBe('web');
    // The ended session is not continued: the same history starts a new one.
    const third = await ask([...history, { role: 'assistant', content: '[Front desk] You said: Bye' }, { role: 'user', content: 'Hello?' }]);
    expect(JSON.parse(sseEvents(third.text)[0] as string).session_id).not.toBe(sessionId);
  });

  it('refuses an unknown agent, a missing agent and read-only fields', async () => {
    const unknown = await client.post('/chat/completions', { agent: { agent_id: '-OKnope' }, messages: [] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['body', 'agent', 'agent_id']);
    const missing = await client.post('/chat/completions', { messages: [{ role: 'user' }] });
    expect(missing.body.detail).toEqual([
      { type: 'missing', loc: ['body', 'agent'], msg: 'Field required' },
      { type: 'missing', loc: ['body', 'messages', 0, 'content'], msg: 'Field required' },
    ]);
    const readOnly = await client.post('/chat/completions', { agent: { agent_id: FRONT_DESK, agent_config: { voice: { provider: 'x' } } }, messages: [] });
    expect(readOnly.body.detail[0].loc).toEqual(['body', 'agent', 'agent_config', 'voice', 'provider']);
  });
});
