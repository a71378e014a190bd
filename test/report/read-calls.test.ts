import { describe, expect, it } from 'vitest';
import type { CallLogFilters } from '../../src/api/index.js';
import { readCallLog, SLICES } from '../../src/report/read-calls.js';
import type { GlobalCallHistoryRecord } from '../../src/schema/types.gen.js';

/** A call log as the service filters it: start_time and end_time inclusive, newest first. */
function fakeClient(records: GlobalCallHistoryRecord[]) {
  const asked: CallLogFilters[] = [];
  return {
    asked,
    iterateCallLogs(filters: CallLogFilters = {}): AsyncIterable<GlobalCallHistoryRecord> {
      asked.push(filters);
      const matching = records
        .filter((r) => (filters.start_time === undefined || (r.ts as number) >= filters.start_time) && (filters.end_time === undefined || (r.ts as number) <= filters.end_time))
        .sort((a, b) => (b.ts as number) - (a.ts as number));
      return (async function* () {
        yield* matching;
      })();
    },
  };
}

async function readAll(streams: Array<AsyncIterable<GlobalCallHistoryRecord>>): Promise<string[]> {
  const ids: string[] = [];
  await Promise.all(streams.map(async (stream) => {
    for await (const record of stream) ids.push(record.call_id as string);
  }));
  return ids.sort();
}

// Calls every 25 s from 1000 to 2000, so some fall exactly on the slice boundaries (1250, 1500, 1750).
const records = Array.from({ length: 41 }, (_, i) => ({ call_id: `c${String(i).padStart(2, '0')}`, ts: 1000 + i * 25 }) as GlobalCallHistoryRecord);

describe('readCallLog', () => {
  it('reads a window with a start in time slices at once, every call exactly once (boundaries included)', async () => {
    const client = fakeClient(records);
    const streams = readCallLog(client, { agent_id: 'a' }, { since: 1000, until: 2000 }, 5000);
    expect(streams).toHaveLength(SLICES);
    expect(await readAll(streams)).toEqual(records.map((r) => r.call_id).sort());
    expect(client.asked.map((f) => [f.start_time, f.end_time, f.agent_id])).toEqual([
      [1000, 1250, 'a'],
      [1250, 1500, 'a'],
      [1500, 1750, 'a'],
      [1750, 2000, 'a'],
    ]);
  });

  it('leaves the last slice open when no end was given (a call stamped after our now still counts)', async () => {
    const client = fakeClient([...records, { call_id: 'late', ts: 2100 } as GlobalCallHistoryRecord]);
    const ids = await readAll(readCallLog(client, {}, { since: 1000 }, 2000));
    expect(ids).toContain('late');
    expect(ids).toHaveLength(42);
    expect(client.asked.at(-1)?.end_time).toBeUndefined();
  });

  it('walks the whole log in one chain without a start', async () => {
    const client = fakeClient(records);
    const streams = readCallLog(client, {}, { until: 1500 }, 5000);
    expect(streams).toHaveLength(1);
    expect(await readAll(streams)).toHaveLength(21);
  });
});
