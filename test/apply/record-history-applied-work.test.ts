/**
 * The history record of an apply that changed many agents asks, for each agent, whether its change
 * applied: the run's list of applied changes is read once, not once per agent.
 */
import { describe, expect, it } from 'vitest';
import type { ApplyClient } from '../../src/apply/client.js';
import { nothingRan } from '../../src/apply/execute-plan.js';
import { AgentReadBacks, recordHistory } from '../../src/apply/record-history.js';
import { ledgerSealKey } from '../../src/history/seal.js';
import type { HistoryRecord, HistoryStore } from '../../src/history/types.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';
import { desiredAgent, desiredState } from '../helpers/desired.js';
import { countingReads } from '../helpers/counting-reads.js';

function updateOf(address: string, id: string): ResourceChange {
  const readBack = { id: `${address}/2`, operation: 'read_agent' as const, method: 'GET' as const, path: `/agents/${id}`, body: undefined, fills: [], dependsOn: [] };
  return { address, kind: 'agent', action: 'update', id, before: {}, after: {}, fieldChanges: [], sensitivePaths: [], reason: undefined, dependsOn: [], requests: [readBack], liveFingerprint: '' };
}

describe('the history record of an apply of many agents', () => {
  it('reads the list of applied changes once, not once per agent', async () => {
    const n = 3000;
    const agents = Array.from({ length: n }, (_, i) => desiredAgent(`agent-${i}`, { id: `a${i}` }));
    const desired = desiredState({ agents });
    const changes = agents.map((agent) => updateOf(agent.address, agent.id));
    const plan: Plan = { formatVersion: 1, createdAt: '2026-01-01T00:00:00.000Z', manifestHash: desired.manifestHash, files: [], environment: undefined, baseUrl: 'local', targets: [], changes, summary: { create: 0, update: n, unchanged: 0, drifted: 0 } };
    const applied = countingReads(changes.map((change) => change.address));
    const result = { ...nothingRan(), applied: applied.list };
    const appended: HistoryRecord[] = [];
    const history = { append: async (record) => (appended.push({ ...record, id: 'r1' } as HistoryRecord), appended[0]!) } as Pick<HistoryStore, 'append'> as HistoryStore;
    // Stopped: no agent is read again, and none was read back, so each is left out of the record.
    const stopped = new AbortController();
    stopped.abort();
    const { writtenLeftOut } = await recordHistory({
      history,
      sealKey: ledgerSealKey('key'),
      desired,
      plan,
      live: { agents: new Map(), phones: [] },
      result,
      readBacks: new AgentReadBacks(desired),
      client: {} as ApplyClient,
      workspace: 'default@local',
      outcome: 'interrupted',
      command: 'voxform apply',
      by: 'tester@host',
      source: {},
      signal: stopped.signal,
    });
    expect(writtenLeftOut).toHaveLength(n);
    expect(appended[0]?.summary).toMatchObject({ applied: n });
    // Searched once per agent: about n * n / 2 reads; read once: about 2 * n.
    expect(applied.reads()).toBeLessThan(10 * n);
  });
});
