import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/index.js';
import { emulatorWithClient, logged } from './helpers.js';

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const BOOKING = '-OKdqbqetEcM4ak369yn';

let env: Awaited<ReturnType<typeof emulatorWithClient>>;
let dir: string;

beforeAll(async () => {
  env = await emulatorWithClient();
  dir = await mkdtemp(path.join(tmpdir(), 'voxform-api-'));
});
afterAll(async () => {
  await env.close();
  await rm(dir, { recursive: true, force: true });
});
beforeEach(async () => {
  await env.emulator.control.reset();
});

describe('every operation against the emulator', () => {
  it('getAgent reads an agent whose id starts with "-"', async () => {
    const agent = await env.client.getAgent(FRONT_DESK);
    expect(agent.id).toBe(FRONT_DESK);
    expect(agent.config.voice?.provider).toBe('elevenlabs');
    expect(logged(env.emulator, `/agents/${FRONT_DESK}`, 'GET')).toHaveLength(1);
  });

  it('getAgent of an unknown id is api_not_found with one clear sentence', async () => {
    const error = (await env.client.getAgent('-OKunknownAgent00000').catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('api_not_found');
    expect(error.status).toBe(404);
    expect(error.message).toMatch(/^GET \/agents\/-OKunknownAgent00000 failed: the service answered 404 .+\.$/);
    expect(error.hint).toBe('Check the agent id in your manifest.');
    expect(error.attempts).toBe(1);
  });

  it('updateAgent sends the update, and a top-level null removes a key', async () => {
    await env.client.updateAgent(FRONT_DESK, { name: 'Front desk', config: { prompt: 'New prompt.', first_message: 'Hi!' } });
    let agent = await env.client.getAgent(FRONT_DESK);
    expect(agent.name).toBe('Front desk');
    expect(agent.config.prompt).toBe('New prompt.');
    await env.client.updateAgent(FRONT_DESK, { name: 'Front desk', config: { timezone: null } as never });
    agent = await env.client.getAgent(FRONT_DESK);
    expect(agent.config.timezone).toBeUndefined();
    const sent = logged(env.emulator, `/agents/${FRONT_DESK}`, 'PUT');
    expect(sent).toHaveLength(2);
  });

  it('updateAgent refuses a body that breaks the schema before sending it', async () => {
    const error = (await env.client
      .updateAgent(FRONT_DESK, { name: 'x', config: { voice: { provider: 'elevenlabs' } } as never })
      .catch((e: unknown) => e)) as { code: string; message: string };
    expect(error.code).toBe('api_request_invalid');
    expect(error.message).toContain('config.voice.provider');
    expect(logged(env.emulator, `/agents/${FRONT_DESK}`, 'PUT')).toHaveLength(0);
  });

  it('listPhones, setPhoneAgent (the + encoded), importPhone', async () => {
    const phones = await env.client.listPhones();
    expect(phones.map((p) => p.id)).toContain('+15551230001');
    await env.client.setPhoneAgent('+15551230001', FRONT_DESK);
    expect((await env.client.listPhones()).find((p) => p.id === '+15551230001')?.agent_id).toBe(FRONT_DESK);
    expect(env.emulator.control.requestLog().some((e) => e.path === '/phones/%2B15551230001/set_agent' || e.path === '/phones/+15551230001/set_agent')).toBe(true);

    const result = await env.client.importPhone({ phone: '+15551230002', country: 'US', region: 'us-west', api_key: 'AC123456', api_secret: 'secret-value', provider: 'twilio' });
    expect(result).toMatchObject({ phone: '+15551230002', confirmedBy: 'response' });
    expect((await env.client.listPhones()).map((p) => p.id)).toContain('+15551230002');
  });

  it('setPhoneAgent on an unknown number is api_not_found', async () => {
    await expect(env.client.setPhoneAgent('+15559999999', FRONT_DESK)).rejects.toMatchObject({ code: 'api_not_found', status: 404 });
  });

  it('editCampaignInfo answers the campaign; setCampaignCaller succeeds', async () => {
    const campaign = await env.client.editCampaignInfo('cmp_recall_2026', { name: 'Recall 2026', include_metadata_in_prompt: true });
    expect(campaign).toMatchObject({ id: 'cmp_recall_2026', name: 'Recall 2026', include_metadata_in_prompt: true });
    await env.client.setCampaignCaller('cmp_recall_2026', '+15551230003');
    expect(env.emulator.control.state().campaigns.find((c) => c.id === 'cmp_recall_2026')?.caller).toBe('+15551230003');
  });

  it('setCredential stores a provider credential', async () => {
    await env.client.setCredential({ provider: 'openai', api_key: 'sk-test-credential' });
    expect(env.emulator.control.state().credentials.map((c) => c.provider)).toContain('openai');
  });

  it('createApiKey returns the key once, and the new key works', async () => {
    const created = await env.client.createApiKey({ type: 'private', name: 'ci' });
    expect(created).toMatchObject({ type: 'private', name: 'ci' });
    expect(created.key).toMatch(/^[A-Za-z0-9]{32}$/);
    const { createClient } = await import('../../src/api/index.js');
    const other = createClient({ baseUrl: env.emulator.url, apiKey: created.key });
    try {
      expect((await other.listPhones()).length).toBeGreaterThan(0);
    } finally {
      await other.close();
    }
  });

  it('registerCall, registerSipCall and createSip start sessions that show in the call log', async () => {
    const call = await env.client.registerCall({ agent_id: FRONT_DESK, metadata: { customer: 'c1' } });
    expect(call.call_id).toBeTruthy();
    expect(call.session_id).toBeTruthy();
    const sip = await env.client.registerSipCall({ agent_id: BOOKING });
    expect(sip.call_id).toBeTruthy();
    expect(sip.sip_uri).toMatch(/^sip:/);
    const session = await env.client.createSip({ init_agent: { agent_id: FRONT_DESK }, region: 'us-west' });
    expect(session.sip).toMatch(/^sip:/);
    const page = await env.client.listCallLogs({ limit: 5 });
    expect(page.histories.map((r) => r.call_id)).toContain(call.call_id);
    expect(page.histories.find((r) => r.call_id === call.call_id)?.call_status).toBe('registered');
  });

  it('listCallLogs and listAgentCallHistories read pages', async () => {
    const page = await env.client.listCallLogs({ limit: 10, agent_id: FRONT_DESK });
    expect(page.histories.length).toBeGreaterThan(0);
    expect(page.histories.every((r) => r.agent_id === FRONT_DESK)).toBe(true);
    const histories = await env.client.listAgentCallHistories(FRONT_DESK, { limit: 3 });
    expect(histories.items.length).toBeLessThanOrEqual(3);
    expect(histories.items.every((r) => r.agent_id === FRONT_DESK)).toBe(true);
  });

  it('listCallLogs refuses a page size over 100 before sending', async () => {
    await expect(env.client.listCallLogs({ limit: 101 })).rejects.toMatchObject({ code: 'api_request_invalid' });
    expect(logged(env.emulator, '/call-logs')).toHaveLength(0);
  });

  it('chatCompletions streams the reply as deltas and carries the session id', async () => {
    const stream = env.client.chatCompletions({ agent: { agent_id: FRONT_DESK }, messages: [{ role: 'user', content: 'What time do you open?' }] });
    const deltas: string[] = [];
    for await (const delta of stream) deltas.push(delta);
    expect(deltas.length).toBeGreaterThan(1);
    expect(deltas.join('')).toContain('You said: What time do you open?');
    expect(stream.text).toBe(deltas.join(''));
    expect(stream.finishReason).toBe('stop');
    expect(stream.sessionId).toBeTruthy();
  });

  it('a chat session continues across messages and ends with end_of_session', async () => {
    const session = env.client.chatSession({ agentId: FRONT_DESK });
    let first = '';
    for await (const delta of session.send('Hello')) first += delta;
    let second = '';
    for await (const delta of session.send('Do you take insurance?')) second += delta;
    expect(first).toContain('You said: Hello');
    expect(second).toContain('You said: Do you take insurance?');
    expect(session.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
    const sessionId = session.sessionId;
    expect(sessionId).toBeTruthy();
    await session.end();
    const chats = env.emulator.control.state().sessions.filter((s) => s.kind === 'chat');
    expect(chats).toHaveLength(1); // both turns continued one session
    expect(chats[0]).toMatchObject({ session_id: sessionId, ended: true });
    const sent = logged(env.emulator, '/chat/completions', 'POST');
    expect(sent).toHaveLength(3);
  });

  it('uploadKnowledgeFile: presign, multipart upload, create_file; then setAgentFiles attaches it', async () => {
    const file = path.join(dir, 'faq.md');
    const content = '# FAQ\n\nWe open at 8 am. Café ☕ on the ground floor.\n'.repeat(200);
    await writeFile(file, content);
    const id = await env.client.uploadKnowledgeFile(file, { name: 'FAQ', description: 'Opening hours' });
    expect(typeof id).toBe('string');
    const state = env.emulator.control.state();
    const record = state.knowledge.files.find((f) => f.id === id);
    expect(record).toMatchObject({ name: 'FAQ', description: 'Opening hours', file_type: 'text/markdown', size: Buffer.byteLength(content) });
    const object = state.knowledge.objects.find((o) => o.key === record?.object_key);
    expect(object?.size).toBe(Buffer.byteLength(content));
    // The storage never sees the key.
    const upload = env.emulator.control.requestLog().find((e) => e.path.startsWith('/_emulator/uploads'));
    if (upload) expect(upload.headers.authorization).toBeUndefined();

    await env.client.setAgentFiles({ agent_id: FRONT_DESK, files: [id], messages: ['One moment, let me look that up.'] });
    expect((await env.client.getAgent(FRONT_DESK)).config.knowledge_base?.files).toEqual([id]);
  });

  it('generatePresignedUrl and createKnowledgeFile on their own', async () => {
    const target = await env.client.generatePresignedUrl({ filename: 'prices.csv' });
    expect(target.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\//);
    expect(target.fields.key).toBeTruthy();
    // Nothing was uploaded under the key: the service refuses the record with a 422.
    const error = (await env.client.createKnowledgeFile({ object_key: target.fields.key as string, name: 'prices' }).catch((e: unknown) => e)) as ApiError;
    expect(error.code).toBe('api_validation');
    expect(error.loc.some((loc) => loc.includes('object_key'))).toBe(true);
  });

  it('refuses a knowledge file over the size limit before contacting the service', async () => {
    const big = path.join(dir, 'big.pdf');
    await writeFile(big, Buffer.alloc(2048));
    const { createClient } = await import('../../src/api/index.js');
    const small = createClient({ baseUrl: env.emulator.url, apiKey: env.emulator.apiKey, maxUploadBytes: 1024 });
    try {
      await expect(small.uploadKnowledgeFile(big)).rejects.toMatchObject({ code: 'knowledge_file_too_large', message: expect.stringContaining("at most 1 KiB") });
    } finally {
      await small.close();
    }
    expect(logged(env.emulator, '/knowledge/generate_presigned_url')).toHaveLength(0);
    await expect(env.client.uploadKnowledgeFile(path.join(dir, 'missing.pdf'))).rejects.toMatchObject({ code: 'knowledge_file_unreadable' });
  });

  it('a wrong key is api_unauthorized', async () => {
    const { createClient } = await import('../../src/api/index.js');
    const wrong = createClient({ baseUrl: env.emulator.url, apiKey: 'wrongwrongwrongwrongwrongwrong12' });
    try {
      await expect(wrong.listPhones()).rejects.toMatchObject({ code: 'api_unauthorized', status: 401 });
    } finally {
      await wrong.close();
    }
  });
});
