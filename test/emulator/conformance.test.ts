/**
 * docs/service-api.md is the contract: its operation table is read here and every row is checked
 * against schemas/service.schema.json, the emulator's routes and answers, and the API client.
 * A missing document, a missing table or a missing operation fails the run: nothing is skipped.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import type { RunningEmulator } from '../../src/emulator/index.js';
import { specRoutes } from '../../src/emulator/server.js';
import { loadSchemas } from '../../src/schema/load.js';
import { validateAgainst } from '../../src/schema/validate.js';
import { repoRoot } from '../helpers/cli.js';
import { BOOKING, FRONT_DESK, startTestEmulator, type Answer, type Client } from './helpers.js';

const DOC = 'docs/service-api.md';
const PUBLIC_KEY = 'vxlocalDefaultPublicKey000000001';

interface DocumentedOperation {
  method: string;
  path: string;
  body: string | undefined;
  query: string | undefined;
  status: number;
  answer: string;
  stream: boolean;
  header: 'required' | 'optional' | 'unshown';
  public: boolean;
  repeatable: boolean;
  client: string;
}

/** The rows of the table after `<!-- operations -->`; throws (failing the file) when there is none. */
function readOperationTable(text: string): DocumentedOperation[] {
  const start = text.indexOf('<!-- operations -->');
  if (start < 0) throw new Error(`${DOC} has no <!-- operations --> table`);
  const lines = text.slice(start).split('\n').slice(1);
  const rows = lines.slice(2, lines.findIndex((line, i) => i > 0 && !line.startsWith('|')));
  if (!lines[0]?.startsWith('| Method |') || rows.length === 0) throw new Error(`${DOC}: the operations table is missing or empty`);
  return rows.map((line) => {
    const cells = line.split('|').slice(1, -1).map((cell) => cell.trim());
    const [method, route, body, query, answer, header, publicKey, repeatable, client] = cells;
    const name = (cell: string | undefined) => (cell === undefined || cell === '—' ? undefined : /^`(\w+)`$/.exec(cell)?.[1] ?? `(unreadable: ${cell})`);
    const answerMatch = /^(\d{3}) `(\w+)`( stream)?$/.exec(answer ?? '');
    if (!method || !route || !answerMatch || !client) throw new Error(`${DOC}: unreadable operation row: ${line}`);
    return {
      method,
      path: route.replaceAll('`', ''),
      body: name(body),
      query: name(query),
      status: Number(answerMatch[1]),
      answer: answerMatch[2] as string,
      stream: answerMatch[3] !== undefined,
      header: header === 'not shown' ? 'unshown' : (header as 'required' | 'optional'),
      public: publicKey === 'yes',
      repeatable: repeatable === 'yes',
      client: client.replaceAll('`', ''),
    };
  });
}

const operations = readOperationTable(readFileSync(path.join(repoRoot, DOC), 'utf8'));
const nameOf = (op: { method: string; path: string }) => `${op.method} ${op.path}`;

/** Path parameters filled with ids of the default seed. */
function concrete(template: string): string {
  return template
    .replace('{agent_id}', encodeURIComponent(FRONT_DESK))
    .replace('{campaign_id}', 'cmp_recall_2026')
    .replace('{phone}', encodeURIComponent('+15551230001'));
}

function matchesTemplate(template: string, decodedPath: string): boolean {
  const pattern = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+');
  return new RegExp(`^${pattern}$`).test(decodedPath);
}

let emulator: RunningEmulator;
let raw: Client;
let api: ApiClient;
/** A client that retries once, at once: for what it repeats after a 503. */
let retrying: ApiClient;

/**
 * Operations that are not repeatable but that the client still retries, because it first checks
 * that the earlier attempt did not get through (docs/client.md): the request it checks with.
 */
const checkedBeforeRetry: Record<string, string> = { importPhone: 'GET /phones' };

