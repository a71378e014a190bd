import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/index.js';
import { loadSchemas } from '../../src/schema/load.js';
import { LATEST_UNIX_SECONDS } from '../../src/util/unix-time.js';
import { fakeServer, testClient } from './helpers.js';

const KEY = 'callRecordsCheckKey0000000000001';
const GOOD = { call_id: 'call_1', agent_id: 'ag_1', ts: 1_767_225_600, call_status: 'in-progress', cost_breakdown: [{ type: 'stt', provider: 'deepgram', credit: 0.1 }] };
const HINT =
  'The service sent a record of another shape than its interface documents (docs/service-api.md, "Call logs"): report it to the service. With --local or `voxform emulator --data FILE`, correct or delete that record in the data file\'s `call_logs` (.voxform/local.json for --local).';

/** What the fake service answers to each read of the call log, by path. */
let answers: Record<string, unknown> = {};

let fake: Awaited<ReturnType<typeof fakeServer>>;
beforeAll(async () => {
  fake = await fakeServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answers[path]));
  });
});
afterAll(async () => {
  await fake.close();
});

async function readAll(histories: unknown, options: { redact?: (text: string) => string } = {}): Promise<unknown> {
  answers = { '/call-logs': { histories, next_cursor: 0 } };
  const { client } = testClient({ baseUrl: fake.url, apiKey: KEY, ...options });
  try {
    const seen: unknown[] = [];
    for await (const record of client.iterateCallLogs()) seen.push(record);
    return seen;
  } catch (error) {
    return error;
  } finally {
    await client.close();
  }
}

describe('call records checked against the service schema in the client', () => {
  it.each([
    ['a cost_breakdown that is a string', { cost_breakdown: 'x' }, 'cost_breakdown is a string, where a list belongs'],
    ['a cost_breakdown that is an object', { cost_breakdown: {} }, 'cost_breakdown is an object, where a list belongs'],
    ['a cost_breakdown that is a number', { cost_breakdown: 5 }, 'cost_breakdown is the number 5, where a list belongs'],
    ['a cost item that is null', { cost_breakdown: [null] }, 'cost_breakdown[0] is null, where an object (key: value pairs) belongs'],
    ['a call_status that is a number', { call_status: 5 }, 'call_status is the number 5, where a string belongs'],
    ['a ts after 9999', { ts: 1e300 }, 'ts must be at most 253402300799, found 1e+300'],
    ['a ts before 1970', { ts: -1e20 }, 'ts must be at least 0, found -100000000000000000000'],
  ])('refuses %s with an api_error naming the record, its call id and the field', async (_, change, problem) => {
    const error = await readAll([GOOD, { ...GOOD, call_id: 'call_2', ...change }]);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({
      code: 'api_error',
      message: `GET /call-logs failed: the service answered 200 with a call record voxform cannot read: histories[1] (call_id "call_2"): ${problem}.`,
      hint: HINT,
      status: 200,
    });
  });

  it('names the first record of another shape, its first problems, and counts the rest', async () => {
    const error = await readAll([{ ...GOOD, ts: 'soon', duration: 'long', chars_used: [], chat: 1 }, 7, { call_status: false }]);
    expect(error).toMatchObject({
      message:
        'GET /call-logs failed: the service answered 200 with a call record voxform cannot read: histories[0] (call_id "call_1"): duration is a string, where a number belongs; ts is a string, where a number belongs; chat is the number 1, where a string belongs and 1 more (and 2 more records of another shape).',
    });
    expect(await readAll([7])).toMatchObject({ message: 'GET /call-logs failed: the service answered 200 with a call record voxform cannot read: histories[0] is the number 7, where a call record (an object) belongs.' });
  });

  it('never prints the key or another secret the service echoes as a call id, nor its control characters', async () => {
    const error = (await readAll([{ ...GOOD, call_id: `${KEY}\u001b[2J`, cost_breakdown: 'x' }], { redact: (text) => text })) as ApiError;
    expect(error.message).not.toContain(KEY);
    expect(error.message).not.toContain('\u001b');
    expect(JSON.stringify(error.details)).not.toContain(KEY);
    const other = (await readAll([{ ...GOOD, call_id: 'holds s3cr3t-value', call_status: 1 }], { redact: (text) => text.replaceAll('s3cr3t-value', '(redacted)') })) as ApiError;
    expect(other.message).toContain('(call_id "holds (redacted)")');
  });

  it('passes records of the documented shape as they came, at the ends of the range of ts', async () => {
    const records = [{ ...GOOD, ts: 253_402_300_799, campaign_id: null, error_message: null }, { ...GOOD, call_id: 'call_0', ts: 0 }];
    expect(await readAll(records)).toEqual(records);
  });

  it("bounds ts by the schema to the times voxform reads as --since and --until", () => {
    const defs = loadSchemas().service.$defs as Record<string, { properties: Record<string, { minimum?: number; maximum?: number }> }>;
    expect(defs.CallHistoryRecord?.properties.ts).toMatchObject({ minimum: 0, maximum: LATEST_UNIX_SECONDS });
  });

  it('a page whose histories is no list is no page: an api_error, not an empty call log', async () => {
    expect(await readAll('x')).toMatchObject({ code: 'api_error', message: 'GET /call-logs failed: the service answered 200 with something other than the documented answer.' });
  });

  it('checks the records of an agent’s call histories too, wrapped or bare', async () => {
    const { client } = testClient({ baseUrl: fake.url, apiKey: KEY });
    try {
      answers = { '/agents/ag_1/call-histories': { items: [GOOD, { ...GOOD, call_id: 'call_9', cost_breakdown: 'x' }] } };
      await expect(client.listAgentCallHistories('ag_1')).rejects.toMatchObject({
        code: 'api_error',
        message: 'GET /agents/ag_1/call-histories failed: the service answered 200 with a call record voxform cannot read: items[1] (call_id "call_9"): cost_breakdown is a string, where a list belongs.',
      });
      answers = { '/agents/ag_1/call-histories': [{ ...GOOD, ts: -1 }] };
      await expect(client.listAgentCallHistories('ag_1')).rejects.toMatchObject({
        message: 'GET /agents/ag_1/call-histories failed: the service answered 200 with a call record voxform cannot read: record [0] (call_id "call_1"): ts must be at least 0, found -1.',
      });
      answers = { '/agents/ag_1/call-histories': { items: 'x' } };
      await expect(client.listAgentCallHistories('ag_1')).rejects.toMatchObject({ message: 'GET /agents/ag_1/call-histories failed: the service answered 200 with something other than the documented answer.' });
      answers = { '/agents/ag_1/call-histories': [GOOD] };
      await expect(client.listAgentCallHistories('ag_1')).resolves.toEqual({ items: [GOOD] });
    } finally {
      await client.close();
    }
  });
});
