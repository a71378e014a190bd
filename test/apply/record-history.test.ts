/**
 * apply() with a history store: the record's hashes are the hashes of what the service stores,
 * found with as few reads as is correct — the plan's read for an agent left alone, the read-back
 * after an update, one more read only after knowledge files were set or a change failed.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, type ApplyOptions } from '../../src/apply/apply.js';
import type { ApplyClient } from '../../src/apply/client.js';
import type { ApiClient } from '../../src/api/index.js';
import { configurationHash } from '../../src/history/config-hash.js';
import { FileHistoryStore } from '../../src/history/file-store.js';
import { HISTORY_RECORD_LIMITS } from '../../src/history/stored-record.js';
import type { HistoryRecord } from '../../src/history/types.js';
import type { DesiredState } from '../../src/manifest/types.js';
import type { UpdateAgentRequest } from '../../src/schema/types.gen.js';
import { startLibraryService } from '../helpers/library-service.js';
import { SECRETS } from '../helpers/project.js';
import { ledgerRecords } from '../helpers/ledger.js';

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const BOOKING = '-OKdqbqetEcM4ak369yn';

/**
 * The real client, counting agent reads by id, and failing one agent's update: its answer lost (the
 * update sent all the same), or with `refused`, the update never made.
 */
function countingClient(real: ApiClient, failUpdateOf?: string, refused = false): { client: ApplyClient; reads: Map<string, number> } {
  const reads = new Map<string, number>();
  const wrapped = Object.create(real) as ApplyClient;
  wrapped.getAgent = async (id: string) => {
    reads.set(id, (reads.get(id) ?? 0) + 1);
    return real.getAgent(id);
  };
  wrapped.updateAgent = async (id: string, body: UpdateAgentRequest) => {
    if (id === failUpdateOf && refused) throw new Error('the service refused the update');
    const answer = await real.updateAgent(id, body);
    if (id === failUpdateOf) throw new Error('the answer was lost');
    return answer;
  };
  return { client: wrapped, reads };
}

async function setUp(): Promise<{ client: ApiClient; desired: DesiredState; base: Omit<ApplyOptions, 'client'>; store: FileHistoryStore }> {
  const service = await startLibraryService();
  const { client, desired, dir } = service;
  const store = new FileHistoryStore(path.join(dir, 'history'));
  const base = { desired, stateFile: path.join(dir, 'state.json'), serviceId: 'local', fingerprintKey: service.key, autoApprove: true, history: store, source: { commit: 'a'.repeat(40) }, by: 'tester@host' };
  return { client, desired, base, store };
}

async function expectHashesOfService(client: ApiClient, record: HistoryRecord): Promise<void> {
  for (const version of Object.values(record.agents)) {
    const live = await client.getAgent(version.id);
    expect(version.configHash).toBe(configurationHash(live.config as Record<string, unknown>, { maskPaths: version.maskedPaths }));
  }
}