/** Prepares an uploaded object as the presigned POST of the interface does; answers its key. */
async function uploadedObjectKey(): Promise<string> {
  const target = (await raw.post('/knowledge/generate_presigned_url', { filename: 'faq.md' })).body as { url: string; fields: Record<string, string> };
  const form = new FormData();
  for (const [field, value] of Object.entries(target.fields)) form.append(field, value);
  form.append('file', new Blob(['Opening hours: 8 to 6.\n'], { type: 'text/markdown' }), 'faq.md');
  const upload = await fetch(target.url, { method: 'POST', body: form });
  expect(upload.status, 'the upload target accepts the documented multipart POST').toBe(204);
  return target.fields.key as string;
}

/** A valid request for each operation, sent as it is (a query goes into the path). */
const rawRequests: Record<string, () => Promise<{ path?: string; body?: unknown }>> = {
  'POST /api_keys': async () => ({ body: { type: 'private', name: 'conformance' } }),
  'POST /user/credentials': async () => ({ body: { provider: 'openai', api_key: 'sk-conformance' } }),
  'PUT /campaigns/{campaign_id}/info': async () => ({ body: { name: 'Recall', include_metadata_in_prompt: false } }),
  'POST /campaigns/{campaign_id}/set_caller': async () => ({ body: { caller: '+15551230001' } }),
  'POST /phones/{phone}/set_agent': async () => ({ body: { agent_id: BOOKING } }),
  'GET /phones': async () => ({}),
  'POST /phones/import': async () => ({ body: { country: 'US', phone: '+15551230007', region: 'us-west', api_key: 'k', api_secret: 's' } }),
  'GET /agents/{agent_id}': async () => ({}),
  'PUT /agents/{agent_id}': async () => ({ body: { name: 'Front desk', config: { first_message: 'Hello' } } }),
  'GET /agents/{agent_id}/call-histories': async () => ({ path: `/agents/${encodeURIComponent(FRONT_DESK)}/call-histories?limit=5` }),
  'GET /call-logs': async () => ({ path: '/call-logs?limit=5' }),
  'POST /register_call': async () => ({ body: { agent_id: FRONT_DESK, from_phone: '+15557654321', to_phone: '+15551230001' } }),
  'POST /register_sip_call': async () => ({ body: { agent_id: FRONT_DESK } }),
  'POST /sip': async () => ({ body: { init_agent: { agent_id: FRONT_DESK }, region: 'us-west' } }),
  'POST /chat/completions': async () => ({ body: { agent: { agent_id: FRONT_DESK }, messages: [{ role: 'user', content: 'Hi' }], end_of_session: true } }),
  'POST /knowledge/generate_presigned_url': async () => ({ body: { filename: 'faq.md' } }),
  'POST /knowledge/create_file': async () => ({ body: { object_key: await uploadedObjectKey(), name: 'faq' } }),
  'POST /knowledge/set_agent_files': async () => ({ body: { agent_id: FRONT_DESK, files: [] } }),
};

/** Numbers the client imports are new each time (the account refuses a number twice). */
let importedNumbers = 0;

/** The same operation through the API client. */
const clientCalls: Record<string, (client: ApiClient) => Promise<unknown>> = {
  createApiKey: (c) => c.createApiKey({ type: 'private', name: 'conformance client' }),
  setCredential: (c) => c.setCredential({ provider: 'deepgram', api_key: 'dg-conformance' }),
  editCampaignInfo: (c) => c.editCampaignInfo('cmp_recall_2026', { name: 'Recall' }),
  setCampaignCaller: (c) => c.setCampaignCaller('cmp_recall_2026', '+15551230001'),
  setPhoneAgent: (c) => c.setPhoneAgent('+15551230001', BOOKING),
  listPhones: (c) => c.listPhones(),
  importPhone: (c) => c.importPhone({ country: 'US', phone: `+1555124${String(1000 + importedNumbers++)}`, region: 'us-west', api_key: 'k', api_secret: 's' }),
  getAgent: (c) => c.getAgent(FRONT_DESK),
  updateAgent: (c) => c.updateAgent(FRONT_DESK, { name: 'Front desk', config: { first_message: 'Hello again' } }),
  listAgentCallHistories: (c) => c.listAgentCallHistories(FRONT_DESK, { limit: 5 }),
  listCallLogs: (c) => c.listCallLogs({ limit: 5 }),
  registerCall: (c) => c.registerCall({ agent_id: FRONT_DESK }),
  registerSipCall: (c) => c.registerSipCall({ agent_id: FRONT_DESK }),
  createSip: (c) => c.createSip({ init_agent: { agent_id: FRONT_DESK }, region: 'eu-west' }),
  chatCompletions: (c) => c.chatCompletions({ agent: { agent_id: FRONT_DESK }, messages: [{ role: 'user', content: 'Hello' }], end_of_session: true }).collect(),
  generatePresignedUrl: (c) => c.generatePresignedUrl({ filename: 'notes.md' }),
  createKnowledgeFile: async (c) => c.createKnowledgeFile({ object_key: await uploadedObjectKey(), name: 'faq from the client' }),
  setAgentFiles: (c) => c.setAgentFiles({ agent_id: FRONT_DESK, files: [] }),
};

