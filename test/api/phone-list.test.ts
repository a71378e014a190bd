import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/index.js';
import { fakeServer, testClient } from './helpers.js';

const KEY = 'phoneListCheckKey000000000000001';
const HINT = 'The service sent a phone of another shape than its interface documents (docs/service-api.md, "Phones"): report it to the service.';
const BOUND = { id: '+15551230001', create_at: 1_735_690_200, status: 'active', agent_id: 'ag_1', tags: ['main-line'] };

/** What the fake service answers to `GET /phones`. */
let answer: unknown;

let fake: Awaited<ReturnType<typeof fakeServer>>;
beforeAll(async () => {
  fake = await fakeServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
  });
});
afterAll(async () => {
  await fake.close();
});

async function listPhones(phones: unknown): Promise<unknown> {
  answer = phones;
  const { client } = testClient({ baseUrl: fake.url, apiKey: KEY });
  try {
    return await client.listPhones();
  } catch (error) {
    return error;
  } finally {
    await client.close();
  }
}

describe('the phone list checked in the client for what voxform reads of a phone', () => {
  it.each([
    ['a phone that is null', [BOUND, null], 'phone [1] is null, where a phone (an object) belongs'],
    ['a phone that is a string', ['+15551230002'], 'phone [0] is a string, where a phone (an object) belongs'],
    ['a phone without an id', [{ agent_id: 'ag_1' }], 'phone [0]: id is missing, where a string (the number) belongs'],
    ['an id that is a number', [{ id: 15551230001 }], 'phone [0]: id is the number 15551230001, where a string (the number) belongs'],
    ['an agent_id that is a number', [{ ...BOUND, agent_id: 7 }], 'phone [0] (id "+15551230001"): agent_id is the number 7, where a string or null belongs'],
    ['an agent_id that is an object', [BOUND, { ...BOUND, id: '+15551230002', agent_id: { id: 'ag_1' } }], 'phone [1] (id "+15551230002"): agent_id is an object, where a string or null belongs'],
    ['a wrapped list holding null', { phones: [null] }, 'phones[0] is null, where a phone (an object) belongs'],
  ])('refuses %s with an api_error naming the phone and the field', async (_, phones, problem) => {
    const error = await listPhones(phones);
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'api_error', message: `GET /phones failed: the service answered 200 with a phone voxform cannot read: ${problem}.`, hint: HINT, status: 200 });
  });

  it('passes on what it does not read: no agent (null or absent), other fields of any shape, an id in another format', async () => {
    const phones = [
      { ...BOUND, agent_id: null },
      { id: '+15551230002' },
      { ...BOUND, id: '+1 555 123 0003', tags: 'x', create_at: 'yesterday', agent_config_override: [null], provider: 7 },
    ];
    expect(await listPhones(phones)).toEqual(phones);
    expect(await listPhones({ items: phones })).toEqual(phones);
  });

  it('refuses an answer that holds no list of phones', async () => {
    for (const phones of [null, { phones: null }, 'ok']) {
      expect(await listPhones(phones)).toMatchObject({ code: 'api_error', message: 'GET /phones failed: the service answered 200 with something other than the documented answer.' });
    }
  });

  it('never prints the key where the service sent it as a phone id', async () => {
    const error = (await listPhones([{ id: KEY, agent_id: 7 }])) as ApiError;
    expect(error.message).toBe('GET /phones failed: the service answered 200 with a phone voxform cannot read: phone [0] (id "(sensitive)"): agent_id is the number 7, where a string or null belongs.');
  });
});
