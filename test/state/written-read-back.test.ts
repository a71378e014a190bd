/**
 * What voxform writes to a state backend, it reads back: a history record, a test run's evidence or a
 * state past the limits their readers apply is refused before it is written, in both backends (the
 * limits lowered here, so no giant fixture is needed).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { HistoryRecord, SkippedRecord, TestRunRecord } from '../../src/history/types.js';
import { openStateSpec } from '../../src/state/open.js';
import type { StateBackend } from '../../src/state/backend.js';
import { emptyWorkspace, type WorkspaceState } from '../../src/state/types.js';
import { repoRoot } from '../helpers/cli.js';
import { freshDatabase } from '../helpers/postgres.js';
import { ledgerRecords, TEST_SEAL_KEY } from '../helpers/ledger.js';

vi.mock('../../src/project-files/limits.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/project-files/limits.js')>()),
  MAX_HISTORY_RECORD_JSON_VALUES: 200,
  MAX_STATE_JSON_VALUES: 300,
}));

const WORKSPACE = 'default@local';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

const kinds: Array<{ kind: string; spec: () => Promise<string> }> = [
  {
    kind: 'file',
    spec: async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'voxform-read-back-'));
      cleanups.push(() => rm(dir, { recursive: true, force: true }));
      return path.join(dir, 'state.json');
    },
  },
  { kind: 'postgres', spec: async () => (await freshDatabase()).url },
];

async function open(spec: string): Promise<StateBackend> {
  const backend = await openStateSpec(spec, { env: process.env, cwd: repoRoot, registerSecret: () => undefined });
  cleanups.push(() => backend.close());
  return backend;
}

/** A record of `count` agents: six JSON values each, and about 20 more. */
function record(count: number): Omit<HistoryRecord, 'id'> {
  const agents: HistoryRecord['agents'] = {};
  for (let i = 0; i < count; i++) agents[`agent-${i}`] = { id: `ag${i}`, config: { prompt: `Hi ${i}` }, configHash: `sha256:${'1'.repeat(64)}`, maskedPaths: [] };
  return {
    workspace: WORKSPACE,
    at: '2026-11-23T12:00:00.000Z',
    by: 'ana@laptop',
    command: 'voxform apply',
    outcome: 'applied',
    source: { commit: 'a'.repeat(40) },
    summary: { create: 0, update: count, unchanged: 0, drifted: 0, applied: count, failed: 0, skipped: 0 },
    agents,
  };
}

/** A test run's evidence of one passed test. */
function testRun(): Omit<TestRunRecord, 'id'> {
  return {
    workspace: WORKSPACE,
    at: '2026-11-23T12:00:00.000Z',
    by: 'ana@laptop',
    command: 'voxform test --against live',
    source: { commit: 'a'.repeat(40) },
    agents: { front: { id: 'a1', configHash: `sha256:${'1'.repeat(64)}` } },
    summary: { passed: 1, failed: 0, skipped: 0, errors: 0 },
    tests: [{ file: 'tests/front.test.yaml', agent: 'front', name: 'greets', status: 'passed', passes: 1, runs: 1, passRate: 1 }],
  };
}

/** A workspace whose one agent has `fields` managed fields: a value each, and a few more. */
function workspaceOf(fields: number): WorkspaceState {
  const applied = Object.fromEntries(Array.from({ length: fields }, (_, i) => [`config.custom_vocabulary.keywords.k${i}`, `hmac-sha256:${'2'.repeat(64)}`]));
  return { ...emptyWorkspace(), agents: { 'agent.desk': { id: 'ag1', applied } } };
}

describe.each(kinds)('$kind backend', ({ spec }) => {
  it('refuses a history record its readers would skip, and writes nothing; one within the limits is read back', async () => {
    const backend = await open(await spec());
    await expect(backend.history.append(record(40), TEST_SEAL_KEY)).rejects.toMatchObject({
      code: 'history_record_too_large',
      message: expect.stringContaining('its record (40 agents) holds more than 200 JSON values, the limit for a history record'),
    });
    const skipped: SkippedRecord[] = [];
    expect(await ledgerRecords(backend.history, { workspace: WORKSPACE, onSkipped: (s) => skipped.push(s) })).toEqual([]);
    const written = await backend.history.append(record(5), TEST_SEAL_KEY);
    expect((await ledgerRecords(backend.history, { workspace: WORKSPACE, onSkipped: (s) => skipped.push(s) })).map((r) => r.id)).toEqual([written.id]);
    expect(skipped).toEqual([]);
  });

  it('refuses a history record with a field its readers would skip it for, naming the field, and writes nothing', async () => {
    const backend = await open(await spec());
    await expect(backend.history.append({ ...record(1), source: { commit: 'abc' } }, TEST_SEAL_KEY)).rejects.toMatchObject({
      code: 'history_record_invalid',
      message: expect.stringContaining('(source.commit: not a commit id (40 or 64 hex digits)); it was not written'),
    });
    await expect(backend.history.append({ ...record(1), at: 'yesterday' }, TEST_SEAL_KEY)).rejects.toMatchObject({ code: 'history_record_invalid', message: expect.stringContaining('(at: not a time') });
    const skipped: SkippedRecord[] = [];
    expect(await ledgerRecords(backend.history, { workspace: WORKSPACE, onSkipped: (s) => skipped.push(s) })).toEqual([]);
    expect(skipped).toEqual([]);
  });

  it("refuses a test run's evidence its readers would skip, naming the field, and writes nothing; a fitting one is read back", async () => {
    const backend = await open(await spec());
    const passRateOver = { ...testRun(), tests: [{ ...testRun().tests[0]!, passRate: 2 }] };
    await expect(backend.history.appendTestRun(passRateOver, TEST_SEAL_KEY)).rejects.toMatchObject({ code: 'history_record_invalid', message: expect.stringContaining('passRate: not a fraction') });
    await expect(backend.history.appendTestRun({ ...testRun(), source: { commit: 'abc' } }, TEST_SEAL_KEY)).rejects.toMatchObject({ code: 'history_record_invalid', message: expect.stringContaining('source.commit') });
    const skipped: SkippedRecord[] = [];
    expect(await backend.history.listTestRuns({ workspace: WORKSPACE, onSkipped: (s) => skipped.push(s) })).toEqual([]);
    const written = await backend.history.appendTestRun(testRun(), TEST_SEAL_KEY);
    expect((await backend.history.listTestRuns({ workspace: WORKSPACE, onSkipped: (s) => skipped.push(s) })).map((r) => r.id)).toEqual([written.id]);
    expect(skipped).toEqual([]);
  });

  it('refuses a state its readers would refuse, and keeps the one before it', async () => {
    const backend = await open(await spec());
    const { serial } = await backend.writeWorkspace(WORKSPACE, workspaceOf(10), 0);
    await expect(backend.writeWorkspace(WORKSPACE, workspaceOf(400), serial)).rejects.toMatchObject({
      code: 'state_too_large',
      message: expect.stringContaining('would be written as JSON that holds more than 300 JSON values, the limit for a state'),
    });
    const read = await backend.readWorkspace(WORKSPACE);
    expect([read.serial, Object.keys(read.workspace.agents['agent.desk']?.applied ?? {}).length]).toEqual([serial, 10]);
  });
});
