import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { request } from 'undici';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { sha256Hex } from '../../src/util/hash.js';
import { BOOKING, expectSchema, FRONT_DESK, startTestEmulator, type Client } from './helpers.js';

let emulator: RunningEmulator;
let client: Client;
beforeAll(async () => ({ emulator, client } = await startTestEmulator()));
afterAll(() => emulator.close());
beforeEach(() => emulator.control.reset());

describe('POST /user/credentials', () => {
  it('stores a fingerprint of the key, never the key', async () => {
    const res = await client.post('/user/credentials', { provider: 'openai', api_key: 'sk-very-secret-value' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    const state = emulator.control.state();
    expect(state.credentials).toEqual([{ provider: 'openai', fingerprint: sha256Hex('sk-very-secret-value'), updated_at: expect.any(Number) }]);
    expect(JSON.stringify(state)).not.toContain('sk-very-secret-value');
    expect(JSON.stringify(emulator.control.requestLog())).not.toContain('sk-very-secret-value');
  });

  it('refuses a missing key and unknown fields', async () => {
    const res = await client.post('/user/credentials', { provider: 'openai', token: 'x' });
    expect(res.status).toBe(422);
    expect(res.body.detail).toEqual(
      expect.arrayContaining([
        { type: 'missing', loc: ['body', 'api_key'], msg: 'Field required' },
        { type: 'extra_forbidden', loc: ['body', 'token'], msg: 'Extra inputs are not permitted' },
      ]),
    );
  });
});

/** A multipart POST of the presigned fields, then the file (last unless told otherwise). */
async function upload(target: { url: string; fields: Record<string, string> }, content: string, options: { fileFirst?: boolean; override?: Record<string, string> } = {}) {
  const form = new FormData();
  const file = new Blob([content], { type: 'text/markdown' });
  if (options.fileFirst) form.append('file', file, 'faq.md');
  for (const [name, value] of Object.entries({ ...target.fields, ...options.override })) form.append(name, value);
  if (!options.fileFirst) form.append('file', file, 'faq.md');
  const res = await fetch(target.url, { method: 'POST', body: form });
  return { status: res.status, text: await res.text() };
}

describe('knowledge files', () => {
  it('presigned URL → upload (204) → create_file (a string id) → set_agent_files', async () => {
    const presigned = await client.post('/knowledge/generate_presigned_url', { filename: 'faq.md' });
    expect(presigned.status).toBe(200);
    expectSchema('PresignedUrlResponse', presigned.body);
    expect(presigned.body.url).toBe(`${emulator.url}/_emulator/uploads`);
    expect(Object.keys(presigned.body.fields)).toEqual(expect.arrayContaining(['key', 'policy', 'x-amz-signature', 'x-amz-algorithm', 'x-amz-credential', 'x-amz-date']));
    expect(presigned.body.fields.key).toMatch(/faq\.md$/);

    const content = '# FAQ\nWe open at 8.\n';
    const uploaded = await upload(presigned.body, content);
    expect(uploaded.status).toBe(204);
    const object = emulator.control.state().knowledge.objects[0];
    expect(object).toMatchObject({ key: presigned.body.fields.key, size: Buffer.byteLength(content), sha256: sha256Hex(content) });

    const created = await client.post('/knowledge/create_file', { object_key: presigned.body.fields.key, name: 'faq', description: 'FAQ', file_type: 'text/markdown', size: Buffer.byteLength(content) });
    expect(created.status).toBe(200);
    expectSchema('CreateFileResponse', created.body);
    expect(typeof created.body).toBe('string');

    const set = await client.post('/knowledge/set_agent_files', { agent_id: FRONT_DESK, files: [created.body], messages: ['Let me look that up.'] });
    expect(set.status).toBe(200);
    expect(set.body).toEqual({ success: true });
    const agent = (await client.get(`/agents/${FRONT_DESK}`)).body;
    expect(agent.config.knowledge_base).toEqual({ files: [created.body], messages: ['Let me look that up.'] });

    // Without messages, the agent's messages stay.
    await client.post('/knowledge/set_agent_files', { agent_id: FRONT_DESK, files: [] });
    expect((await client.get(`/agents/${FRONT_DESK}`)).body.config.knowledge_base).toEqual({ files: [], messages: ['Let me look that up.'] });
  });

  it('create_file refuses an object key that was never uploaded', async () => {
    const presigned = await client.post('/knowledge/generate_presigned_url', { filename: 'a.pdf' });
    const res = await client.post('/knowledge/create_file', { object_key: presigned.body.fields.key, name: 'a' });
    expect(res.status).toBe(422);
    expect(res.body.detail[0]).toMatchObject({ type: 'value_error', loc: ['body', 'object_key'] });
    const missing = await client.post('/knowledge/create_file', { name: 'a' });
    expect(missing.body.detail).toEqual([{ type: 'missing', loc: ['body', 'object_key'], msg: 'Field required' }]);
    expect((await client.post('/knowledge/create_file', { object_key: 'x', name: 'a' }, { auth: null })).body.detail).toEqual(
      expect.arrayContaining([{ type: 'missing', loc: ['header', 'authorization'], msg: 'Field required' }]),
    );
  });

  it('set_agent_files refuses unknown file ids and an unknown agent', async () => {
    const files = await client.post('/knowledge/set_agent_files', { agent_id: BOOKING, files: ['kf_nope', 'kf_nope2'] });
    expect(files.status).toBe(422);
    expect(files.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'files', 0],
      ['body', 'files', 1],
    ]);
    const agent = await client.post('/knowledge/set_agent_files', { agent_id: '-OKnope', files: [] });
    expect(agent.status).toBe(422);
    expect(agent.body.detail[0].loc).toEqual(['body', 'agent_id']);
  });

  it('generate_presigned_url needs a filename', async () => {
    const res = await client.post('/knowledge/generate_presigned_url', {});
    expect(res.body.detail).toEqual([{ type: 'missing', loc: ['body', 'filename'], msg: 'Field required' }]);
  });

  it('the upload target checks the fields, the signature and the file position like S3', async () => {
    const presigned = (await client.post('/knowledge/generate_presigned_url', { filename: 'faq.md' })).body;
    const badSignature = await upload(presigned, 'x', { override: { 'x-amz-signature': '0'.repeat(64) } });
    expect(badSignature.status).toBe(403);
    expect(badSignature.text).toContain('<Code>SignatureDoesNotMatch</Code>');
    const badPolicy = await upload(presigned, 'x', { override: { policy: 'e30=' } });
    expect(badPolicy.status).toBe(403);
    expect(badPolicy.text).toContain('<Code>AccessDenied</Code>');
    const extraField = await upload(presigned, 'x', { override: { 'Content-Type': 'text/markdown' } });
    expect(extraField.status).toBe(403);
    expect(extraField.text).toContain('<Code>AccessDenied</Code><Message>Invalid according to Policy: Extra input fields: content-type</Message>');
    const fileFirst = await upload(presigned, 'x', { fileFirst: true });
    expect(fileFirst.status).toBe(400);
    const unknownKey = await upload({ ...presigned, fields: { ...presigned.fields, key: 'knowledge/other' } }, 'x');
    expect(unknownKey.status).toBe(403);
    const notMultipart = await request(presigned.url, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(notMultipart.statusCode).toBe(412);
    await notMultipart.body.dump();
    expect(emulator.control.state().knowledge.objects).toEqual([]);
  });
});
