/**
 * A plan of many unchanged campaigns, with as many `--take-over` addresses: each campaign asks
 * whether it is taken over, and the list is read once for all of them, not once for each.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ApplyClient } from '../../src/apply/client.js';
import { executePlan } from '../../src/apply/execute-plan.js';
import type { SharedView } from '../../src/plan/shared-resources.js';
import type { Plan, ResourceChange } from '../../src/plan/types.js';
import { FileStateBackend } from '../../src/state/file-backend.js';
import { StateStore } from '../../src/state/state-file.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { useTempDirs } from '../helpers/cli.js';
import { desiredState } from '../helpers/desired.js';
import { countingReads } from '../helpers/counting-reads.js';

const tempDir = useTempDirs();

function unchangedCampaign(address: string): ResourceChange {
  return { address, kind: 'campaign', action: 'no-op', id: `cmp_${address}`, before: {}, after: {}, fieldChanges: [], sensitivePaths: [], reason: undefined, dependsOn: [], requests: [], liveFingerprint: '' };
}

describe('executePlan with many unchanged campaigns taken over', () => {
  it('reads the take-over list once, not once per campaign', async () => {
    const n = 3000;
    const addresses = Array.from({ length: n }, (_, i) => `campaign.recall-${i}`);
    const changes = addresses.map(unchangedCampaign);
    const desired = desiredState({});
    const plan: Plan = { formatVersion: 1, createdAt: '2026-01-01T00:00:00.000Z', manifestHash: desired.manifestHash, files: [], environment: undefined, baseUrl: 'local', targets: [], changes, summary: { create: 0, update: 0, unchanged: n, drifted: 0 } };
    // Each one writable by this environment next: the take-over list is asked of every one.
    const shared: SharedView = { environment: 'default', workspace: emptyWorkspace(), moves: new Map(), lastWriters: new Map(), nextWriteOrders: new Map(addresses.map((address) => [address, 1])) };
    const takeOver = countingReads([...addresses]);
    const store = await StateStore.open(new FileStateBackend(path.join(await tempDir(), 'state.json')), 'default@local', 'fingerprint-key');
    const result = await executePlan({ plan, desired, live: { agents: new Map(), phones: [] }, client: {} as ApplyClient, store, shared, takeOver: takeOver.list, parallelism: 8 });
    expect(result).toMatchObject({ applied: [], failed: [], stopped: [], interrupted: false });
    // Searched once per campaign: about n * n / 2 reads; read once: about 2 * n.
    expect(takeOver.reads()).toBeLessThan(10 * n);
  });
});
