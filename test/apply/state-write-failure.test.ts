/**
 * apply() when the state cannot be written midway (another run wrote it without the lock): the
 * outcome still lists what reached the service, marks what the state could not record, carries the
 * state's error, and the deploy ledger still gets its record. Nothing is thrown past the outcome.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { apply } from '../../src/apply/apply.js';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { FileHistoryStore } from '../../src/history/file-store.js';
import { loadManifests } from '../../src/manifest/index.js';
import type { DesiredState } from '../../src/manifest/types.js';
import { fingerprintKey } from '../../src/util/hash.js';
import { repoRoot } from '../helpers/cli.js';
import { SECRETS } from '../helpers/project.js';
import { RefusingWrites } from '../helpers/state.js';

let emulator: RunningEmulator | undefined;
let client: ApiClient | undefined;
let dir: string | undefined;
afterEach(async () => {
  await client?.close();
  await emulator?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
  emulator = client = dir = undefined;
});

describe('apply when a state write fails midway', () => {
  it('resolves to an outcome listing what reached the service, the state error, and a history record', async () => {
    emulator = await startEmulator({ quiet: true });
    client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
    dir = await mkdtemp(path.join(tmpdir(), 'voxform-state-failure-'));
    const { state } = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
    const history = new FileHistoryStore(path.join(dir, 'history'));
    const backend = new RefusingWrites(path.join(dir, 'state.json'));
    const outcome = await apply({
      desired: state as DesiredState,
      client,
      backend,
      serviceId: 'local',
      fingerprintKey: fingerprintKey(emulator.apiKey),
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
    expect(await history.list({ workspace: outcome.record!.workspace })).toHaveLength(1);
  });
});
