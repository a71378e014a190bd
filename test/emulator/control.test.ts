import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { clientFor, FRONT_DESK, startTestEmulator, type Client } from './helpers.js';

let emulator: RunningEmulator;
let client: Client;
beforeAll(async () => ({ emulator, client } = await startTestEmulator()));
afterAll(() => emulator.close());
beforeEach(() => emulator.control.reset());

describe('the control surface', () => {
  it('GET /_emulator describes the running emulator', async () => {
    const res = await client.get('/_emulator', { auth: null });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ emulator: 'voxform', put_mode: 'merge', data_file: null, counts: { agents: 9, call_logs: 40 } });
  });

  it('the request log has method, path, status, duration and headers with the key redacted; control requests are not in it', async () => {
    await client.get('/phones');
    await client.get('/agents/-OKnope');
    await client.get('/_emulator/faults');
    const res = await client.get('/_emulator/requests');
    expect(res.body.requests).toEqual([
      expect.objectContaining({ method: 'GET', path: '/phones', status: 200, duration_ms: expect.any(Number), faults: [], webhooks: [] }),
      expect.objectContaining({ method: 'GET', path: '/agents/-OKnope', status: 404 }),
    ]);
    expect(res.body.requests[0].headers.authorization).toBe('(redacted)');
    expect(res.text).not.toContain(emulator.apiKey);
    const since = res.body.requests[0].seq;
    expect((await client.get(`/_emulator/requests?since=${since}`)).body.requests).toHaveLength(1);
    await client.del('/_emulator/requests');
    expect((await client.get('/_emulator/requests')).body.requests).toEqual([]);
  });

  it('POST /_emulator/seed replaces the account (JSON or YAML); invalid seeds are a 400', async () => {
    const seed = { keys: [{ type: 'private', key: 'k'.repeat(32) }], agents: [{ id: 'ag_x', name: 'X', config: {} }] };
    expect((await client.post('/_emulator/seed', seed)).status).toBe(200);
    const other = clientFor({ ...emulator, apiKey: 'k'.repeat(32) });
    expect((await other.get('/agents/ag_x')).status).toBe(200);
    expect((await other.get(`/agents/${FRONT_DESK}`)).status).toBe(404);
    expect((await client.get('/phones')).status).toBe(401); // the old key is gone with the old account

    const yaml = await client.call('POST', '/_emulator/seed', { rawBody: 'agents:\n  - { id: ag_y, name: Y, config: {} }\n', headers: { 'content-type': 'application/yaml' } });
    expect(yaml.status).toBe(200);
    expect(emulator.control.state().agents.map((a) => a.id)).toEqual(['ag_y']);

    const bad = await client.post('/_emulator/seed', { agents: [{ id: 'z' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.detail).toContain('agents[0].name');
    expect((await client.call('POST', '/_emulator/seed', { rawBody: '{', headers: { 'content-type': 'application/json' } })).status).toBe(400);

    await client.post('/_emulator/reset', {});
    expect((await client.get(`/agents/${FRONT_DESK}`)).status).toBe(200);
  });

  it('control.seed refuses an invalid seed in-process too', async () => {
    await expect(emulator.control.seed({ agents: [{ id: 'a' } as never] })).rejects.toThrow(/agents\[0\]\.name/);
  });

  it('put-mode is readable and refuses unknown modes', async () => {
    expect((await client.get('/_emulator/put-mode')).body).toEqual({ mode: 'merge' });
    expect((await client.put('/_emulator/put-mode', { mode: 'patch' })).status).toBe(400);
  });

  it('serves a recording for ended calls of agents that record', async () => {
    await client.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config: { call_settings: { enable_recording: true } } });
    const call = (await client.post('/register_call', { agent_id: FRONT_DESK })).body;
    const ended = await emulator.control.endCall(call.call_id, 'user-ended');
    const url = (ended.record.recording as { recording_url: string }).recording_url;
    expect(url).toBe(`${emulator.url}/_emulator/recordings/${call.call_id}.wav`);
    const res = await client.get(url.slice(emulator.url.length), { auth: null });
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('audio/wav');
    expect((await client.get('/_emulator/recordings/call_nope.wav')).status).toBe(404);
  });

  it('unknown paths are 404 "Not Found" and wrong methods 405 with Allow', async () => {
    const unknown = await client.get('/agents');
    expect(unknown.status).toBe(404);
    expect(unknown.body).toEqual({ detail: 'Not Found' });
    const method = await client.call('DELETE', `/agents/${FRONT_DESK}`);
    expect(method.status).toBe(405);
    expect(method.body).toEqual({ detail: 'Method Not Allowed' });
    expect(method.headers.allow).toBe('GET, PUT');
    expect((await client.get('/_emulator/nothing')).status).toBe(404);
  });

  it('refuses bodies over the limit with 413', async () => {
    const res = await client.post('/api_keys', { type: 'private', name: 'x'.repeat(2 * 1024 * 1024) });
    expect(res.status).toBe(413);
  });
});

describe('response styles seen in the wild', () => {
  it('answers "ok" from action endpoints and {id} from create_file when told to', async () => {
    const style = await client.put('/_emulator/response-style', { actions: 'ok', createFile: 'object' });
    expect(style.body).toEqual({ actions: 'ok', createFile: 'object' });
    const put = await client.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config: {} });
    expect(put.status).toBe(200);
    expect(put.body).toBe('ok');
    expect((await client.post('/phones/%2B15551230001/set_agent', { agent_id: FRONT_DESK })).body).toBe('ok');
    const presigned = (await client.post('/knowledge/generate_presigned_url', { filename: 'a.txt' })).body;
    const form = new FormData();
    for (const [name, value] of Object.entries(presigned.fields as Record<string, string>)) form.append(name, value);
    form.append('file', new Blob(['hello']), 'a.txt');
    expect((await fetch(presigned.url, { method: 'POST', body: form })).status).toBe(204);
    const created = await client.post('/knowledge/create_file', { object_key: presigned.fields.key, name: 'a' });
    expect(created.body).toEqual({ id: expect.stringMatching(/^kf_/) });
    expect((await client.put('/_emulator/response-style', { actions: 'maybe' })).status).toBe(400);
    emulator.control.setResponseStyle({});
    expect(emulator.control.getResponseStyle()).toEqual({ actions: 'success', createFile: 'string' });
  });
});
