/**
 * `voxform state migrate` between every pair of backends (file and a real PostgreSQL): the
 * workspaces and the whole ledger — applies' records and test runs' evidence, which
 * `voxform promote` reads — arrive, ids kept, and a target that holds test runs counts as not empty.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TestRunRecord } from '../../src/history/types.js';
import { sealVerifies } from '../../src/history/seal.js';
import type { StateBackend } from '../../src/state/backend.js';
import { migrateState } from '../../src/state/migrate.js';
import { openStateSpec } from '../../src/state/open.js';
import { StateStore } from '../../src/state/state-file.js';
import { FileWriteError } from '../../src/util/atomic-write.js';
import { repoRoot } from '../helpers/cli.js';
import { freshDatabase, PLANTED_DB_PASSWORD, silentDatabase } from '../helpers/postgres.js';
import { ledgerRecords, oneAgentApply as apply, TEST_SEAL_KEY } from '../helpers/ledger.js';

const WORKSPACE = 'default@local';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

type Kind = 'file' | 'postgres';

/** A new empty state of `kind`, as `--state` would name it. */
async function newSpec(kind: Kind): Promise<string> {
  if (kind === 'postgres') return (await freshDatabase()).url;
  const dir = await mkdtemp(path.join(tmpdir(), 'voxform-migrate-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return path.join(dir, 'state.json');
}

async function openSpec(spec: string): Promise<StateBackend> {
  const backend = await openStateSpec(spec, { env: process.env, cwd: repoRoot, registerSecret: () => undefined });
  cleanups.push(() => backend.close());
  return backend;
}

async function openNew(kind: Kind): Promise<StateBackend> {
  return openSpec(await newSpec(kind));
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
    const applied = await source.history.append(apply(WORKSPACE), TEST_SEAL_KEY);
    const runs = [
      await source.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T13:00:00.000Z'), TEST_SEAL_KEY),
      await source.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T14:00:00.000Z'), TEST_SEAL_KEY),
      await source.history.appendTestRun(testRun('staging@local', '2026-11-23T15:00:00.000Z'), TEST_SEAL_KEY),
    ];
    const target = await openNew(to);

    const result = await migrateState(source, target, { force: false });

    expect(result).toEqual({ workspaces: [WORKSPACE], historyRecords: 1, testRuns: 3 });
    expect(Object.keys((await target.readWorkspace(WORKSPACE)).workspace.credentials)).toEqual(['credential.c']);
    expect(await ledgerRecords(target.history, { workspace: WORKSPACE })).toEqual([applied]);
    expect(await target.history.listTestRuns({ workspace: WORKSPACE })).toEqual([runs[1], runs[0]]);
    expect(await target.history.listTestRuns({ workspace: 'staging@local' })).toEqual([runs[2]]);
    // Copied unchanged, each still carries a seal that verifies: promotion takes the copy as evidence.
    const copied = [...(await ledgerRecords(target.history, { workspace: WORKSPACE })), ...(await target.history.listTestRuns({ workspace: WORKSPACE }))];
    expect(copied.map((record) => sealVerifies(TEST_SEAL_KEY, record))).toEqual([true, true, true]);
    for await (const summary of target.history.summaries({ workspace: WORKSPACE, sealKey: TEST_SEAL_KEY })) expect(summary.sealed).toBe(true);
  });

  it('refuses a target that holds only test runs unless --force, which adds the runs it lacks', async () => {
    const source = await openNew(from);
    const mine = await source.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T13:00:00.000Z'), TEST_SEAL_KEY);
    const target = await openNew(to);
    const theirs = await target.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T12:00:00.000Z'), TEST_SEAL_KEY);

    await expect(migrateState(source, target, { force: false })).rejects.toMatchObject({
      code: 'state_migrate_refused',
      message: expect.stringContaining('already holds 0 workspaces, 0 history records and 1 test run; nothing was copied.'),
    });
    expect(await target.history.listTestRuns({ workspace: WORKSPACE })).toEqual([theirs]);

    expect(await migrateState(source, target, { force: true })).toEqual({ workspaces: [], historyRecords: 0, testRuns: 1 });
    expect(await target.history.listTestRuns({ workspace: WORKSPACE })).toEqual([mine, theirs]);
  });
});

