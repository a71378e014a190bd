import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSeed, type EmulatorSeed, type RunningEmulator } from '../../src/emulator/index.js';
import { BOOKING, clientFor, expectSchema, FRONT_DESK, startTestEmulator, type Client } from './helpers.js';

let emulator: RunningEmulator;
let client: Client;
beforeAll(async () => ({ emulator, client } = await startTestEmulator()));
afterAll(() => emulator.close());

interface Rec {
  call_id: string;
  ts: number;
  agent_id: string;
  call_status: string;
  campaign_id: string | null;
  voip: { from: string; to: string };
}

/** Walks every page of a query; returns the records in order and the number of pages. */
async function walk(c: Client, query: string, limit: number): Promise<{ records: Rec[]; pages: number }> {
  const records: Rec[] = [];
  let cursor = 0;
  let pages = 0;
  do {
    const res = await c.get(`/call-logs?limit=${limit}${query}${cursor ? `&start_after_ts=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    expectSchema('CallLogsResponse', res.body);
    records.push(...res.body.histories);
    cursor = res.body.next_cursor;
    pages++;
    expect(pages).toBeLessThan(200);
  } while (cursor);
  return { records, pages };
}

const ids = (records: Rec[]) => records.map((r) => r.call_id);

describe('GET /call-logs', () => {
  it('answers 20 records newest first by default, with next_cursor the ts of the last', async () => {
    const res = await client.get('/call-logs');
    expect(res.status).toBe(200);
    expectSchema('CallLogsResponse', res.body);
    const { histories, next_cursor } = res.body;
    expect(histories).toHaveLength(20);
    for (let i = 1; i < histories.length; i++) expect(histories[i].ts).toBeLessThan(histories[i - 1].ts);
    expect(next_cursor).toBe(histories[19].ts);
  });

  it('pages through all 40 seeded records exactly once, whatever the page size', async () => {
    const all = (await client.get('/call-logs?limit=100')).body;
    expect(all.histories).toHaveLength(40);
    expect(all.next_cursor).toBe(0);
    for (const limit of [1, 3, 7, 20, 40]) {
      const { records, pages } = await walk(client, '', limit);
      expect(ids(records)).toEqual(ids(all.histories));
      expect(pages).toBe(Math.max(1, Math.ceil(40 / limit)));
    }
  });

  it('answers next_cursor 0 when a full page is also the last', async () => {
    const res = await client.get('/call-logs?limit=40');
    expect(res.body.histories).toHaveLength(40);
    expect(res.body.next_cursor).toBe(0);
  });

  it('filters by agent, status (any case), campaign and phone number within voip', async () => {
    const all: Rec[] = (await client.get('/call-logs?limit=100')).body.histories;
    const cases: Array<[string, (r: Rec) => boolean]> = [
      [`&agent_id=${BOOKING}`, (r) => r.agent_id === BOOKING],
      ['&call_status=USER-ENDED', (r) => r.call_status === 'user-ended'],
      ['&call_status=registered', (r) => r.call_status === 'registered'],
      ['&campaign_id=cmp_recall_2026', (r) => r.campaign_id === 'cmp_recall_2026'],
      ['&phone_number=%2B15551230003', (r) => r.voip.from === '+15551230003' || r.voip.to === '+15551230003'],
      ['&phone_number=5550101003', (r) => r.voip.from === '+15550101003' || r.voip.to === '+15550101003'],
      [`&agent_id=${FRONT_DESK}&campaign_id=cmp_recall_2026`, (r) => r.agent_id === FRONT_DESK && r.campaign_id === 'cmp_recall_2026'],
    ];
    for (const [query, keep] of cases) {
      const expected = all.filter(keep);
      expect(expected.length, query).toBeGreaterThan(0);
      const { records } = await walk(client, query, 3);
      expect(ids(records), query).toEqual(ids(expected));
    }
  });

  it('filters by a time window, both ends inclusive', async () => {
    const all: Rec[] = (await client.get('/call-logs?limit=100')).body.histories;
    const start = all[30]!.ts;
    const end = all[10]!.ts;
    const { records } = await walk(client, `&start_time=${start}&end_time=${end}`, 4);
    expect(ids(records)).toEqual(ids(all.slice(10, 31)));
  });

  it('refuses limit 101, limit 0, a limit that is not a number and unknown parameters', async () => {
    const over = await client.get('/call-logs?limit=101');
    expect(over.status).toBe(422);
    expect(over.body).toEqual({ detail: [{ type: 'less_than_equal', loc: ['query', 'limit'], msg: 'Input should be less than or equal to 100' }] });
    expect((await client.get('/call-logs?limit=0')).body.detail[0]).toMatchObject({ type: 'greater_than_equal', loc: ['query', 'limit'] });
    expect((await client.get('/call-logs?limit=ten')).body.detail[0]).toMatchObject({ type: 'int_parsing', loc: ['query', 'limit'] });
    expect((await client.get('/call-logs?limit=2.5')).body.detail[0]).toMatchObject({ type: 'int_from_float', loc: ['query', 'limit'] });
    expect((await client.get('/call-logs?start_time=yesterday')).body.detail[0]).toMatchObject({ type: 'float_parsing', loc: ['query', 'start_time'] });
    expect((await client.get('/call-logs?page_size=5')).body.detail[0]).toMatchObject({ type: 'extra_forbidden', loc: ['query', 'page_size'] });
    expect((await client.get('/call-logs?limit=100')).status).toBe(200);
  });

  it('needs the authorization header', async () => {
    expect((await client.get('/call-logs', { auth: null })).body).toEqual({ detail: [{ type: 'missing', loc: ['header', 'authorization'], msg: 'Field required' }] });
  });

  it('never repeats or skips records that share a ts', async () => {
    const seed: EmulatorSeed = defaultSeed();
    // Groups of equal ts of sizes 1, 3, 2, 5, 1, 4 (16 records).
    const sizes = [1, 3, 2, 5, 1, 4];
    seed.call_logs = sizes.flatMap((size, group) =>
      Array.from({ length: size }, (_, i) => ({ call_id: `tie_${group}_${i}`, agent_id: FRONT_DESK, ts: 1_700_000_000 - group * 10, call_status: 'user-ended' })),
    );
    const { emulator: tied } = await startTestEmulator({ seed });
    try {
      const c = clientFor(tied);
      const expected = ids((await c.get('/call-logs?limit=100')).body.histories);
      expect(new Set(expected).size).toBe(16);
      for (const limit of [1, 2, 3, 4, 5, 6]) {
        const { records } = await walk(c, '', limit);
        expect(ids(records), `limit ${limit}`).toEqual(expected);
      }
    } finally {
      await tied.close();
    }
  });
});

describe('GET /agents/{agent_id}/call-histories', () => {
  it('answers {items, pagination} in the agent-level shape, paged with start_at', async () => {
    const all: Rec[] = (await client.get(`/call-logs?limit=100&agent_id=${BOOKING}`)).body.histories;
    const seen: string[] = [];
    let cursor: number | undefined;
    do {
      const res = await client.get(`/agents/${BOOKING}/call-histories?limit=5${cursor ? `&start_at=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      expectSchema('CallHistoriesResponse', res.body);
      expect(res.body.pagination.success).toBe(true);
      for (const item of res.body.items) {
        expect(item).not.toHaveProperty('campaign_id');
        expect(item).not.toHaveProperty('call_metrics');
        expect(item.agent_id).toBe(BOOKING);
      }
      seen.push(...res.body.items.map((i: Rec) => i.call_id));
      cursor = res.body.pagination.next_cursor;
    } while (cursor);
    expect(seen).toEqual(ids(all));
  });

  it('answers 404 for an unknown agent and 422 for a bad limit', async () => {
    expect((await client.get('/agents/-OKnope/call-histories')).body).toEqual({ detail: 'Not found' });
    expect((await client.get(`/agents/${BOOKING}/call-histories?limit=500`)).body.detail[0]).toMatchObject({ loc: ['query', 'limit'] });
  });
});