/** The answer's values to check against the answer schema: the parsed body, or each event of a stream. */
function answerValues(answer: Answer, stream: boolean): unknown[] {
  if (!stream) return [answer.body];
  const events = answer.text.split('\n').filter((line) => line.startsWith('data: ')).map((line) => line.slice('data: '.length));
  expect(events.at(-1), 'a stream ends with data: [DONE]').toBe('[DONE]');
  return events.slice(0, -1).map((event) => JSON.parse(event) as unknown);
}

function serviceRequestsSince(seq: number) {
  return emulator.control.requestLog().filter((entry) => entry.seq > seq && !entry.path.startsWith('/_emulator/'));
}

beforeAll(async () => {
  ({ emulator, client: raw } = await startTestEmulator());
  api = createClient({ apiKey: emulator.apiKey, baseUrl: emulator.url, retries: 0 });
  retrying = createClient({ apiKey: emulator.apiKey, baseUrl: emulator.url, retries: 1, sleep: async () => {} });
});
afterAll(async () => {
  await api.close();
  await retrying.close();
  await emulator.close();
});

describe(`the operation table of ${DOC}`, () => {
  it('lists every operation of the interface, each once', () => {
    const names = operations.map(nameOf);
    expect(new Set(names).size).toBe(names.length);
    expect(names.length).toBeGreaterThanOrEqual(18);
  });

  it('lists exactly the operations the emulator routes outside /_emulator/', () => {
    expect(specRoutes.map(nameOf).sort()).toEqual(operations.map(nameOf).sort());
  });

  it('has a test request and a client call for every row (a new row needs both)', () => {
    expect(Object.keys(rawRequests).sort()).toEqual(operations.map(nameOf).sort());
    expect(Object.keys(clientCalls).sort()).toEqual(operations.map((op) => op.client).sort());
  });
});

