import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { BOOKING, expectSchema, FRONT_DESK, startTestEmulator, type Client } from './helpers.js';

let emulator: RunningEmulator;
let client: Client;
beforeAll(async () => ({ emulator, client } = await startTestEmulator()));
afterAll(() => emulator.close());
beforeEach(() => emulator.control.reset());

const getAgent = async (id = FRONT_DESK) => (await client.get(`/agents/${id}`)).body;

describe('GET /agents/{agent_id}', () => {
  it('answers the agent in the read shape, provider extras included', async () => {
    const res = await client.get(`/agents/${FRONT_DESK}`);
    expect(res.status).toBe(200);
    expectSchema('Agent', res.body);
    expect(res.body).toMatchObject({ id: FRONT_DESK, name: 'Front desk' });
    expect(res.body.config.voice.provider).toBe('elevenlabs');
    expect(res.body.config.flow.voicemail.action).toBe('hangup');
    expect(res.body.config.llm.model).toBeTruthy();
    expect(res.body.config.speech_to_text.provider).toBe('deepgram');
    const booking = await getAgent(BOOKING);
    expect(booking.config.tools[0].response_mode).toBe('strict');
  });

  it('answers 404 {"detail":"Not found"} for an unknown agent', async () => {
    const res = await client.get('/agents/-OKnope');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found' });
  });

  it('reads ids that start with - and need encoding', async () => {
    expect((await client.get(`/agents/${encodeURIComponent(FRONT_DESK)}`)).status).toBe(200);
  });
});

describe('PUT /agents/{agent_id}', () => {
  it('refuses an invalid body with FastAPI locs', async () => {
    const res = await client.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config: { flow: { response_delay: 'soon' } } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ type: 'float_type', loc: ['body', 'config', 'flow', 'response_delay'], msg: 'Input should be a valid number' }] });
  });

  it('refuses read-only fields, which the update shape lacks', async () => {
    const res = await client.put(`/agents/${FRONT_DESK}`, { name: 'x', config: { voice: { provider: 'openai' }, tools: [{ name: 't', response_mode: 'strict' }] } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { type: 'extra_forbidden', loc: ['body', 'config', 'voice', 'provider'], msg: 'Extra inputs are not permitted' },
      { type: 'extra_forbidden', loc: ['body', 'config', 'tools', 0, 'response_mode'], msg: 'Extra inputs are not permitted' },
    ]);
  });

  it('requires name and config', async () => {
    const res = await client.put(`/agents/${FRONT_DESK}`, {});
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([
      { type: 'missing', loc: ['body', 'name'], msg: 'Field required' },
      { type: 'missing', loc: ['body', 'config'], msg: 'Field required' },
    ]);
  });

  it('points a webhook object without url at the missing url', async () => {
    const res = await client.put(`/agents/${FRONT_DESK}`, { name: 'x', config: { session_data_webhook: { headers: { a: 'b' } } } });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ type: 'missing', loc: ['body', 'config', 'session_data_webhook', 'url'], msg: 'Field required' }]);
  });

  it('refuses a knowledge file id the account does not hold (422 at its place), storing nothing', async () => {
    const before = await getAgent();
    const res = await client.put(`/agents/${FRONT_DESK}`, { name: 'S', config: { knowledge_base: { files: ['kf_nope'] } } });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ type: 'value_error', loc: ['body', 'config', 'knowledge_base', 'files', 0], msg: 'Value error, no knowledge file with this id' }] });
    expect(await getAgent()).toEqual(before);
  });

  it('answers 404 for an unknown agent (after validation)', async () => {
    const res = await client.put('/agents/-OKnope', { name: 'x', config: {} });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ detail: 'Not found' });
  });

  it('merge mode: replaces the body top-level keys, keeps the others and the read-only extras', async () => {
    const before = await getAgent();
    const res = await client.put(`/agents/${FRONT_DESK}`, { name: 'Reception', config: { voice: { voice_id: 'ava-warm' }, flow: { response_delay: 300 } } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    const after = await getAgent();
    expectSchema('Agent', after);
    expect(after.name).toBe('Reception');
    expect(after.config.voice).toEqual({ voice_id: 'ava-warm', provider: 'elevenlabs' });
    // flow is replaced as a whole (interruption is gone) but the service-owned voicemail.action stays.
    expect(after.config.flow).toEqual({ response_delay: 300, voicemail: { action: 'hangup' } });
    expect(after.config.prompt).toBe(before.config.prompt);
    expect(after.config.llm).toEqual(before.config.llm);
  });

  it('merge mode keeps tool response_mode, pairing tools by name', async () => {
    const booking = await getAgent(BOOKING);
    const tool = { ...booking.config.tools[0] };
    delete tool.response_mode;
    tool.description = 'Changed';
    await client.put(`/agents/${BOOKING}`, { name: booking.name, config: { tools: [{ name: 'new_tool' }, tool] } });
    const after = await getAgent(BOOKING);
    expect(after.config.tools).toEqual([{ name: 'new_tool' }, { ...tool, response_mode: 'strict' }]);
  });

  it('replace mode (switched at run time over HTTP): the body subtree replaces the stored one wholesale', async () => {
    const mode = await client.put('/_emulator/put-mode', { mode: 'replace' });
    expect(mode.body).toEqual({ mode: 'replace' });
    await client.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config: { voice: { voice_id: 'ava-warm' } } });
    const after = await getAgent();
    expect(after.config.voice).toEqual({ voice_id: 'ava-warm' });
    expect(after.config.llm.model).toBe('gpt-4o-mini'); // keys absent from the body are kept in both modes
  });

  it('replace mode set in-process', async () => {
    emulator.control.setPutMode('replace');
    expect(emulator.control.getPutMode()).toBe('replace');
    await client.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config: { flow: { response_delay: 1 } } });
    expect((await getAgent()).config.flow).toEqual({ response_delay: 1 });
    emulator.control.setPutMode('merge');
  });

  it('a top-level null removes the key, in both modes', async () => {
    const res = await client.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config: { custom_vocabulary: null, first_message: 'Hi' } });
    expect(res.status).toBe(200);
    const after = await getAgent();
    expect(after.config).not.toHaveProperty('custom_vocabulary');
    expect(after.config.first_message).toBe('Hi');
  });

  it('a nested null is a type error', async () => {
    const res = await client.put(`/agents/${FRONT_DESK}`, { name: 'x', config: { flow: { response_delay: null } } });
    expect(res.status).toBe(422);
    expect(res.body.detail[0].loc).toEqual(['body', 'config', 'flow', 'response_delay']);
  });

  it('an empty config changes only the name', async () => {
    const before = await getAgent();
    await client.put(`/agents/${FRONT_DESK}`, { name: 'Renamed', config: {} });
    expect(await getAgent()).toEqual({ ...before, name: 'Renamed' });
  });
});
