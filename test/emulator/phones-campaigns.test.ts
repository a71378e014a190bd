import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { BOOKING, expectSchema, FRONT_DESK, startTestEmulator, type Client } from './helpers.js';

let emulator: RunningEmulator;
let client: Client;
beforeAll(async () => ({ emulator, client } = await startTestEmulator()));
afterAll(() => emulator.close());
beforeEach(() => emulator.control.reset());

const importBody = { country: 'US', phone: '+15551230002', region: 'us-west', api_key: 'AC123', api_secret: 'shh' };

describe('GET /phones', () => {
  it('lists the account phones; +15551230002 is not one of them', async () => {
    const res = await client.get('/phones');
    expect(res.status).toBe(200);
    expectSchema('PhoneList', res.body);
    const ids = res.body.map((p: { id: string }) => p.id);
    expect(ids).toContain('+15551230001');
    expect(ids).not.toContain('+15551230002');
  });
});

describe('POST /phones/import', () => {
  it('imports a number, twilio by default, and never serves the provider secrets', async () => {
    const res = await client.post('/phones/import', importBody);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    const phones = (await client.get('/phones')).body;
    expect(phones.find((p: { id: string }) => p.id === '+15551230002')).toMatchObject({ id: '+15551230002', status: 'active' });
    expect(JSON.stringify(phones)).not.toContain('shh');
    const stored = emulator.control.state().phones.find((p) => p.id === '+15551230002');
    expect(stored).toMatchObject({ provider: 'twilio', country: 'US', region: 'us-west' });
    expect(JSON.stringify(emulator.control.state())).not.toContain('shh');
  });

  it('keeps another provider when given', async () => {
    await client.post('/phones/import', { ...importBody, provider: 'plivo' });
    expect(emulator.control.state().phones.find((p) => p.id === '+15551230002')?.provider).toBe('plivo');
  });

  it('answers 409 when the number already exists', async () => {
    expect((await client.post('/phones/import', importBody)).status).toBe(200);
    const again = await client.post('/phones/import', importBody);
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/already exists/);
  });

  it('refuses a number that is not E.164 and missing fields', async () => {
    const bad = await client.post('/phones/import', { ...importBody, phone: '555-0100' });
    expect(bad.status).toBe(422);
    // The schema states E.164 (docs/service-api.md, Transport): pydantic's answer to a pattern.
    expect(bad.body.detail).toEqual([{ type: 'string_pattern_mismatch', loc: ['body', 'phone'], msg: "String should match pattern '^\\+[1-9][0-9]{6,14}$'" }]);
    const missing = await client.post('/phones/import', { phone: '+15551230009', extra: true });
    expect(missing.status).toBe(422);
    expect(missing.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual(
      expect.arrayContaining([['body', 'country'], ['body', 'region'], ['body', 'api_key'], ['body', 'api_secret'], ['body', 'extra']]),
    );
  });
});

describe('POST /phones/{phone}/set_agent', () => {
  it('binds an agent; the + arrives encoded as %2B', async () => {
    const res = await client.post('/phones/%2B15551230001/set_agent', { agent_id: FRONT_DESK });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    const phone = (await client.get('/phones')).body.find((p: { id: string }) => p.id === '+15551230001');
    expect(phone.agent_id).toBe(FRONT_DESK);
  });

  it('accepts a raw + too', async () => {
    expect((await client.post('/phones/+15551230001/set_agent', { agent_id: BOOKING })).status).toBe(200);
  });

  it('answers 404 for an unknown phone and 422 for an unknown agent', async () => {
    const phone = await client.post('/phones/%2B15559999999/set_agent', { agent_id: FRONT_DESK });
    expect(phone.status).toBe(404);
    expect(phone.body).toEqual({ detail: 'Not found' });
    const agent = await client.post('/phones/%2B15551230001/set_agent', { agent_id: '-OKnope' });
    expect(agent.status).toBe(422);
    expect(agent.body.detail).toEqual([{ type: 'value_error', loc: ['body', 'agent_id'], msg: 'Value error, no agent with this id' }]);
  });

  it('refuses a body without agent_id', async () => {
    const res = await client.post('/phones/%2B15551230001/set_agent', {});
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual([{ type: 'missing', loc: ['body', 'agent_id'], msg: 'Field required' }]);
  });
});

describe('campaigns', () => {
  it('PUT /campaigns/{id}/info answers the Campaign', async () => {
    const res = await client.put('/campaigns/cmp_recall_2026/info', { name: 'Six-month check-up reminders', include_metadata_in_prompt: true });
    expect(res.status).toBe(200);
    expectSchema('Campaign', res.body);
    expect(res.body).toMatchObject({ id: 'cmp_recall_2026', name: 'Six-month check-up reminders', include_metadata_in_prompt: true, status: 'idle' });
  });

  it('PUT info: partial bodies change only what they name; bad types are 422', async () => {
    const res = await client.put('/campaigns/cmp_recall_2026/info', { include_metadata_in_prompt: true });
    expect(res.body.name).toBe('Recall reminders');
    const bad = await client.put('/campaigns/cmp_recall_2026/info', { include_metadata_in_prompt: 'yes' });
    expect(bad.status).toBe(422);
    expect(bad.body.detail).toEqual([{ type: 'bool_type', loc: ['body', 'include_metadata_in_prompt'], msg: 'Input should be a valid boolean' }]);
  });

  it('answers 404 for an unknown campaign', async () => {
    expect((await client.put('/campaigns/cmp_nope/info', { name: 'x' })).body).toEqual({ detail: 'Not found' });
    expect((await client.post('/campaigns/cmp_nope/set_caller', { caller: '+15551230001' })).status).toBe(404);
  });

  it('set_caller takes a number of the account', async () => {
    await client.post('/phones/import', importBody);
    const res = await client.post('/campaigns/cmp_recall_2026/set_caller', { caller: '+15551230002' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(emulator.control.state().campaigns.find((c) => c.id === 'cmp_recall_2026')?.caller).toBe('+15551230002');
    const unknown = await client.post('/campaigns/cmp_recall_2026/set_caller', { caller: '+15557777777' });
    expect(unknown.status).toBe(422);
    expect(unknown.body.detail[0].loc).toEqual(['body', 'caller']);
    const missing = await client.post('/campaigns/cmp_recall_2026/set_caller', {});
    expect(missing.body.detail).toEqual([{ type: 'missing', loc: ['body', 'caller'], msg: 'Field required' }]);
  });
});