describe.each(pairs)('state migrate --force from %s to %s, the target applied since its copy was made', (from, to) => {
  /** Records an apply that ended at `at` in the workspace's state and in the ledger, as apply does. */
  async function applyAt(backend: StateBackend, at: string, prompt: string): Promise<void> {
    await (await StateStore.open(backend, WORKSPACE, 'key')).updateNow((ws) => {
      ws.credentials['credential.c'] = { fingerprint: `sha256:${prompt}` };
      ws.lastApply = { at, by: 'ana@laptop', command: 'voxform apply', outcome: 'applied', applied: 1, failed: 0, skipped: 0 };
    });
    await backend.history.append({ ...apply(WORKSPACE), at }, TEST_SEAL_KEY);
  }

  /** A source applied once, migrated to a new target; each opened afresh, as the next command would (a file backend's read may share objects with what it wrote). */
  async function migratedPair(): Promise<[StateBackend, StateBackend]> {
    const [sourceSpec, targetSpec] = [await newSpec(from), await newSpec(to)];
    const source = await openSpec(sourceSpec);
    await applyAt(source, '2026-11-23T12:00:00.000Z', 'old');
    await migrateState(source, await openSpec(targetSpec), { force: false });
    return [await openSpec(sourceSpec), await openSpec(targetSpec)];
  }

  it('refuses, writing nothing, and names both sides; migrating the other way first lets it through', async () => {
    const [source, target] = await migratedPair();
    await applyAt(target, '2026-11-23T13:00:00.000Z', 'new');
    const before = await target.readWorkspace(WORKSPACE);

    const error = await migrateState(source, target, { force: true }).catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'state_migrate_refused' });
    const { message, hint } = error as { message: string; hint: string };
    expect(message).toContain(`The migration target ${target.display} holds 1 workspace newer than the source ${source.display}`);
    // The list of workspaces stands on lines of its own (a line break is not a control character to hide).
    expect(message).toContain(`so nothing was copied.\n  ${WORKSPACE}: ${source.display} at serial`);
    expect(message).toContain(`${WORKSPACE}: ${source.display} at serial ${(await source.readWorkspace(WORKSPACE)).serial}, last apply at 2026-11-23T12:00:00.000Z; ${target.display} at serial ${before.serial}, last apply at 2026-11-23T13:00:00.000Z, and 1 history record of later applies the source lacks`);
    expect(hint).toContain(`voxform state migrate --state ${target.pastable} --to ${source.pastable} --force`);
    expect(await target.readWorkspace(WORKSPACE)).toEqual(before);

    await migrateState(target, source, { force: true });
    expect(await migrateState(source, target, { force: true })).toMatchObject({ workspaces: [WORKSPACE], historyRecords: 2 });
    expect((await target.readWorkspace(WORKSPACE)).workspace.lastApply?.at).toBe('2026-11-23T13:00:00.000Z');
  });

  it('replaces a target workspace older than the source\'s', async () => {
    const [source, target] = await migratedPair();
    await applyAt(source, '2026-11-23T13:00:00.000Z', 'new');

    await migrateState(source, target, { force: true });

    expect((await target.readWorkspace(WORKSPACE)).workspace.lastApply?.at).toBe('2026-11-23T13:00:00.000Z');
  });
});

describe('state migrate to the source under another name', () => {
  it('refuses one database named by two URLs as the source itself, writing nothing and taking no lock twice', async () => {
    const { url } = await freshDatabase();
    const source = await openSpec(url);
    await (await StateStore.open(source, WORKSPACE, 'key')).update((ws) => (ws.credentials['credential.c'] = { fingerprint: 'sha256:c' }));
    const target = await openSpec(`${url}?application_name=other`);

    const error = await migrateState(source, target, { force: true }).catch((e: unknown) => e);

    expect(error).toMatchObject({ code: 'state_migrate_refused', message: `The migration target ${target.display} is the source itself (${source.display}, named another way).` });
    expect((error as Error).message).not.toContain(encodeURIComponent(PLANTED_DB_PASSWORD));
    expect((await target.readWorkspace(WORKSPACE)).serial).toBe(1);
  });
});

