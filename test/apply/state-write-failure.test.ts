/**
 * apply() when the state cannot be written midway (another run wrote it without the lock): the
 * outcome still lists what reached the service, marks what the state could not record, carries the
 * state's error, and the deploy ledger still gets its record. Nothing is thrown past the outcome.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply } from '../../src/apply/apply.js';
import { FileHistoryStore } from '../../src/history/file-store.js';
import { startLibraryService } from '../helpers/library-service.js';
import { RefusingWrites } from '../helpers/state.js';
import { ledgerRecords } from '../helpers/ledger.js';

describe('apply when a state write fails midway', () => {
  it('resolves to an outcome listing what reached the service, the state error, and a history record', async () => {
    const { client, key, dir, desired } = await startLibraryService();
    const history = new FileHistoryStore(path.join(dir, 'history'));
    const backend = new RefusingWrites(path.join(dir, 'state.json'));
    const outcome = await apply({
      desired,
      client,
      backend,
      serviceId: 'local',
      fingerprintKey: key,
      autoApprove: true,
      history,
      by: 'tester@host',
    });
    expect(outcome.status).toBe('failed');
    expect(outcome.stateError).toMatchObject({ code: 'state_conflict' });
    expect(outcome.applied.length).toBeGreaterThan(0);
    // Every change that reached the service is marked: the state recorded none of it.
    expect([...outcome.unrecorded].sort()).toEqual([...outcome.applied, ...outcome.partlyApplied.map((p) => p.address)].sort());
    expect(outcome.failed).toEqual([]);
    expect(outcome.record).toMatchObject({ outcome: 'failed', summary: { applied: outcome.applied.length } });
    expect(await ledgerRecords(history, { workspace: outcome.record!.workspace })).toHaveLength(1);
  });
});
