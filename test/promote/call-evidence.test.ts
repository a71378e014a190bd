import { describe, expect, it } from 'vitest';
import type { CallLogFilters } from '../../src/api/index.js';
import { readCallEvidence } from '../../src/promote/call-evidence.js';
import { checkGates } from '../../src/promote/gates.js';
import type { GlobalCallHistoryRecord } from '../../src/schema/types.gen.js';
import { agentConfig, callRecord, historyRecord, newestFirst } from '../report/helpers.js';

const AGENT = 'ag_desk';
const at = (time: string) => Date.parse(`2026-11-28T${time}:00.000Z`) / 1000;

/** `count` calls of `config`, one a minute from `from`. */
function callsOf(config: Record<string, unknown>, from: string, count: number): GlobalCallHistoryRecord[] {
  return Array.from({ length: count }, (_, index) => callRecord({ agentId: AGENT, config, ts: at(from) + 30 + index * 20 }));
}

/** A call log answering as the service does: the agent's calls between the filter's times (both inclusive), newest first. */
function callLog(calls: GlobalCallHistoryRecord[]) {
  return {
    iterateCallLogs: (filters: CallLogFilters = {}) =>
      newestFirst(calls.filter((call) => call.agent_id === filters.agent_id && (filters.start_time === undefined || (call.ts as number) >= filters.start_time) && (filters.end_time === undefined || (call.ts as number) <= filters.end_time))),
  };
}

describe('the call evidence of promotion', () => {
  it('counts, for min_calls, the calls of the configuration the source runs from before a rollback put it back', async () => {
    const [v1, v2, v3] = [agentConfig('You are the front desk.'), agentConfig('You are the front desk. Be brief.'), agentConfig('You are the front desk. Be chatty.')];
    const first = historyRecord('2026-11-28T08:00:00.000Z', { [AGENT]: { name: 'desk', config: v1 } });
    const second = historyRecord('2026-11-28T09:00:00.000Z', { [AGENT]: { name: 'desk', config: v2 } });
    const third = historyRecord('2026-11-28T10:00:00.000Z', { [AGENT]: { name: 'desk', config: v3 } });
    const rollback = historyRecord('2026-11-28T10:30:00.000Z', { [AGENT]: { name: 'desk', config: v2 } }, { rollbackOf: second.id });
    const records = [rollback, third, second, first];
    const client = callLog([...callsOf(v1, '08:00', 40), ...callsOf(v2, '09:00', 80), ...callsOf(v3, '10:00', 40)]);
    const now = new Date('2026-11-28T10:35:00.000Z');
    const calls = await readCallEvidence({ client, workspace: 'staging@local', records, current: rollback, now, parallelism: 2 });
    const gates = { minCalls: 50, noRegression: ['error_rate' as const], soak: { text: '1h', seconds: 3600 } };
    expect(checkGates(gates, { source: 'staging', records, current: rollback, origin: second, testRuns: [], calls, now }).map((result) => [result.gate, result.passed, result.evidence])).toEqual([
      ['min_calls', true, 'desk ran 80 calls'],
      ['no_regression', true, 'no call yet since this configuration was deployed again to compare (min_calls is the gate for that)'],
      ['soak', false, 'deployed again by a rollback 5 min ago, 1h required'],
    ]);
  });
});