describe('state migrate stopped by Ctrl-C', () => {
  /** The file target, its step `at` (a method name, and which call of it) running `then` once done: Ctrl-C as that step finishes. */
  function stopAfter(target: StateBackend, at: 'writeWorkspace' | 'importTestRuns', call: number, then: () => void): StateBackend {
    const original = target[at].bind(target) as (...args: unknown[]) => Promise<unknown>;
    let calls = 0;
    Object.assign(target, {
      [at]: async (...args: unknown[]) => {
        const done = await original(...args);
        if (++calls === call) then();
        return done;
      },
    });
    return target;
  }

  async function sourceWith(workspaces: string[]): Promise<StateBackend> {
    const source = await openNew('file');
    for (const key of workspaces) await (await StateStore.open(source, key, 'key')).update((ws) => (ws.credentials['credential.c'] = { fingerprint: 'sha256:c' }));
    await source.history.append(apply(WORKSPACE), TEST_SEAL_KEY);
    return source;
  }

  it('after the copy was written: says the source is still the state, the target holds the copy unchecked, and the command that finishes it', async () => {
    const source = await sourceWith([WORKSPACE]);
    const stop = new AbortController();
    const target = stopAfter(await openNew('file'), 'importTestRuns', 1, () => stop.abort());
    const error = await migrateState(source, target, { force: false, signal: stop.signal }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'interrupted',
      message: `Migration interrupted: ${source.display} is left as it was and is still the state to use; ${target.display} holds the whole copy, written but not yet read back and checked.`,
      hint: `Run \`voxform state migrate --to ${target.pastable} --force\` to copy everything again and check the copy (--force: the target now holds what was copied so far); once it says identical, point --state (or VOXFORM_STATE) at the target.`,
    });
    // The command it names finishes the migration.
    expect(await migrateState(source, target, { force: true })).toEqual({ workspaces: [WORKSPACE], historyRecords: 1, testRuns: 0 });
  });

  it('midway through the workspaces: says how many the target holds', async () => {
    const source = await sourceWith([WORKSPACE, 'staging@local']);
    const stop = new AbortController();
    const target = stopAfter(await openNew('file'), 'writeWorkspace', 1, () => stop.abort());
    const error = await migrateState(source, target, { force: false, signal: stop.signal, command: 'voxform state migrate --state s.json --to t.json' }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'interrupted', message: expect.stringContaining(`${target.display} holds part of the copy (1 of 2 workspaces, no history record or test run yet).`) });
    expect((error as Error & { hint: string }).hint).toMatch(/^Run `voxform state migrate --state s\.json --to t\.json --force` to copy everything again/);
    expect(await ledgerRecords(target.history, { workspace: WORKSPACE })).toEqual([]);
  });

  it('while a target that never answers is read: stops at once, saying neither side changed', async () => {
    const source = await sourceWith([WORKSPACE]);
    const target = await openNew('file');
    let asked!: () => void;
    const reading = new Promise<void>((resolve) => (asked = resolve));
    Object.assign(target, { listWorkspaces: () => (asked(), new Promise<never>(() => undefined)) });
    const stop = new AbortController();
    const migration = migrateState(source, target, { force: false, signal: stop.signal }).catch((e: unknown) => e);
    await reading;
    stop.abort();
    expect(await migration).toMatchObject({ code: 'interrupted', message: `Migration interrupted before anything was copied: ${source.display} and ${target.display} are as they were.` });
  });

  it('while a target database that never answers is connected to for its lock: stops at once, saying neither side changed', async () => {
    const source = await sourceWith([WORKSPACE]);
    const database = await silentDatabase();
    cleanups.push(database.close);
    const target = await openSpec(`postgres://voxform:${encodeURIComponent(PLANTED_DB_PASSWORD)}@127.0.0.1:${database.port}/voxform?connect_timeout=600`);
    let asked!: () => void;
    const locking = new Promise<void>((resolve) => (asked = resolve));
    const acquireLock = target.acquireLock.bind(target);
    Object.assign(target, { acquireLock: (...args: Parameters<StateBackend['acquireLock']>) => (asked(), acquireLock(...args)) });
    const stop = new AbortController();
    const migration = migrateState(source, target, { force: false, signal: stop.signal }).catch((e: unknown) => e);
    await locking;
    stop.abort();
    expect(await migration).toMatchObject({ code: 'interrupted', message: `Migration interrupted before anything was copied: ${source.display} and ${target.display} are as they were.` });
    expect(await source.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined }).then((lock) => lock.release())).toBeUndefined();
  });

  it('before anything was copied: says neither side changed', async () => {
    const source = await sourceWith([WORKSPACE]);
    const target = await openNew('file');
    const stop = new AbortController();
    stop.abort();
    const error = await migrateState(source, target, { force: false, signal: stop.signal }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'interrupted',
      message: `Migration interrupted before anything was copied: ${source.display} and ${target.display} are as they were.`,
      hint: `Run \`voxform state migrate --to ${target.pastable}\` to migrate.`,
    });
    expect(await target.listWorkspaces()).toEqual([]);
  });
});