describe.each(operations.map((op) => [nameOf(op), op] as const))('%s', (name, op) => {
  it('names definitions that exist in schemas/service.schema.json', () => {
    const defs = loadSchemas().service.$defs as Record<string, unknown>;
    for (const definition of [op.body, op.query, op.answer]) if (definition !== undefined) expect(Object.keys(defs), `${name}: ${definition}`).toContain(definition);
  });

  it('is routed by the emulator with the documented body, query and header', () => {
    const route = specRoutes.find((r) => nameOf(r) === name);
    expect(route, `${name} is not routed`).toBeDefined();
    expect({ body: route?.body, query: route?.query, header: route?.header, public: route?.allowPublic === true }).toEqual({
      body: op.body,
      query: op.query,
      header: op.header,
      public: op.public,
    });
  });

  it('answers a valid request with the documented status and answer', async () => {
    const request = await (rawRequests[name] as () => Promise<{ path?: string; body?: unknown }>)();
    const answer = await raw.call(op.method, request.path ?? concrete(op.path), request.body === undefined ? {} : { body: request.body });
    expect(answer.status, `${name} answered ${answer.status} ${answer.text}`).toBe(op.status);
    for (const value of answerValues(answer, op.stream)) expect(validateAgainst(op.answer, value), `${name}: ${JSON.stringify(value)}`).toEqual([]);
  });

  it('refuses a query parameter it does not define (422 extra_forbidden at it), with or without a query definition', async () => {
    const request = await (rawRequests[name] as () => Promise<{ path?: string; body?: unknown }>)();
    const path = request.path ?? concrete(op.path);
    const answer = await raw.call(op.method, `${path}${path.includes('?') ? '&' : '?'}page_size=5`, request.body === undefined ? {} : { body: request.body });
    expect(answer.status, answer.text).toBe(422);
    expect(answer.body).toEqual({ detail: [{ type: 'extra_forbidden', loc: ['query', 'page_size'], msg: 'Extra inputs are not permitted' }] });
  });

  it('refuses a request without a key as documented for its header', async () => {
    const request = await (rawRequests[name] as () => Promise<{ path?: string; body?: unknown }>)();
    const answer = await raw.call(op.method, request.path ?? concrete(op.path), { ...(request.body === undefined ? {} : { body: request.body }), auth: null });
    if (op.header === 'required') {
      expect(answer.status).toBe(422);
      expect(answer.body.detail).toContainEqual({ type: 'missing', loc: ['header', 'authorization'], msg: 'Field required' });
    } else {
      expect(answer.status).toBe(401);
    }
  });

  it(`${op.public ? 'accepts' : 'refuses'} a public key`, async () => {
    const request = await (rawRequests[name] as () => Promise<{ path?: string; body?: unknown }>)();
    const answer = await raw.call(op.method, request.path ?? concrete(op.path), { ...(request.body === undefined ? {} : { body: request.body }), auth: PUBLIC_KEY });
    if (op.public) expect(answer.status, answer.text).toBe(op.status);
    else expect(answer.status, answer.text).toBe(403);
  });

  it(`is sent by the client's ${op.client}`, async () => {
    const call = clientCalls[op.client];
    expect(typeof (api as unknown as Record<string, unknown>)[op.client], `ApiClient has no method ${op.client}`).toBe('function');
    const before = emulator.control.requestLog().at(-1)?.seq ?? 0;
    await (call as (client: ApiClient) => Promise<unknown>)(api);
    const sent = serviceRequestsSince(before).filter((entry) => entry.method === op.method && matchesTemplate(op.path, entry.path));
    expect(sent.length, `${op.client} sent no ${name}`).toBeGreaterThan(0);
  });
});

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

describe.each(operations.map((op) => [nameOf(op), op] as const))('%s after a 503', (name, op) => {
  it(op.repeatable ? 'is repeated by the client' : 'is not repeated blindly by the client', async () => {
    const route = `re:^${escapeRegExp(op.path).replace(/\\\{\w+\\\}/g, '[^/]+')}$`;
    emulator.control.setFaults([{ path: route, method: op.method, errorRate: 1, errorStatus: 503 }], { seed: 1 });
    const before = emulator.control.requestLog().at(-1)?.seq ?? 0;
    try {
      await expect((clientCalls[op.client] as (client: ApiClient) => Promise<unknown>)(retrying)).rejects.toMatchObject({ status: 503 });
    } finally {
      emulator.control.clearFaults();
    }
    const sent = serviceRequestsSince(before).map((entry) => `${entry.method} ${matchesTemplate(op.path, entry.path) ? op.path : entry.path}`);
    const attempts = sent.filter((request) => request === name).length;
    const check = checkedBeforeRetry[op.client];
    if (op.repeatable) expect(attempts, sent.join(', ')).toBe(2);
    else if (check) expect(sent.filter((request) => request === name || request === check)).toEqual([name, check, name]);
    else expect(attempts, sent.join(', ')).toBe(1);
  });
});

describe('the client', () => {
  it('sends nothing to the service that the table does not list', () => {
    const unknown = serviceRequestsSince(0)
      .filter((entry) => !operations.some((op) => op.method === entry.method && matchesTemplate(op.path, entry.path)))
      .map((entry) => `${entry.method} ${entry.path}`);
    expect(unknown).toEqual([]);
  });
});
