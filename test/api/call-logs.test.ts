import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallLogFilters } from '../../src/api/index.js';
import type { GlobalCallHistoryRecord } from '../../src/schema/types.gen.js';
import { emulatorWithClient, logged } from './helpers.js';

const KEY = 'seededPrivateKeyForCallLogs00001';
const AGENTS = ['-OKagentAlpha0000001', '-OKagentBravo0000002', '-OKagentCharlie00003'];
const STATUSES = ['COMPLETED', 'FAILED', 'user-ended', 'registered', 'error'];
const BASE = 1_767_225_600; // 2026-01-01

/**
 * 1,000 calls, newest first. Timestamps go down in steps of 0–2 s, so about a third of the calls
 * share their ts with a neighbour: page boundaries fall inside groups of equal ts.
 */
function seedRecords(): GlobalCallHistoryRecord[] {
  const records: GlobalCallHistoryRecord[] = [];
  let ts = BASE;
  for (let i = 0; i < 1000; i++) {
    ts -= (i * 7) % 3; // 0, 1 or 2
    const campaign = i % 5 === 0 ? 'cmp_spring' : i % 7 === 0 ? 'cmp_autumn' : null;
    records.push({
      call_id: `call_${String(i).padStart(4, '0')}`,
      session_id: `ses_${i}`,
      agent_id: AGENTS[i % 3] as string,
      ts,
      duration: 20 + (i % 200),
      call_status: STATUSES[i % STATUSES.length] as string,
      voip: { provider: 'twilio', from: `+1555010${String(i % 50).padStart(4, '0')}`, to: i % 2 === 0 ? '+15551230001' : '+15551230003' },
      cost_breakdown: [{ type: 'stt', provider: 'deepgram', credit: 0.01 }],
      campaign_id: campaign,
    });
  }
  return records;
}

/** The documented meaning of each filter, applied locally. */
function matches(record: GlobalCallHistoryRecord, f: CallLogFilters): boolean {
  const ts = record.ts as number;
  const digits = (s: string) => s.replace(/\D/g, '');
  return (
    (f.agent_id === undefined || record.agent_id === f.agent_id) &&
    (f.call_status === undefined || record.call_status?.toLowerCase() === f.call_status.toLowerCase()) &&
    (f.start_time === undefined || ts >= f.start_time) &&
    (f.end_time === undefined || ts <= f.end_time) &&
    (f.campaign_id === undefined || record.campaign_id === f.campaign_id) &&
    (f.phone_number === undefined || [record.voip?.from, record.voip?.to].some((n) => typeof n === 'string' && digits(n).includes(digits(f.phone_number as string))))
  );
}

const ALL = seedRecords();
let env: Awaited<ReturnType<typeof emulatorWithClient>>;

beforeAll(async () => {
  env = await emulatorWithClient({ seed: { keys: [{ type: 'private', key: KEY }], call_logs: ALL } }, {});
});
afterAll(async () => {
  await env.close();
});

async function walk(filters: CallLogFilters, pageSize?: number, max?: number): Promise<GlobalCallHistoryRecord[]> {
  const seen: GlobalCallHistoryRecord[] = [];
  for await (const record of env.client.iterateCallLogs(filters, { ...(pageSize === undefined ? {} : { pageSize }), ...(max === undefined ? {} : { max }) })) seen.push(record);
  return seen;
}

function expectExactly(seen: GlobalCallHistoryRecord[], filters: CallLogFilters): void {
  const expected = ALL.filter((r) => matches(r, filters)).map((r) => r.call_id);
  const ids = seen.map((r) => r.call_id);
  expect(new Set(ids).size, 'no record twice').toBe(ids.length);
  expect([...ids].sort(), 'no record skipped').toEqual([...expected].sort());
  const times = seen.map((r) => r.ts as number);
  expect(times.every((t, i) => i === 0 || t <= (times[i - 1] as number)), 'newest first').toBe(true);
}

describe('iterateCallLogs over 1,000 seeded calls', () => {
  it.each([1, 7, 20, 100])('walks every record once, pages of %d', async (pageSize) => {
    expectExactly(await walk({}, pageSize), {});
  });

  const middle = ALL[500]?.ts as number;
  const filterCases: Array<[string, CallLogFilters]> = [
    ['agent', { agent_id: AGENTS[1] as string }],
    ['status', { call_status: 'COMPLETED' }],
    ['status, other case', { call_status: 'failed' }],
    ['since', { start_time: middle }],
    ['until', { end_time: middle }],
    ['time window', { start_time: middle - 200, end_time: middle + 200 }],
    ['phone (from)', { phone_number: '+15550100007' }],
    ['phone (to)', { phone_number: '+15551230003' }],
    ['campaign', { campaign_id: 'cmp_spring' }],
    ['everything at once', { agent_id: AGENTS[0] as string, call_status: 'COMPLETED', start_time: BASE - 900, end_time: BASE - 50, phone_number: '+15551230001', campaign_id: 'cmp_spring' }],
    ['nothing matches', { agent_id: '-OKnobody' }],
  ];
  it.each(filterCases)('filter: %s', async (_name, filters) => {
    for (const pageSize of [3, 100]) expectExactly(await walk(filters, pageSize), filters);
  });

  it('max stops early and asks only for what it needs', async () => {
    env.emulator.control.clearRequestLog();
    const seen = await walk({}, 100, 150);
    // The newest 150 (the order within a group of equal ts is the service's).
    expect(seen).toHaveLength(150);
    expect(new Set(seen.map((r) => r.call_id)).size).toBe(150);
    expect(seen.map((r) => r.ts)).toEqual(ALL.slice(0, 150).map((r) => r.ts));
    // Pages of 100, 51 and a little: the emulator ends a page before a group of equal ts rather
    // than split it, so a page may bring fewer than asked; the walk never asks beyond what is left.
    const limits = logged(env.emulator, '/call-logs').map((e) => Number(new URLSearchParams(e.query.replace(/^\?/, '')).get('limit')));
    expect(limits[0]).toBe(100);
    expect(limits.length).toBeLessThanOrEqual(4);
    for (const limit of limits.slice(1)) expect(limit).toBeLessThanOrEqual(60);
  });

  it('ten pages of 100 take eleven requests at most (one repeated record per page)', async () => {
    env.emulator.control.clearRequestLog();
    await walk({});
    expect(logged(env.emulator, '/call-logs').length).toBeLessThanOrEqual(11);
  });
});