describe('state migrate stopped by a write the target refused', () => {
  it('says what failed, what each side holds, and the command that finishes it: never an internal error', async () => {
    const source = await openNew('file');
    await (await StateStore.open(source, WORKSPACE, 'key')).update((ws) => (ws.credentials['credential.c'] = { fingerprint: 'sha256:c' }));
    await source.history.append(apply(WORKSPACE), TEST_SEAL_KEY);
    const target = await openNew('file');
    const historyFile = path.join(path.dirname(target.display), 'history', 'r.json');
    Object.assign(target, { importHistory: () => Promise.reject(new FileWriteError(historyFile, Object.assign(new Error('ENOSPC: no space left on device'), { code: 'ENOSPC' }))) });
    const error = await migrateState(source, target, { force: false, command: 'voxform state migrate --to t.json' }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'state_write_failed',
      message: `Cannot write ${historyFile}: the disk is full. The migration stopped there: ${source.display} is left as it was and is still the state to use; ${target.display} holds part of the copy (1 of 1 workspace, part of the history records and test runs at most).`,
      hint: 'Free space on the disk of the state file; then run `voxform state migrate --to t.json --force` to copy everything again and check the copy (--force: the target now holds what was copied so far); once it says identical, point --state (or VOXFORM_STATE) at the target.',
    });
  });
});

describe('state migrate refused by a lock another run holds', () => {
  // A database locks each workspace on its own: the lock of the second one is met after the first was copied.
  it.each(['source', 'target'] as const)('on the second workspace of the %s (a database): writes nothing to the target, so the same migration runs once the lock is free', async (held) => {
    const sourceSpec = await newSpec(held === 'source' ? 'postgres' : 'file');
    const targetSpec = await newSpec(held === 'target' ? 'postgres' : 'file');
    const [source, target] = [await openSpec(sourceSpec), await openSpec(targetSpec)];
    for (const key of [WORKSPACE, 'staging@local']) await (await StateStore.open(source, key, 'key')).update((ws) => (ws.credentials['credential.c'] = { fingerprint: 'sha256:c' }));
    await source.history.append(apply(WORKSPACE), TEST_SEAL_KEY);
    const otherRun = await openSpec(held === 'source' ? sourceSpec : targetSpec);
    const lock = await otherRun.acquireLock('staging@local', { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    // A database lists a workspace locked by its first apply: without --force that target is refused as not empty.
    const force = held === 'target';
    const error = await migrateState(source, target, { force }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'state_locked', message: expect.stringContaining('The workspace staging@local is locked by ') });
    for (const key of [WORKSPACE, 'staging@local']) expect((await target.readWorkspace(key)).exists, key).toBe(false);
    expect(await target.exportHistory()).toEqual([]);
    await lock.release();
    const migrated = await migrateState(source, target, { force });
    expect([...migrated.workspaces].sort()).toEqual([WORKSPACE, 'staging@local']);
  });
});

describe('state migrate holds every lock until the copy is checked', () => {
  // A database locks each workspace on its own: an apply of a later workspace, started while an
  // earlier one is copied, would change what is then copied and checked.
  it('refuses an apply of a workspace not yet copied, and the copy is checked whole', async () => {
    const sourceSpec = await newSpec('postgres');
    const source = await openSpec(sourceSpec);
    for (const key of [WORKSPACE, 'staging@local']) await (await StateStore.open(source, key, 'key')).update((ws) => (ws.credentials['credential.c'] = { fingerprint: 'sha256:c' }));
    const target = await openNew('file');
    const otherRun = await openSpec(sourceSpec);
    const original = target.writeWorkspace.bind(target);
    let refusal: unknown;
    Object.assign(target, {
      writeWorkspace: async (...args: Parameters<StateBackend['writeWorkspace']>) => {
        if (args[0] === WORKSPACE) refusal = await otherRun.acquireLock('staging@local', { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined }).then(async (lock) => lock.release(), (error: unknown) => error);
        return original(...args);
      },
    });
    const migrated = await migrateState(source, target, { force: false });
    expect([...migrated.workspaces].sort()).toEqual([WORKSPACE, 'staging@local']);
    expect(refusal).toMatchObject({ code: 'state_locked', message: expect.stringContaining('The workspace staging@local is locked by ') });
    // Released at the end: the apply runs now.
    await (await otherRun.acquireLock('staging@local', { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined })).release();
  });
});