describe('apply records its history', () => {
  it('reads an agent again only when its knowledge files were set after the read-back', async () => {
    const { client, base, store } = await setUp();
    const { client: counting, reads } = countingClient(client);
    const outcome = await apply({ ...base, client: counting });
    expect(outcome.status).toBe('applied');
    // front-desk: the plan's read, the read-back after its update, one more after its files were set.
    expect(reads.get(FRONT_DESK)).toBe(3);
    // booking: the plan's read and the read-back after its update, nothing more.
    expect(reads.get(BOOKING)).toBe(2);
    const [record] = await ledgerRecords(store, { workspace: 'default@local' });
    expect(record?.id).toBe(outcome.record?.id);
    expect(record).toMatchObject({ by: 'tester@host', outcome: 'applied', source: { commit: 'a'.repeat(40) }, summary: { create: 3, update: 4, applied: 7, failed: 0, skipped: 0 } });
    expect(Object.keys(record!.agents).sort()).toEqual(['booking', 'front-desk']);
    await expectHashesOfService(client, record!);

    // Nothing to do: the plan's reads are the live state; no read more.
    reads.clear();
    const again = await apply({ ...base, client: counting });
    expect(again.status).toBe('nothing_to_do');
    expect([reads.get(FRONT_DESK), reads.get(BOOKING)]).toEqual([1, 1]);
    expect(again.record?.agents['front-desk']?.configHash).toBe(record!.agents['front-desk']?.configHash);
    expect(JSON.stringify(await ledgerRecords(store, { workspace: 'default@local' }))).not.toMatch(new RegExp(Object.values(SECRETS).join('|')));
  });

  it('reads a failed change again, so the record holds what the service kept', async () => {
    const { client, base, store } = await setUp();
    const { client: failing, reads } = countingClient(client, BOOKING);
    const outcome = await apply({ ...base, client: failing });
    expect(outcome.status).toBe('failed');
    expect(outcome.failed.map((f) => f.address)).toEqual(['agent.booking']);
    expect(reads.get(BOOKING)).toBe(2);
    const [record] = await ledgerRecords(store, { workspace: 'default@local' });
    expect(record).toMatchObject({ outcome: 'failed', summary: { failed: 1 } });
    await expectHashesOfService(client, record!);
  });

  it('leaves out an agent whose change did not apply: the record never claims a configuration the service does not hold', async () => {
    const { client, base, store } = await setUp();
    const { client: failing, reads } = countingClient(client, BOOKING, true);
    const outcome = await apply({ ...base, client: failing });
    expect(outcome.status).toBe('failed');
    expect(outcome.failed.map((f) => f.address)).toEqual(['agent.booking']);
    expect(reads.get(BOOKING)).toBe(2);
    const [record] = await ledgerRecords(store, { workspace: 'default@local' });
    expect(record).toMatchObject({ outcome: 'failed', summary: { failed: 1 } });
    expect(Object.keys(record!.agents)).toEqual(['front-desk']);
    await expectHashesOfService(client, record!);
  });

  it('says which agents it applied its record leaves out, as they could not be read after the apply: the history still takes their earlier configuration for current', async () => {
    const { client, base, store } = await setUp();
    const { client: counting, reads } = countingClient(client);
    // The plan reads the booking agent; every read after its update fails (a 429 that outlasts the retries).
    counting.getAgent = async (id: string) => {
      reads.set(id, (reads.get(id) ?? 0) + 1);
      if (id === BOOKING && (reads.get(id) ?? 0) > 1) throw new Error('the service answered 429 Too Many Requests');
      return client.getAgent(id);
    };
    const outcome = await apply({ ...base, client: counting });
    expect(outcome.status).toBe('applied');
    expect(outcome.applied).toContain('agent.booking');
    const [record] = await ledgerRecords(store, { workspace: 'default@local' });
    expect(Object.keys(record!.agents)).toEqual(['front-desk']);
    expect(outcome.warnings).toContain(
      "this apply's history record leaves out agent.booking, applied but not read after the apply: until a later apply records what the service runs, the history takes the configuration before this apply for current (`voxform rollback previous` and `voxform report` do not see this one)",
    );
  });

  it('leaves out an agent --target kept out of the plan while it does not run its manifest, reading nothing more', async () => {
    const { client, base, store } = await setUp();
    const { client: counting, reads } = countingClient(client);
    const outcome = await apply({ ...base, client: counting, targets: ['agent.booking'] });
    expect(outcome.status).toBe('applied');
    const [record] = await ledgerRecords(store, { workspace: 'default@local' });
    // The front desk is as the service had it before any apply, not as its manifest says.
    expect(Object.keys(record!.agents)).toEqual(['booking']);
    // Read once, for the plan (which reads every agent), and not again for the record.
    expect(reads.get(FRONT_DESK)).toBe(1);

    // Once it runs its manifest, it is recorded as the plan read it.
    await apply({ ...base, client: counting });
    const targeted = await apply({ ...base, client: counting, targets: ['agent.booking'] });
    expect(Object.keys(targeted.record!.agents).sort()).toEqual(['booking', 'front-desk']);
    await expectHashesOfService(client, targeted.record!);
  });

  it('records an agent whose knowledge files were set before Ctrl-C, without reading it again, and the next apply records it as well', async () => {
    const { client, base, store } = await setUp();
    const { client: counting, reads } = countingClient(client);
    const stop = new AbortController();
    // Ctrl-C as the service accepts the front desk's files: its last write; the read for the record is never made.
    counting.setAgentFiles = async (body) => {
      await client.setAgentFiles(body);
      if (body.agent_id === FRONT_DESK) stop.abort();
    };
    const outcome = await apply({ ...base, client: counting, signal: stop.signal });
    expect(outcome.status).toBe('interrupted');
    expect(outcome.applied).toContain('agent.front-desk');
    // The plan's read and the read-back after its update: none after the stop.
    expect(reads.get(FRONT_DESK)).toBe(2);
    const [record] = await ledgerRecords(store, { workspace: 'default@local' });
    expect(record).toMatchObject({ outcome: 'interrupted' });
    expect(record!.agents['front-desk']?.knowledge).toEqual(['faq']);
    await expectHashesOfService(client, record!);

    const again = await apply({ ...base, client: counting });
    expect(Object.keys(again.record!.agents)).toContain('front-desk');
    expect(again.record!.agents['front-desk']?.configHash).toBe(record!.agents['front-desk']?.configHash);
    await expectHashesOfService(client, again.record!);
  });

  it('records nothing when the apply is cancelled', async () => {
    const { client, base, store } = await setUp();
    const outcome = await apply({ ...base, autoApprove: false, confirm: async () => false, client: client });
    expect(outcome.status).toBe('cancelled');
    expect(outcome.record).toBeUndefined();
    expect(await ledgerRecords(store, { workspace: 'default@local' })).toEqual([]);
  });
});

describe('apply never writes a record the ledger could not read back', () => {
  it('leaves out a record past the limits its readers apply, and says so and why; the changes stand', async () => {
    const { client, base } = await setUp();
    const store = new FileHistoryStore(path.join(path.dirname(base.stateFile as string), 'history'), { ...HISTORY_RECORD_LIMITS, maxValues: 20 });
    const outcome = await apply({ ...base, client, history: store });
    expect(outcome.status).toBe('applied');
    expect(outcome.record).toBeUndefined();
    expect(outcome.warnings).toContainEqual(
      expect.stringMatching(/^this apply was not recorded in the history: its record \(2 agents\) holds more than 20 JSON values, the limit for a history record, so `voxform history`, `rollback` and `report` could not read it back; it was not written\. Keep fewer agents/),
    );
    const skipped: unknown[] = [];
    expect(await ledgerRecords(store, { workspace: 'default@local', onSkipped: (s) => skipped.push(s) })).toEqual([]);
    expect(skipped, 'nothing was left for history to skip').toEqual([]);
  });
});
