/** Call records and apply history records for the report's tests, built like the service and voxform write them. */
import { configurationHash } from '../../src/history/config-hash.js';
import type { HistoryRecord } from '../../src/history/types.js';
import type { GlobalCallHistoryRecord } from '../../src/schema/types.gen.js';

export const PLANTED_HEADER = 'planted-tool-token-5e4d3c2b1a';

export function agentConfig(prompt: string, header = PLANTED_HEADER): Record<string, unknown> {
  return {
    prompt,
    first_message: 'Hello!',
    language: 'en-US',
    tools: [{ name: 'lookup', description: 'find a booking', header: { authorization: header }, webhook: 'https://hooks.example.test/lookup' }],
  };
}

let sequence = 0;

/** A history record deploying `configs` (agent id → config) at `at`. */
export function historyRecord(at: string, configs: Record<string, { name: string; config: Record<string, unknown> }>, source: HistoryRecord['source'] = {}): HistoryRecord {
  sequence++;
  return {
    id: `${at.replace(/[-:.]/g, '').slice(0, 15)}Z-${String(sequence).padStart(6, '0')}`,
    workspace: 'default@local',
    at,
    by: 'dev@laptop',
    command: 'voxform apply',
    outcome: 'applied',
    source,
    summary: { create: 0, update: 1, unchanged: 0, drifted: 0, applied: 1, failed: 0, skipped: 0 },
    agents: Object.fromEntries(
      Object.entries(configs).map(([id, { name, config }]) => [
        name,
        { id, config, configHash: configurationHash(config), maskedPaths: [], promptLength: typeof config.prompt === 'string' ? config.prompt.length : undefined },
      ]),
    ),
  };
}

export interface CallSpec {
  agentId: string;
  config: Record<string, unknown>;
  ts: number;
  status?: string;
  duration?: number;
  credit?: number;
  functionCalls?: Array<Record<string, unknown>>;
}

export function callRecord(spec: CallSpec): GlobalCallHistoryRecord {
  sequence++;
  return {
    call_id: `call-${sequence}`,
    agent_id: spec.agentId,
    ts: spec.ts,
    call_status: spec.status ?? 'user-ended',
    duration: spec.duration ?? 60,
    agent_config: spec.config,
    cost_breakdown: [{ type: 'llm', credit: spec.credit ?? 0.1 }],
    function_calls: spec.functionCalls ?? [],
  } as GlobalCallHistoryRecord;
}

/** Newest first, as the call log is read. */
export async function* newestFirst(records: GlobalCallHistoryRecord[]): AsyncIterable<GlobalCallHistoryRecord> {
  yield* [...records].sort((a, b) => (b.ts as number) - (a.ts as number));
}
