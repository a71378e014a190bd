/** GET /call-logs (the global log) and GET /agents/{agent_id}/call-histories (one agent's). */
import type { CallHistoryRecord, CallLogsQuery } from '../../schema/types.gen.js';
import { json, NOT_FOUND } from '../http.js';
import { takePage } from '../pagination.js';
import { route, type Route } from '../router.js';
import type { CallRecord } from '../types.js';

const DEFAULT_LIMIT = 20;

/** Digits only (and a leading +), so `(555) 123-0001` and `+15551230001` can be compared. */
const normalizeNumber = (value: string) => value.replace(/[^\d+]/g, '');

/** Whether a phone filter matches the call's `voip` from or to: the filter's digits inside either number. */
function voipMatches(record: CallRecord, filter: string): boolean {
  const wanted = normalizeNumber(filter).replace(/^\+/, '');
  if (wanted === '') return false;
  const voip = record.voip ?? {};
  return [voip.from, voip.to].some((n) => typeof n === 'string' && normalizeNumber(n).includes(wanted));
}

/** The filters of GET /call-logs (its query but the paging parameters). */
function matcher(filter: CallLogsQuery): (record: CallRecord) => boolean {
  const status = filter.call_status?.toLowerCase();
  return (record) =>
    (filter.start_time === undefined || record.ts >= filter.start_time) &&
    (filter.end_time === undefined || record.ts <= filter.end_time) &&
    (filter.agent_id === undefined || record.agent_id === filter.agent_id) &&
    (status === undefined || (record.call_status ?? '').toLowerCase() === status) &&
    (filter.campaign_id === undefined || record.campaign_id === filter.campaign_id) &&
    (filter.phone_number === undefined || voipMatches(record, filter.phone_number));
}

/** The agent-level shape: without the fields only the global log carries. */
function agentLevel(record: CallRecord): CallHistoryRecord {
  const { campaign_id: _c, error_message: _e, call_metrics: _m, carrier_call_log: _l, ...rest } = record;
  return rest;
}

export const callLogRoutes: Route[] = [
  route('GET /call-logs', 'list call histories', { header: 'required', query: 'CallLogsQuery' }, ({ core, query }) => {
    const q = query as CallLogsQuery;
    const window = { before: q.start_after_ts || undefined, atMost: q.end_time, atLeast: q.start_time };
    const page = takePage(core.store.callLog.range(window), matcher(q), q.limit ?? DEFAULT_LIMIT);
    const last = page.records[page.records.length - 1];
    return { status: 200, json: { histories: page.records, next_cursor: page.more && last ? last.ts : 0 } };
  }),
  route('GET /agents/{agent_id}/call-histories', 'list agent call histories', { header: 'unshown', query: 'CallHistoriesQuery' }, ({ core, params, query }) => {
    const agentId = params.agent_id as string;
    if (!core.store.agents.has(agentId)) return NOT_FOUND();
    const q = query as { start_at?: number; limit?: number };
    const page = takePage(core.store.callLog.range({ before: q.start_at || undefined }), (r) => r.agent_id === agentId, q.limit ?? DEFAULT_LIMIT);
    const last = page.records[page.records.length - 1];
    return json(200, {
      items: page.records.map(agentLevel),
      pagination: { success: true, ...(page.more && last ? { next_cursor: last.ts } : {}) },
    });
  }),
];
