import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/index.js';
import { fakeServer, testClient } from './helpers.js';

/** Answers as the service is seen to answer in the wild: each path has its own canned reply. */
const replies: Record<string, { status?: number; type?: string; body: string }> = {
  'POST /phones/%2B15551230001/set_agent': { type: 'text/plain', body: 'ok' },
  'POST /campaigns/c1/set_caller': { body: '"ok"' },
  'POST /knowledge/set_agent_files': { status: 204, body: '' },
  'POST /user/credentials': { body: '{"success":false,"detail":"unknown provider"}' },
  'PUT /agents/a1': { body: '{"success":true}' },
  'PUT /agents/a2': { body: '{"updated":1}' },
  'PUT /campaigns/c1/info': { body: '{"success":true}' },
  'GET /phones': { body: '{"phones":[{"id":"+15551230001"}]}' },
  'GET /agents/odd': { body: '"not an agent"' },
  'GET /agents/a1/call-histories?limit=2': { body: '[{"call_id":"x"}]' },
  'POST /phones/import': { type: 'text/plain', body: 'ok' },
};

let fake: Awaited<ReturnType<typeof fakeServer>>;
let createFileAnswers: string[] = [];
let chatAnswer: { type: string; body: string } = { type: 'text/event-stream', body: '' };

beforeAll(async () => {
  fake = await fakeServer((req, res) => {
    const key = `${req.method} ${req.url}`;
    if (key === 'POST /knowledge/create_file') {
      res.writeHead(200, { 'content-type': 'application/json' }).end(createFileAnswers.shift());
      return;
    }
    if (key === 'POST /chat/completions') {
      res.writeHead(200, { 'content-type': chatAnswer.type }).end(chatAnswer.body);
      return;
    }
    const reply = replies[key];
    if (!reply) {
      res.writeHead(404, { 'content-type': 'application/json' }).end('{"detail":"Not found"}');
      return;
    }
    res.writeHead(reply.status ?? 200, { 'content-type': reply.type ?? 'application/json' }).end(reply.body);
  });
});
afterAll(async () => {
  await fake.close();
});

const client = () => testClient({ baseUrl: fake.url, apiKey: 'k'.repeat(32) }).client;

