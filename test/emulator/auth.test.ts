import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_PRIVATE_KEY, DEFAULT_PUBLIC_KEY, type RunningEmulator } from '../../src/emulator/index.js';
import { sha256Hex } from '../../src/util/hash.js';
import { clientFor, expectSchema, FRONT_DESK, startTestEmulator, type Client } from './helpers.js';

let emulator: RunningEmulator;
let client: Client;
beforeAll(async () => ({ emulator, client } = await startTestEmulator()));
afterAll(() => emulator.close());

describe('the seeded keys', () => {
  it('are documented 32-character alphanumeric local keys', () => {
    expect(emulator.apiKey).toBe(DEFAULT_PRIVATE_KEY);
    for (const key of [DEFAULT_PRIVATE_KEY, DEFAULT_PUBLIC_KEY]) expect(key).toMatch(/^vxlocal[A-Za-z0-9]{25}$/);
  });
});

describe('authorization', () => {
  it('answers a missing required header with the FastAPI 422', async () => {
    const res = await client.get('/phones', { auth: null });
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: [{ type: 'missing', loc: ['header', 'authorization'], msg: 'Field required' }] });
  });

  it('lists a missing header beside the body problems, in one 422', async () => {
    const res = await client.post('/phones/import', { phone: '+15550000000' }, { auth: null });
    expect(res.status).toBe(422);
    const locs = res.body.detail.map((d: { loc: unknown[] }) => d.loc.join('.'));
    expect(locs).toContain('header.authorization');
    expect(locs).toEqual(expect.arrayContaining(['body.country', 'body.region', 'body.api_key', 'body.api_secret']));
  });

  it('answers 401 where the header is optional or not shown', async () => {
    for (const res of [
      await client.put(`/agents/${FRONT_DESK}`, { name: 'x', config: {} }, { auth: null }),
      await client.get(`/agents/${FRONT_DESK}`, { auth: null }),
      await client.post('/api_keys', { type: 'private' }, { auth: null }),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'Not authenticated' });
    }
  });

  it('answers a wrong key with 401 {detail}', async () => {
    const res = await client.get('/phones', { auth: 'x'.repeat(32) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: 'Invalid API key' });
    expectSchema('ErrorMessageBody', res.body);
  });

  it('refuses the Bearer form and says why', async () => {
    const res = await client.get('/phones', { auth: `Bearer ${emulator.apiKey}` });
    expect(res.status).toBe(401);
    expect(res.body.detail).toMatch(/^Invalid API key .*without "Bearer "/);
  });

  it('does not let a public key authorize private operations', async () => {
    const res = await client.get(`/agents/${FRONT_DESK}`, { auth: DEFAULT_PUBLIC_KEY });
    expect(res.status).toBe(403);
    expect(typeof res.body.detail).toBe('string');
    const put = await client.put(`/agents/${FRONT_DESK}`, { name: 'x', config: {} }, { auth: DEFAULT_PUBLIC_KEY });
    expect(put.status).toBe(403);
  });

  it('lets a public key start a chat', async () => {
    const res = await client.post('/chat/completions', { agent: { agent_id: FRONT_DESK }, messages: [{ role: 'user', content: 'hello' }] }, { auth: DEFAULT_PUBLIC_KEY });
    expect(res.status).toBe(200);
  });
});

describe('POST /api_keys', () => {
  it('creates a key shown once (201) that works afterwards, storing only its hash', async () => {
    const res = await client.post('/api_keys', { type: 'private', name: 'ci' });
    expect(res.status).toBe(201);
    expectSchema('CreatedApiKey', res.body);
    expect(res.body).toMatchObject({ type: 'private', name: 'ci', legacy: false, is_default: false, revoked_at: null });
    expect(res.body.key).toMatch(/^[A-Za-z0-9]{32}$/);
    expect(res.body.key.startsWith(res.body.prefix)).toBe(true);

    const withNewKey = clientFor({ ...emulator, apiKey: res.body.key });
    expect((await withNewKey.get('/phones')).status).toBe(200);

    const state = JSON.stringify(emulator.control.state());
    expect(state).not.toContain(res.body.key);
    expect(state).toContain(sha256Hex(res.body.key));
  });

  it('creates public keys that only authorize public operations', async () => {
    const res = await client.post('/api_keys', { type: 'public' });
    expect(res.status).toBe(201);
    expect(res.body.name).toBeNull();
    const pub = clientFor({ ...emulator, apiKey: res.body.key });
    expect((await pub.get('/phones')).status).toBe(403);
  });

  it('refuses unknown fields, a name over 100 characters and a bad type', async () => {
    const res = await client.post('/api_keys', { type: 'secret', name: 'n'.repeat(101), scope: 'all' });
    expect(res.status).toBe(422);
    expectSchema('ValidationErrorBody', res.body);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        { type: 'extra_forbidden', loc: ['body', 'scope'], msg: 'Extra inputs are not permitted' },
        { type: 'enum', loc: ['body', 'type'], msg: "Input should be 'public' or 'private'" },
        { type: 'string_too_long', loc: ['body', 'name'], msg: 'String should have at most 100 characters' },
      ]),
    );
    expect(res.body.detail).toHaveLength(3);
  });

  it('accepts a name of exactly 100 characters', async () => {
    expect((await client.post('/api_keys', { type: 'private', name: 'n'.repeat(100) })).status).toBe(201);
  });

  it('refuses a missing body and a body that is not JSON', async () => {
    const empty = await client.call('POST', '/api_keys');
    expect(empty.status).toBe(422);
    expect(empty.body).toEqual({ detail: [{ type: 'missing', loc: ['body'], msg: 'Field required' }] });
    const broken = await client.call('POST', '/api_keys', { rawBody: '{"type": ', headers: { 'content-type': 'application/json' } });
    expect(broken.status).toBe(422);
    expect(broken.body.detail).toEqual([{ type: 'json_invalid', loc: ['body', 9], msg: 'JSON decode error' }]);
    // A mistake whose JSON.parse message names no position: still where it is.
    const token = await client.call('PUT', `/agents/${FRONT_DESK}`, { rawBody: '{"name": x}', headers: { 'content-type': 'application/json' } });
    expect(token.status).toBe(422);
    expect(token.body.detail).toEqual([{ type: 'json_invalid', loc: ['body', 9], msg: 'JSON decode error' }]);
  });
});
