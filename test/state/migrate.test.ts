/**
 * `voxform state migrate` between every pair of backends (file and a real PostgreSQL): the
 * workspaces and the whole ledger — applies' records and test runs' evidence, which
 * `voxform promote` reads — arrive, ids kept, and a target that holds test runs counts as not empty.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryRecord, TestRunRecord } from '../../src/history/types.js';
import type { StateBackend } from '../../src/state/backend.js';
import { migrateState } from '../../src/state/migrate.js';
import { openStateSpec } from '../../src/state/open.js';
import { StateStore } from '../../src/state/state-file.js';
import { repoRoot } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';

const WORKSPACE = 'default@local';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

type Kind = 'file' | 'postgres';

async function openNew(kind: Kind): Promise<StateBackend> {
  let spec: string;
  if (kind === 'file') {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-migrate-'));
    cleanups.push(() => rm(dir, { recursive: true, force: true }));
    spec = path.join(dir, 'state.json');
  } else {
    spec = (await freshDatabase()).url;
  }
  const backend = await openStateSpec(spec, { cwd: repoRoot, registerSecret: () => undefined });
  cleanups.push(() => backend.close());
  return backend;
}

function apply(workspace: string): Omit<HistoryRecord, 'id'> {
  return {
    workspace,
    at: '2026-11-23T12:00:00.000Z',
    by: 'ana@laptop',
    command: 'voxform apply',
    outcome: 'applied',
    source: { commit: 'a'.repeat(40), branch: 'main' },
    summary: { create: 1, update: 0, unchanged: 0, drifted: 0, applied: 1, failed: 0, skipped: 0 },
    agents: { front: { id: 'a1', config: { prompt: 'Hi' }, configHash: `sha256:${'1'.repeat(64)}`, maskedPaths: [] } },
  };
}

function testRun(workspace: string, at: string): Omit<TestRunRecord, 'id'> {
  return {
    workspace,
    at,
    by: 'ana@laptop',
    command: 'voxform test --against live',
    source: { commit: 'a'.repeat(40), uncommitted: false },
    agents: { front: { id: 'a1', configHash: `sha256:${'1'.repeat(64)}` } },
    summary: { passed: 2, failed: 0, skipped: 0, errors: 0 },
    tests: [{ file: 'tests/front.test.yaml', agent: 'front', name: 'greets', status: 'passed', passes: 1, runs: 1, passRate: 1 }],
  };
}

const pairs: Array<[Kind, Kind]> = [
  ['file', 'postgres'],
  ['postgres', 'file'],
  ['file', 'file'],
  ['postgres', 'postgres'],
];

describe.each(pairs)('state migrate from %s to %s', (from, to) => {
  it('copies the workspaces, the applies\' records and the test runs\' evidence, ids kept', async () => {
    const source = await openNew(from);
    const store = await StateStore.open(source, WORKSPACE, 'key');
    await store.update((ws) => (ws.credentials['credential.c'] = { fingerprint: 'sha256:c' }));
    const applied = await source.history.append(apply(WORKSPACE));
    const runs = [
      await source.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T13:00:00.000Z')),
      await source.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T14:00:00.000Z')),
      await source.history.appendTestRun(testRun('staging@local', '2026-11-23T15:00:00.000Z')),
    ];
    const target = await openNew(to);

    const result = await migrateState(source, target, { force: false });

    expect(result).toEqual({ workspaces: [WORKSPACE], historyRecords: 1, testRuns: 3 });
    expect(Object.keys((await target.readWorkspace(WORKSPACE)).workspace.credentials)).toEqual(['credential.c']);
    expect(await target.history.list({ workspace: WORKSPACE })).toEqual([applied]);
    expect(await target.history.listTestRuns({ workspace: WORKSPACE })).toEqual([runs[1], runs[0]]);
    expect(await target.history.listTestRuns({ workspace: 'staging@local' })).toEqual([runs[2]]);
  });

  it('refuses a target that holds only test runs unless --force, which adds the runs it lacks', async () => {
    const source = await openNew(from);
    const mine = await source.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T13:00:00.000Z'));
    const target = await openNew(to);
    const theirs = await target.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T12:00:00.000Z'));

    await expect(migrateState(source, target, { force: false })).rejects.toMatchObject({
      code: 'state_migrate_refused',
      message: expect.stringContaining('already holds 0 workspaces, 0 history records and 1 test run; nothing was copied.'),
    });
    expect(await target.history.listTestRuns({ workspace: WORKSPACE })).toEqual([theirs]);

    expect(await migrateState(source, target, { force: true })).toEqual({ workspaces: [], historyRecords: 0, testRuns: 1 });
    expect(await target.history.listTestRuns({ workspace: WORKSPACE })).toEqual([mine, theirs]);
  });
});
