/**
 * Reading the call log for the report. A cursor-paged walk is a chain of round trips, so a window
 * with a start is cut into equal time slices walked at once; without a start, one chain.
 */
import type { ApiClient, CallLogFilters } from '../api/index.js';
import type { GlobalCallHistoryRecord } from '../schema/types.gen.js';

/** Slices walked at once. */
export const SLICES = 4;

interface CallWindow {
  /** Unix seconds. */
  since?: number | undefined;
  until?: number | undefined;
}

/** The call log of the window (`filters` besides its times), as one stream per slice (to be read concurrently; together, every call once). */
export function readCallLog(client: Pick<ApiClient, 'iterateCallLogs'>, filters: Omit<CallLogFilters, 'start_time' | 'end_time'>, window: CallWindow, now: number): Array<AsyncIterable<GlobalCallHistoryRecord>> {
  const base: CallLogFilters = { ...filters, ...(window.since === undefined ? {} : { start_time: window.since }), ...(window.until === undefined ? {} : { end_time: window.until }) };
  if (window.since === undefined) return [client.iterateCallLogs(base)];
  const end = window.until ?? now;
  if (!(end > window.since)) return [client.iterateCallLogs(base)];
  const bounds = Array.from({ length: SLICES + 1 }, (_, i) => (i === SLICES ? end : window.since! + ((end - window.since!) * i) / SLICES));
  return bounds.slice(0, -1).map((start, i) => {
    const last = i === SLICES - 1;
    const upper = bounds[i + 1] as number;
    // The last slice keeps the user's end (none: calls stamped a little after our clock's now count too).
    const sliceFilters: CallLogFilters = { ...base, start_time: start, ...(last ? {} : { end_time: upper }) };
    // Both filter ends are inclusive: a call exactly on a boundary belongs to the later slice.
    return last ? client.iterateCallLogs(sliceFilters) : below(client.iterateCallLogs(sliceFilters), upper);
  });
}

async function* below(records: AsyncIterable<GlobalCallHistoryRecord>, upper: number): AsyncIterable<GlobalCallHistoryRecord> {
  for await (const record of records) if (!(typeof record.ts === 'number' && record.ts >= upper)) yield record;
}