describe('tolerant parsing of the answers seen in the wild', () => {
  it('action endpoints: bare ok, JSON "ok", an empty 204, {success: true} and any other 2xx body all succeed', async () => {
    const c = client();
    await expect(c.setPhoneAgent('+15551230001', 'a1')).resolves.toBeUndefined();
    await expect(c.setCampaignCaller('c1', '+15551230001')).resolves.toBeUndefined();
    await expect(c.setAgentFiles({ agent_id: 'a1', files: [] })).resolves.toBeUndefined();
    await expect(c.updateAgent('a1', { name: 'A', config: {} })).resolves.toBeUndefined();
    await expect(c.updateAgent('a2', { name: 'A', config: {} })).resolves.toBeUndefined();
    await expect(c.importPhone({ phone: '+15551230002', country: 'US', region: 'us-west', api_key: 'k', api_secret: 's' })).resolves.toMatchObject({ confirmedBy: 'response', response: 'ok' });
    await c.close();
  });

  it('success: false is an api_error carrying the service’s detail', async () => {
    const c = client();
    const error = (await c.setCredential({ provider: 'openai', api_key: 'sk-x' }).catch((e: unknown) => e)) as ApiError;
    expect(error).toBeInstanceOf(ApiError);
    expect(error.code).toBe('api_error');
    expect(error.message).toBe('POST /user/credentials failed: the service answered 200 with `success: false` (unknown provider).');
    await c.close();
  });

  it('create_file: a JSON string id, an object with id, or a bare text id', async () => {
    const c = client();
    createFileAnswers = ['"kf_1"', '{"id":"kf_2"}', 'kf_3', '{"nothing":true}'];
    const record = { object_key: 'k', name: 'n' };
    expect(await c.createKnowledgeFile(record)).toBe('kf_1');
    expect(await c.createKnowledgeFile(record)).toBe('kf_2');
    expect(await c.createKnowledgeFile(record)).toBe('kf_3');
    await expect(c.createKnowledgeFile(record)).rejects.toMatchObject({ code: 'api_error' });
    await c.close();
  });

  it('a wrapped phone list, an action-style campaign answer, a bare array of histories', async () => {
    const c = client();
    expect(await c.listPhones()).toEqual([{ id: '+15551230001' }]);
    expect(await c.editCampaignInfo('c1', { name: 'Spring' })).toEqual({ id: 'c1', name: 'Spring' });
    expect(await c.listAgentCallHistories('a1', { limit: 2 })).toEqual({ items: [{ call_id: 'x' }] });
    await c.close();
  });

  it('an answer that is not what the operation promises is an api_error, not a crash later', async () => {
    const c = client();
    await expect(c.getAgent('odd')).rejects.toMatchObject({
      code: 'api_error',
      message: 'GET /agents/odd failed: the service answered 200 with something other than the documented answer.',
      // A read: nothing to say about a change that was never asked for.
      hint: 'Run again, and report it if it persists: a read changes nothing.',
    });
    await c.close();
  });

  it('chat: an SSE stream that ends without [DONE] and without its last blank line', async () => {
    const c = client();
    chatAnswer = { type: 'text/event-stream; charset=utf-8', body: 'data: {"choices":[{"index":0,"delta":{"content":"Hi "}}]}\n\ndata: {"choices":[{"index":0,"delta":{"content":"there"},"finish_reason":"stop"}]}' };
    const stream = c.chatCompletions({ agent: { agent_id: 'a1' }, messages: [{ role: 'user', content: 'x' }] });
    expect(await stream.collect()).toBe('Hi there');
    expect(stream.finishReason).toBe('stop');
    await c.close();
  });

  it('chat: a plain JSON completion is one delta', async () => {
    const c = client();
    chatAnswer = { type: 'application/json', body: '{"session_id":"s1","choices":[{"message":{"role":"assistant","content":"Whole reply"},"finish_reason":"stop"}]}' };
    const stream = c.chatCompletions({ agent: { agent_id: 'a1' }, messages: [{ role: 'user', content: 'x' }] });
    const deltas: string[] = [];
    for await (const delta of stream) deltas.push(delta);
    expect(deltas).toEqual(['Whole reply']);
    expect(stream.sessionId).toBe('s1');
    await c.close();
  });

  it.each([
    ['text/event-stream', 'data: null\n\ndata: {"choices":[null,{"delta":null},{"delta":{"content":"Hi"}}]}\n\ndata: {"session_id":5,"choices":7}\n\ndata: 3\n\ndata: {"choices":[{"delta":{"content":" there"},"finish_reason":"stop"}]}\n\n'],
    ['application/json', '{"session_id":"s1","choices":[null,{"message":null,"delta":{"content":"Hi"}},{"message":{"content":" there"},"finish_reason":"stop"}]}'],
  ])('chat (%s): a chunk or choice of another shape carries nothing, the rest of the reply is read', async (type, body) => {
    const c = client();
    chatAnswer = { type, body };
    const stream = c.chatCompletions({ agent: { agent_id: 'a1' }, messages: [{ role: 'user', content: 'x' }] });
    expect(await stream.collect()).toBe('Hi there');
    expect(stream.finishReason).toBe('stop');
    await c.close();
  });

  it('chat: a plain JSON answer that is no object carries no reply', async () => {
    const c = client();
    chatAnswer = { type: 'application/json', body: '{"choices":5}' };
    expect(await c.chatCompletions({ agent: { agent_id: 'a1' }, messages: [{ role: 'user', content: 'x' }] }).collect()).toBe('');
    chatAnswer = { type: 'application/json', body: 'null' };
    expect(await c.chatCompletions({ agent: { agent_id: 'a1' }, messages: [{ role: 'user', content: 'x' }] }).collect()).toBe('');
    await c.close();
  });

  it('chat: an error event in the stream is an api_error', async () => {
    const c = client();
    chatAnswer = { type: 'text/event-stream', body: 'data: {"choices":[{"index":0,"delta":{"content":"Hi"}}]}\n\nevent: error\ndata: {"message":"model overloaded"}\n\n' };
    const deltas: string[] = [];
    const error = await (async () => {
      for await (const delta of c.chatCompletions({ agent: { agent_id: 'a1' }, messages: [{ role: 'user', content: 'x' }] })) deltas.push(delta);
    })().catch((e: unknown) => e);
    expect(deltas).toEqual(['Hi']);
    expect(error).toMatchObject({ code: 'api_error', message: expect.stringContaining('model overloaded') });
    await c.close();
  });
});
