import { describe, expect, it } from 'vitest';
import { walkCallLogs } from '../../src/api/client.js';
import type { CallLogsQuery, CallLogsResponse, GlobalCallHistoryRecord } from '../../src/schema/types.gen.js';

/** 1,000 records newest first; `tie` records share each timestamp. */
function records(tie: number): GlobalCallHistoryRecord[] {
  return Array.from({ length: 1000 }, (_, i) => ({ call_id: `call_${String(i).padStart(4, '0')}`, agent_id: 'a', ts: 1_700_000_000 - Math.floor(i / tie) }));
}

type Semantics = 'strict' | 'inclusive';

/** A pager as a service might implement it: the cursor is a bare ts; pages may split a group of equal ts. */
function pager(all: GlobalCallHistoryRecord[], semantics: Semantics, calls: CallLogsQuery[]) {
  return async (query: CallLogsQuery): Promise<CallLogsResponse> => {
    calls.push(query);
    const cursor = query.start_after_ts;
    const after = cursor === undefined ? all : all.filter((r) => (semantics === 'strict' ? (r.ts as number) < cursor : (r.ts as number) <= cursor));
    const page = after.slice(0, query.limit ?? 20);
    const more = after.length > page.length;
    return { histories: page, next_cursor: more ? (page[page.length - 1]?.ts ?? 0) : 0 };
  };
}

async function walk(all: GlobalCallHistoryRecord[], semantics: Semantics, pageSize: number, max?: number) {
  const calls: CallLogsQuery[] = [];
  const seen: string[] = [];
  for await (const record of walkCallLogs(pager(all, semantics, calls), {}, { pageSize, ...(max === undefined ? {} : { max }) })) seen.push(record.call_id as string);
  return { seen, calls };
}

describe('walkCallLogs', () => {
  for (const semantics of ['strict', 'inclusive'] as const) {
    for (const tie of [1, 3, 7]) {
      for (const pageSize of [1, 10, 33, 100]) {
        if (tie >= pageSize && semantics === 'strict' && pageSize > 1) continue; // a tie group wider than a page cannot be paged by ts
        it(`${semantics} cursor, ${tie} record(s) per ts, pages of ${pageSize}: every record once, in order`, async () => {
          const all = records(tie);
          const { seen } = await walk(all, semantics, pageSize);
          expect(seen).toEqual(all.map((r) => r.call_id));
        });
      }
    }
  }

  it('stops at max, asking no more than needed', async () => {
    const all = records(1);
    const { seen, calls } = await walk(all, 'strict', 100, 250);
    expect(seen).toEqual(all.slice(0, 250).map((r) => r.call_id));
    // Each later page brings the boundary record again: 100 new, 99 new, then 51 new + 1 again.
    expect(calls.map((c) => c.limit)).toEqual([100, 100, 52]);
  });

  it('stops when the service repeats the same page forever', async () => {
    const same: CallLogsResponse = { histories: [{ call_id: 'x', ts: 5 }], next_cursor: 5 };
    const seen: string[] = [];
    for await (const record of walkCallLogs(async () => same, {}, {})) seen.push(record.call_id as string);
    expect(seen).toEqual(['x']);
  });

  it('passes the filters through on every page', async () => {
    const calls: CallLogsQuery[] = [];
    const all = records(1).slice(0, 150);
    const filters = { agent_id: 'a', call_status: 'COMPLETED', start_time: 1, end_time: 2e9, phone_number: '+1555', campaign_id: 'c' };
    for await (const _ of walkCallLogs(pager(all, 'strict', calls), filters, {})) void _;
    expect(calls).toHaveLength(2);
    for (const call of calls) expect(call).toMatchObject(filters);
  });
});
