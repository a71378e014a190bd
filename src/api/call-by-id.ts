/** Finding one call record by its id, which the service cannot look up: its logs are read newest first. */
import type { GlobalCallHistoryRecord } from '../schema/types.gen.js';
import { VoxformError } from '../errors.js';
import { formatCount } from '../util/plural.js';
import type { ApiClient, CallLogFilters } from './client.js';

/** How many of the newest call records are searched: a call further back is refused, not read for. */
const CALL_SEARCH_DEPTH = 10_000;

/** The call record of `callId` among the newest CALL_SEARCH_DEPTH (of `filters`); `call_not_found` with `hint` when none is. */
export async function callById(client: Pick<ApiClient, 'iterateCallLogs'>, callId: string, how: { filters?: CallLogFilters; whose?: string; hint: string }): Promise<GlobalCallHistoryRecord> {
  for await (const record of client.iterateCallLogs(how.filters ?? {}, { max: CALL_SEARCH_DEPTH })) {
    if (record.call_id === callId) return record;
  }
  throw new VoxformError('call_not_found', `No call ${callId}${how.whose ?? ''} in the ${formatCount(CALL_SEARCH_DEPTH)} most recent call records.`, { hint: how.hint });
}
