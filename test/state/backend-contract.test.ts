/**
 * The contract every state backend keeps, run against both: the file backend and PostgreSQL (a real
 * server, started once for the test run; each test gets a fresh database owned by a role without
 * superuser). The second process is test/helpers/state-holder.mjs over the built dist/.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { configFieldKeys, restorableKey, type AgentVersion, type HistoryRecord, type TestRunRecord } from '../../src/history/types.js';
import { describeLockLoss, type StateBackend } from '../../src/state/backend.js';
import { MIGRATION_LOCK_KEY, MIGRATIONS } from '../../src/state/postgres/schema.js';
import type { RunIdentity } from '../../src/util/run-identity.js';
import { openStateSpec } from '../../src/state/open.js';
import { PERSIST_INTERVAL_MS, StateStore, type PersistClock } from '../../src/state/state-file.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { repoRoot } from '../helpers/cli.js';
import { asAdmin, databasesOfOneRole, freshDatabase, PLANTED_DB_PASSWORD, silentDatabase } from '../helpers/postgres.js';
import { ledgerRecords, oneAgentApply, TEST_SEAL_KEY } from '../helpers/ledger.js';
import { sealVerifies } from '../../src/history/seal.js';

const WORKSPACE = 'default@local';
/** Who runs `voxform state unlock --force` in these tests: an operator of another machine, in CI. */
const OPERATOR: RunIdentity = { user: 'ops', host: 'ops-laptop', pid: 4242, command: 'voxform state unlock --force', ciJobUrl: 'https://ci.example.test/jobs/7' };
const BY_OPERATOR = 'ops@ops-laptop (pid 4242, "voxform state unlock --force", job https://ci.example.test/jobs/7)';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function fileSpec(): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'voxform-contract-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return path.join(dir, 'state.json');
}

/** The databases of the tests that keep their role: one role and one admin connection for the file. */
const ofFile = databasesOfOneRole();
afterAll(() => ofFile.end());
const databaseOfFile = () => ofFile.fresh();

const kinds: Array<{ kind: 'file' | 'postgres'; spec: () => Promise<string> }> = [
  { kind: 'file', spec: fileSpec },
  { kind: 'postgres', spec: async () => (await databaseOfFile()).url },
];

async function open(spec: string): Promise<StateBackend> {
  const backend = await openStateSpec(spec, { env: process.env, cwd: repoRoot, registerSecret: () => undefined });
  cleanups.push(() => backend.close());
  return backend;
}

/** The second process: holds the lock until told to release; its events, line by line. */
function startHolder(spec: string): { child: ChildProcessWithoutNullStreams; next(): Promise<Record<string, unknown>>; send(line: string): void } {
  const child = spawn(process.execPath, [path.join(repoRoot, 'test/helpers/state-holder.mjs'), spec, WORKSPACE], { cwd: repoRoot, stdio: 'pipe' });
  cleanups.push(async () => void child.kill('SIGKILL'));
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return {
    child,
    next: async () => {
      const line = await lines.next();
      if (line.done) throw new Error(`the holder process ended: ${stderr}`);
      return JSON.parse(line.value) as Record<string, unknown>;
    },
    send: (line) => child.stdin.write(`${line}\n`),
  };
}

/** The ledger helper's one-agent apply with an id, its prompt holding a reference as the manifest wrote it. */
function record(id: string, workspace: string): HistoryRecord {
  const applied = oneAgentApply(workspace);
  return { id, ...applied, agents: { front: { ...(applied.agents.front as AgentVersion), config: { prompt: 'Hi ${env:X}' } } } };
}

describe.each(kinds)('the $kind state backend', ({ kind, spec }) => {
  it('stores a workspace and reads it back with a serial that moves on every write', async () => {
    const backend = await open(await spec());
    expect(backend.kind).toBe(kind);
    expect(await backend.readWorkspace(WORKSPACE)).toMatchObject({ serial: 0, exists: false });
    // A clock that stands still and runs a paced write as soon as it is asked for: the interval is
    // what the store asks to wait, not a wait of the test's.
    const waits: number[] = [];
    const clock: PersistClock = {
      now: () => 0,
      schedule: (run, ms) => {
        waits.push(ms);
        const timer = setImmediate(run);
        return () => clearImmediate(timer);
      },
    };
    const store = await StateStore.open(backend, WORKSPACE, 'key', clock);
    await Promise.all(Array.from({ length: 20 }, (_, i) => store.update((ws) => (ws.credentials[`credential.c${i}`] = { fingerprint: `sha256:${i}` }))));
    // The first update written at once, the others together one interval after it.
    expect(waits).toEqual([PERSIST_INTERVAL_MS]);
    const stored = await backend.readWorkspace(WORKSPACE);
    expect(stored.exists).toBe(true);
    expect(Object.keys(stored.workspace.credentials)).toHaveLength(20);
    // Coalesced: fewer writes than updates.
    expect(stored.serial).toBeGreaterThanOrEqual(1);
    expect(stored.serial).toBeLessThan(20);
    expect((await backend.listWorkspaces()).map((w) => w.key)).toEqual([WORKSPACE]);
  });

  it('reads back what it stored, not the object it was handed: a change to that object after the write is not in the state', async () => {
    const backend = await open(await spec());
    const { serial } = await backend.readWorkspace(WORKSPACE);
    const workspace = emptyWorkspace();
    workspace.credentials['credential.written'] = { fingerprint: 'sha256:written' };
    await backend.writeWorkspace(WORKSPACE, workspace, serial);
    workspace.credentials['credential.changed-after'] = { fingerprint: 'sha256:after' };
    expect(Object.keys((await backend.readWorkspace(WORKSPACE)).workspace.credentials)).toEqual(['credential.written']);
  });

  it('refuses a stale writer (compare-and-set on the serial) and keeps what the other wrote', async () => {
    const where = await spec();
    const backend = await open(where);
    const first = await StateStore.open(backend, WORKSPACE, 'key');
    const stale = await StateStore.open(await open(where), WORKSPACE, 'key');
    await first.update((ws) => (ws.credentials['credential.first'] = { fingerprint: 'sha256:first' }));
    await expect(stale.update((ws) => (ws.credentials['credential.stale'] = { fingerprint: 'sha256:stale' }))).rejects.toMatchObject({ code: 'state_conflict' });
    const stored = await backend.readWorkspace(WORKSPACE);
    expect(Object.keys(stored.workspace.credentials)).toEqual(['credential.first']);
  });

  it("names, in a locked writer's refusal of a state written meanwhile, the plan its lock was taken with", async () => {
    const where = await spec();
    const backend = await open(where);
    const lock = await backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined, recheckCommand: 'voxform plan --env staging' });
    cleanups.push(() => lock.release());
    await (await open(where)).writeWorkspace(WORKSPACE, emptyWorkspace(), 0);
    await expect(backend.writeWorkspace(WORKSPACE, emptyWorkspace(), 0)).rejects.toMatchObject({
      code: 'state_conflict',
      hint: 'Another run wrote the state without holding the lock. Run `voxform plan --env staging` again to see where things stand, then apply.',
    });
  });

  it('lets exactly one process hold the lock: the other waits --lock-timeout, then is refused naming the holder', async () => {
    const where = await spec();
    const holder = startHolder(where);
    const locked = await holder.next();
    expect(locked).toMatchObject({ event: 'locked', holder: { pid: holder.child.pid, command: 'voxform apply (holder)' } });
    const backend = await open(where);
    const lockId = (locked.holder as { lockId: string }).lockId;
    expect(await backend.readLock(WORKSPACE)).toMatchObject({ lockId, pid: holder.child.pid });
    const refused = backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 1, warn: () => undefined });
    await expect(refused).rejects.toMatchObject({ code: 'state_locked', message: expect.stringContaining(`pid ${holder.child.pid}`) });
    await expect(refused).rejects.toMatchObject({ message: expect.stringContaining(lockId) });
    // One wording for every backend (docs/state.md, The apply lock): a file's one lock is its whole file's.
    await expect(refused).rejects.toMatchObject({
      message: expect.stringMatching(kind === 'file' ? /^The state file .+ is locked by / : new RegExp(`^The workspace ${WORKSPACE} is locked by `)),
      hint: `This run waited 1 s for it to finish (--lock-timeout 1); wait again, or longer with a larger --lock-timeout. If that run hangs or no longer runs, \`voxform state unlock --force ${lockId}\` opens the lock.`,
    });
    holder.send('release');
    expect(await holder.next()).toMatchObject({ event: 'released' });
    const lock = await backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 5, warn: () => undefined });
    expect(lock.holder.pid).toBe(process.pid);
    await lock.release();
    expect(await backend.readLock(WORKSPACE)).toBeUndefined();
  });

  it('lets exactly one holder take the lock in one process too: a second run on the same backend is refused naming the holder, as another process is', async () => {
    const backend = await open(await spec());
    const options = { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined };
    const [first, second] = await Promise.allSettled([backend.acquireLock(WORKSPACE, options), backend.acquireLock(WORKSPACE, options)]);
    const taken = [first, second].filter((result) => result.status === 'fulfilled');
    const refused = [first, second].filter((result) => result.status === 'rejected');
    expect(taken).toHaveLength(1);
    const holder = (taken[0] as PromiseFulfilledResult<Awaited<ReturnType<StateBackend['acquireLock']>>>).value;
    expect(refused.map((result) => result.reason)).toEqual([expect.objectContaining({ code: 'state_locked', message: expect.stringContaining(holder.holder.lockId) })]);
    // The holder's lock still works: a write under it lands, and once released the next run locks at once.
    await backend.writeWorkspace(WORKSPACE, emptyWorkspace(), 0);
    await holder.release();
    const next = await backend.acquireLock(WORKSPACE, options);
    await next.release();
  });

  it('keeps the applies of two environments of one service apart: the second waits, is refused naming the holder, and locks once it is released', async () => {
    const where = await spec();
    const staging = await open(where);
    const production = await open(where);
    const applyOf = (service: string, timeoutSeconds = 0) => ({ command: 'voxform apply', timeoutSeconds, warn: () => undefined, sharedResourcesOf: service });
    const first = await staging.acquireLock('staging@local', applyOf('local'));
    const waited: string[] = [];
    const refused = production.acquireLock('production@local', { ...applyOf('local', 1), warn: (message: string) => waited.push(message) });
    await expect(refused).rejects.toMatchObject({ code: 'state_locked', message: expect.stringContaining(`pid ${process.pid}`) });
    await expect(refused).rejects.toMatchObject({ message: expect.stringContaining(`lock ${first.holder.lockId}`), hint: expect.stringContaining(`\`voxform state unlock --force ${first.holder.lockId}\` opens the lock`) });
    if (kind === 'postgres') {
      await expect(refused).rejects.toMatchObject({ message: expect.stringMatching(/^Service local is locked by .+: its apply of workspace staging@local holds what the environments of the service share/) });
      expect(waited).toEqual([expect.stringMatching(/^Service local is locked by .+: its apply of workspace staging@local holds .+; waiting up to 1 s for it to finish \(--lock-timeout\)\.$/)]);
      // Another service's applies share nothing with this one: they run side by side.
      const elsewhere = await production.acquireLock('production@https://api.example.test', applyOf('https://api.example.test'));
      await elsewhere.release();
    }
    await first.release();
    const second = await production.acquireLock('production@local', applyOf('local'));
    expect(second.holder.pid).toBe(process.pid);
    await second.release();
  });

  it('says why a lock was lost by a field, not a phrase: forced open, with the lock\'s id, by whom and when', async () => {
    const where = await spec();
    const backend = await open(where);
    const lock = await backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    expect(await backend.readLastForcedOpen(WORKSPACE)).toBeUndefined();
    await (await open(where)).forceUnlock(lock.holder.lockId, OPERATOR);
    await expect(backend.writeWorkspace(WORKSPACE, emptyWorkspace(), 0)).rejects.toMatchObject({ code: 'state_lock_lost', message: expect.stringContaining(`was forced open by ${BY_OPERATOR} at `) });
    const at = expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    expect(lock.lostReason()).toEqual({ reason: 'forced_open', lockId: lock.holder.lockId, backend: kind, by: OPERATOR, at });
    const { at: when } = lock.lostReason() as { at: string };
    expect(describeLockLoss(lock.lostReason()!)).toBe(`the ${kind === 'file' ? 'state lock' : 'lock'} ${lock.holder.lockId} was forced open by ${BY_OPERATOR} at ${when}`);
    // status and state show read the same record.
    expect(await (await open(where)).readLastForcedOpen(WORKSPACE)).toEqual({ lockId: lock.holder.lockId, by: OPERATOR, at: when });
  });

  it("a lost lock's hint names the command the run gave to see where things stand, with its options", async () => {
    const where = await spec();
    const backend = await open(where);
    const recheckCommand = "voxform plan --env staging --state 'team state/s.json'";
    const lock = await backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined, recheckCommand });
    await (await open(where)).forceUnlock(lock.holder.lockId, OPERATOR);
    await expect(backend.writeWorkspace(WORKSPACE, emptyWorkspace(), 0)).rejects.toMatchObject({ code: 'state_lock_lost', hint: expect.stringMatching(/\b[Rr]un `voxform plan --env staging --state 'team state\/s\.json'` to see where things stand/) });
  });

  it("lists each workspace's last forced open; a database lists a workspace whose first apply's lock was forced open before it wrote anything", async () => {
    const where = await spec();
    const backend = await open(where);
    const first = await backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    await (await open(where)).forceUnlock(first.holder.lockId, OPERATOR);
    await first.release();
    const forced = { lockId: first.holder.lockId, by: OPERATOR, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/) };
    // A file's record is the file's lock's: it is shown with the workspaces the file holds, none yet.
    const neverWritten = kind === 'postgres' ? [{ key: WORKSPACE, serial: 0, lastApply: undefined, lock: undefined, lastForcedOpen: forced }] : [];
    expect(await backend.listWorkspaces()).toEqual(neverWritten);
    const lock = await backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    await backend.writeWorkspace(WORKSPACE, emptyWorkspace(), 0);
    await lock.release();
    expect(await backend.listWorkspaces()).toEqual([{ key: WORKSPACE, serial: 1, lastApply: undefined, lock: undefined, lastForcedOpen: forced }]);
  });

  it('a lock opened without a record of who (by an older voxform), or recorded for another lock, is lost as before: no by', async () => {
    const where = await spec();
    const first = await (await open(where)).acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    await (await open(where)).forceUnlock(first.holder.lockId, OPERATOR);
    const backend = await open(where);
    const lock = await backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    await openAsOlderVoxform(where, lock.holder.lockId);
    await expect(backend.writeWorkspace(WORKSPACE, emptyWorkspace(), 0)).rejects.toMatchObject({ code: 'state_lock_lost' });
    expect(lock.lostReason()).toStrictEqual({ reason: 'forced_open', lockId: lock.holder.lockId, backend: kind });
    expect(describeLockLoss(lock.lostReason()!)).toContain('was forced open by another operator (`voxform state unlock --force`)');
    // The record still names the first lock's opening.
    expect(await backend.readLastForcedOpen(WORKSPACE)).toMatchObject({ lockId: first.holder.lockId, by: OPERATOR });
  });

  it('opens a lock by its id (unlock --force): the next run locks at once, the old holder can write no more', async () => {
    const where = await spec();
    const holder = startHolder(where);
    const locked = await holder.next();
    const lockId = (locked.holder as { lockId: string }).lockId;
    const backend = await open(where);
    await expect(backend.forceUnlock('0000000000000000', OPERATOR)).rejects.toMatchObject({ code: 'lock_not_found' });
    expect(await backend.readLastForcedOpen(WORKSPACE)).toBeUndefined();
    const opened = await backend.forceUnlock(lockId, OPERATOR);
    expect(opened.holder).toMatchObject({ lockId, pid: holder.child.pid });
    const lock = await backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    holder.send('write');
    // The holder may hear of the loss first (`lost`); its write is refused either way.
    let answer = await holder.next();
    while (answer.event === 'lost') answer = await holder.next();
    expect(answer).toMatchObject({ event: 'write-failed', code: 'state_lock_lost', message: expect.stringContaining(`was forced open by ${BY_OPERATOR} at `) });
    await lock.release();
  });

  it('removes one workspace\'s state under its lock (state rm), keeping the others and its ledger; a database forgets its lock\'s forced open with it', async () => {
    const where = await spec();
    const backend = await open(where);
    const other = 'production@local';
    for (const key of [WORKSPACE, other]) {
      const lock = await backend.acquireLock(key, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
      const store = await StateStore.open(backend, key, 'key');
      await store.update((ws) => (ws.credentials['credential.openai'] = { fingerprint: `sha256:${key}` }));
      await lock.release();
    }
    await backend.importHistory([record('20261122T100000000Z-aaaaaa', WORKSPACE)]);
    const forced = await backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    await (await open(where)).forceUnlock(forced.holder.lockId, OPERATOR);
    await forced.release();

    const lock = await backend.acquireLock(WORKSPACE, { command: 'voxform state rm', timeoutSeconds: 0, warn: () => undefined });
    expect(await backend.removeWorkspace(WORKSPACE)).toBe(true);
    expect(await backend.removeWorkspace(WORKSPACE)).toBe(false);
    await lock.release();
    expect(await backend.readWorkspace(WORKSPACE)).toMatchObject({ exists: false, workspace: emptyWorkspace() });
    expect((await backend.readWorkspace(other)).workspace.credentials).toEqual({ 'credential.openai': { fingerprint: `sha256:${other}` } });
    // Read by a run that opens the backend afresh, as the next plan does.
    const again = await open(where);
    expect((await again.listWorkspaces()).map((w) => w.key)).toEqual([other]);
    expect((await ledgerRecords(again.history, { workspace: WORKSPACE })).map((r) => r.id)).toEqual(['20261122T100000000Z-aaaaaa']);
  });

  it('removes nothing once its lock was forced open (state_lock_lost)', async () => {
    const where = await spec();
    const backend = await open(where);
    const lock = await backend.acquireLock(WORKSPACE, { command: 'voxform state rm', timeoutSeconds: 0, warn: () => undefined });
    await (await StateStore.open(backend, WORKSPACE, 'key')).update((ws) => (ws.credentials['credential.openai'] = { fingerprint: 'sha256:1' }));
    await (await open(where)).forceUnlock(lock.holder.lockId, OPERATOR);
    await expect(backend.removeWorkspace(WORKSPACE)).rejects.toMatchObject({ code: 'state_lock_lost' });
    await lock.release();
    expect(await (await open(where)).readWorkspace(WORKSPACE)).toMatchObject({ exists: true });
  });

  it('refuses a stored workspace that is not one voxform wrote, naming where (state_invalid), as plan, apply and status read it', async () => {
    const where = await spec();
    const backend = await open(where);
    await plantWorkspace(backend, where, JSON.stringify({ agents: { 'agent.front-desk': { id: 'a1', applied: null } } }));
    await expect(backend.readWorkspace(WORKSPACE)).rejects.toMatchObject({
      code: 'state_invalid',
      message: expect.stringContaining('agents["agent.front-desk"].applied is null, where an object of field paths and hashes belongs.'),
    });
    await plantWorkspace(backend, where, '{"agents": {');
    for (const read of [() => backend.readWorkspace(WORKSPACE), () => backend.listWorkspaces()]) {
      await expect(read()).rejects.toMatchObject({ code: 'state_invalid', message: expect.stringContaining('is not valid JSON.') });
    }
  });

  it('keeps history records, newest first, by workspace, and exports and imports them with their ids', async () => {
    const backend = await open(await spec());
    const { id: _ignored, ...unstored } = record('ignored', WORKSPACE);
    const appended = await backend.history.append(unstored, TEST_SEAL_KEY);
    expect(appended.id).toMatch(/^20261123T120000000Z-[0-9a-f]{6}$/);
    await backend.importHistory([record('20261122T100000000Z-aaaaaa', WORKSPACE), record('20261122T100000000Z-bbbbbb', 'other@local')]);
    const listed = await ledgerRecords(backend.history, { workspace: WORKSPACE });
    expect(listed.map((r) => r.id)).toEqual([appended.id, '20261122T100000000Z-aaaaaa']);
    expect((await backend.exportHistory()).map((r) => r.id)).toEqual(['20261122T100000000Z-aaaaaa', '20261122T100000000Z-bbbbbb', appended.id]);
  });

  it('walks a workspace\'s records as summaries, newest first, read as the walk goes, a damaged one skipped and reported; reads one whole by id', async () => {
    const where = await spec();
    const backend = await open(where);
    // More records than a database page of summaries, another workspace's among them.
    const ids = Array.from({ length: 19 }, (_, index) => `20261122T10${String(index).padStart(2, '0')}00000Z-aaaaaa`);
    await backend.importHistory(ids.map((id, index) => record(id, index === 3 ? 'other@local' : WORKSPACE)));
    const damaged = record('20261122T120000000Z-bbbbbb', WORKSPACE);
    damaged.agents.front!.configHash = 'x';
    await plantHistoryRecord(backend, where, damaged);
    const skipped: string[] = [];
    const walked: string[] = [];
    for await (const summary of backend.history.summaries({ workspace: WORKSPACE, onSkipped: (s) => skipped.push(path.basename(s.where)) })) {
      const front = record('', WORKSPACE).agents.front!;
      expect(summary.agents.front).toEqual({ id: 'a1', configHash: front.configHash, maskedPaths: [], restorableKey: restorableKey(front), fieldKeys: configFieldKeys(front.config) });
      walked.push(summary.id);
    }
    expect(walked).toEqual(ids.filter((_, index) => index !== 3).reverse());
    expect(skipped).toEqual([kind === 'file' ? `${damaged.id}.json` : `voxform_history row ${damaged.id}`]);
    const walk = backend.history.summaries({ workspace: WORKSPACE })[Symbol.asyncIterator]();
    expect((await walk.next()).value?.id, 'a walk stopped early').toBe(ids.at(-1));
    await walk.return?.();
    expect(await backend.history.read({ workspace: WORKSPACE }, ids[5] as string)).toEqual(record(ids[5] as string, WORKSPACE));
    expect(await backend.history.read({ workspace: WORKSPACE }, ids[3] as string), "another workspace's").toBeUndefined();
    expect(await backend.history.read({ workspace: WORKSPACE }, '20261122T100000000Z-cccccc'), 'none').toBeUndefined();
  });

  it('skips, and reports, a stored record that holds none: listed and exported alike', async () => {
    const where = await spec();
    const backend = await open(where);
    const good = record('20261122T100000000Z-aaaaaa', WORKSPACE);
    await backend.importHistory([good]);
    const damaged = record('20261122T110000000Z-bbbbbb', WORKSPACE);
    damaged.agents.front!.configHash = 'x';
    await plantHistoryRecord(backend, where, damaged);
    const skipped: string[] = [];
    const listed = await ledgerRecords(backend.history, { workspace: WORKSPACE, onSkipped: (s) => skipped.push(`${path.basename(s.where)}: ${s.problem}`) });
    expect(listed.map((r) => r.id)).toEqual([good.id]);
    const name = kind === 'file' ? `${damaged.id}.json` : `voxform_history row ${damaged.id}`;
    expect(skipped).toEqual([`${name}: agents.front.configHash: not a sha256: hash`]);
    expect((await backend.exportHistory()).map((r) => r.id)).toEqual([good.id]);
  });

  it('keeps the evidence of test runs apart from the applies, newest first per workspace, a damaged one skipped and reported', async () => {
    const where = await spec();
    const backend = await open(where);
    const older = await backend.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T12:00:00.000Z', 1), TEST_SEAL_KEY);
    const newer = await backend.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T13:00:00.000Z', 0), TEST_SEAL_KEY);
    await backend.history.appendTestRun(testRun('other@local', '2026-11-23T14:00:00.000Z', 0), TEST_SEAL_KEY);
    expect((await backend.history.listTestRuns({ workspace: WORKSPACE })).map((run) => [run.id, run.summary.failed])).toEqual([
      [newer.id, 0],
      [older.id, 1],
    ]);
    expect(await ledgerRecords(backend.history, { workspace: WORKSPACE }), 'a test run is no apply').toEqual([]);
    const damaged = { ...testRun(WORKSPACE, '2026-11-23T15:00:00.000Z', 0), id: '20261123T150000000Z-cccccc', summary: { passed: -1, failed: 0, skipped: 0, errors: 0 } };
    await plantTestRun(backend, where, damaged);
    const skipped: string[] = [];
    const listed = await backend.history.listTestRuns({ workspace: WORKSPACE, onSkipped: (s) => skipped.push(`${path.basename(s.where)}: ${s.problem}`) });
    expect(listed.map((run) => run.id)).toEqual([newer.id, older.id]);
    expect(skipped).toEqual([`${kind === 'file' ? `${damaged.id}.json` : `voxform_test_runs row ${damaged.id}`}: summary.passed: not a count`]);
  });

  it('keeps records and test runs in the order they were appended, whatever the clock of the machine that appended them', async () => {
    const backend = await open(await spec());
    const { id: _ignored, ...unstored } = record('ignored', WORKSPACE);
    // The second machine's clock is ten minutes ahead, the third's behind it.
    for (const at of ['2026-11-23T12:00:00.000Z', '2026-11-23T12:10:00.000Z', '2026-11-23T12:01:00.000Z']) await backend.history.append({ ...unstored, at }, TEST_SEAL_KEY);
    const listed = await ledgerRecords(backend.history, { workspace: WORKSPACE });
    expect(listed.map((r) => r.at)).toEqual(['2026-11-23T12:01:00.000Z', '2026-11-23T12:10:00.000Z', '2026-11-23T12:00:00.000Z']);
    // Past the newest id by a millisecond; `at` stays what its machine said.
    expect(listed[0]?.id).toMatch(/^20261123T121000001Z-[0-9a-f]{6}$/);

    const passing = await backend.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T12:30:00.000Z', 0), TEST_SEAL_KEY);
    const failingLater = await backend.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T12:20:00.000Z', 1), TEST_SEAL_KEY);
    expect((await backend.history.listTestRuns({ workspace: WORKSPACE })).map((run) => run.id)).toEqual([failingLater.id, passing.id]);
  });

  it("links each record and test run to its workspace's one before it, sealed with it: another workspace's in between is not its previous", async () => {
    const backend = await open(await spec());
    const { id: _ignored, ...unstored } = record('ignored', WORKSPACE);
    const first = await backend.history.append({ ...unstored, at: '2026-11-23T12:00:00.000Z' }, TEST_SEAL_KEY);
    const other = await backend.history.append({ ...unstored, workspace: 'other@local', at: '2026-11-23T12:01:00.000Z' }, TEST_SEAL_KEY);
    const second = await backend.history.append({ ...unstored, at: '2026-11-23T12:02:00.000Z' }, TEST_SEAL_KEY);
    expect([first.previous, other.previous, second.previous]).toEqual([null, null, first.id]);
    expect(sealVerifies(TEST_SEAL_KEY, second)).toBe(true);
    expect(sealVerifies(TEST_SEAL_KEY, { ...second, previous: other.id })).toBe(false);
    expect((await ledgerRecords(backend.history, { workspace: WORKSPACE })).map((r) => r.previous)).toEqual([first.id, null]);

    const run = await backend.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T12:03:00.000Z', 0), TEST_SEAL_KEY);
    const nextRun = await backend.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T12:04:00.000Z', 0), TEST_SEAL_KEY);
    expect([run.previous, nextRun.previous]).toEqual([null, run.id]);
    expect((await backend.history.listTestRuns({ workspace: WORKSPACE })).map((r) => r.previous)).toEqual([run.id, null]);
  });

  it('orders new records by the ledger up to a day ahead of the clock: a planted record dated further ahead orders none of them', async () => {
    const backend = await open(await spec());
    const { id: _ignored, ...unstored } = record('ignored', WORKSPACE);
    await backend.importHistory([{ ...record('99991231T235959999Z-ffffff', 'other@local'), at: '9999-12-31T23:59:59.999Z' }]);
    for (const at of ['2026-11-23T12:00:00.000Z', '2026-11-23T12:10:00.000Z', '2026-11-23T12:01:00.000Z']) await backend.history.append({ ...unstored, at }, TEST_SEAL_KEY);
    const listed = await ledgerRecords(backend.history, { workspace: WORKSPACE });
    expect(listed.map((r) => r.at)).toEqual(['2026-11-23T12:01:00.000Z', '2026-11-23T12:10:00.000Z', '2026-11-23T12:00:00.000Z']);
    expect(listed[0]?.id).toMatch(/^20261123T121000001Z-[0-9a-f]{6}$/);
  });
});

function testRun(workspace: string, at: string, failed: number): Omit<TestRunRecord, 'id'> {
  return {
    workspace,
    at,
    by: 'ana@laptop',
    command: 'voxform test --against live',
    source: { commit: 'a'.repeat(40), uncommitted: false },
    agents: { front: { id: 'a1', configHash: `sha256:${'1'.repeat(64)}` } },
    summary: { passed: 2 - failed, failed, skipped: 0, errors: 0 },
    tests: [{ file: 'tests/front.test.yaml', agent: 'front', name: 'greets', status: failed > 0 ? 'failed' : 'passed', passes: 1 - failed, runs: 1, passRate: 1 }],
  };
}

/** Stores a test run as it is, unchecked: a file of the test-runs folder, or a row. */
async function plantTestRun(backend: StateBackend, where: string, stored: TestRunRecord): Promise<void> {
  if (backend.kind === 'file') return writeFile(path.join(path.dirname(where), 'history', 'test-runs', `${stored.id}.json`), JSON.stringify(stored));
  await asAdmin(
    (client) => client.query('INSERT INTO voxform_test_runs (id, workspace, at, record) VALUES ($1, $2, $3, $4)', [stored.id, stored.workspace, stored.at, JSON.stringify(stored)]),
    new URL(where).pathname.slice(1),
  );
}

/** Stores `record` as it is, unchecked, as a hand or another program could: a file of the history folder, or a row. */
async function plantHistoryRecord(backend: StateBackend, where: string, stored: HistoryRecord): Promise<void> {
  if (backend.kind === 'file') return writeFile(path.join(path.dirname(where), 'history', `${stored.id}.json`), JSON.stringify(stored));
  await asAdmin(
    (client) => client.query('INSERT INTO voxform_history (id, workspace, at, record) VALUES ($1, $2, $3, $4)', [stored.id, stored.workspace, stored.at, JSON.stringify(stored)]),
    new URL(where).pathname.slice(1),
  );
}

/** Stores `text` as the workspace's state, as a hand or another program could: the file's member, or the row. */
async function plantWorkspace(backend: StateBackend, where: string, text: string): Promise<void> {
  if (backend.kind === 'file') return writeFile(where, `{"version": 1, "serial": 1, "workspaces": {${JSON.stringify(WORKSPACE)}: ${text}}}`);
  // The tables, made by the first write (a read never makes them).
  await backend.upgradeSchema?.();
  await asAdmin(
    (client) => client.query('INSERT INTO voxform_workspaces (workspace, serial, state) VALUES ($1, 1, $2) ON CONFLICT (workspace) DO UPDATE SET state = excluded.state', [WORKSPACE, text]),
    new URL(where).pathname.slice(1),
  );
}

/** Opens the lock `lockId` as a voxform before the record of who forced it did: the holder gone, nothing recorded. */
async function openAsOlderVoxform(where: string, lockId: string): Promise<void> {
  if (!where.startsWith('postgres://')) {
    await rm(path.join(`${where}.lock`, `holder-${lockId}.json`));
    return;
  }
  const client = new pg.Client({ connectionString: where });
  await client.connect();
  try {
    await client.query('UPDATE voxform_locks SET generation = generation + 1, lock_id = NULL, holder = NULL, backend_pid = NULL, acquired_at = NULL WHERE lock_id = $1', [lockId]);
  } finally {
    await client.end();
  }
}

describe('the PostgreSQL backend', () => {
  it('creates its tables on first write by a versioned migration, as a role without superuser', async () => {
    const { url, database, role } = await databaseOfFile();
    const backend = await open(url);
    await backend.writeWorkspace(WORKSPACE, emptyWorkspace(), 0);
    const tables = await asAdmin(async (client) => {
      const found = await client.query<{ tablename: string; tableowner: string }>("SELECT tablename, tableowner FROM pg_tables WHERE tablename LIKE 'voxform_%' ORDER BY 1");
      const versions = await client.query<{ version: number }>('SELECT version FROM voxform_schema_version');
      return { found: found.rows, versions: versions.rows.map((r) => r.version) };
    }, database);
    expect(tables.found.map((t) => t.tablename)).toEqual(['voxform_history', 'voxform_locks', 'voxform_schema_version', 'voxform_test_runs', 'voxform_workspaces']);
    expect(new Set(tables.found.map((t) => t.tableowner))).toEqual(new Set([role]));
    expect(tables.versions).toEqual(MIGRATIONS.map((m) => m.version));
  });

  it('writes the history record and test-run evidence of a run holding the lock over the lock\'s connection: one connection for the whole run', async () => {
    // A role of its own: the limit is the role's.
    const { url, role } = await freshDatabase();
    await asAdmin((client) => client.query(`ALTER ROLE ${role} CONNECTION LIMIT 1`));
    const backend = await open(url);
    const lock = await backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    await backend.readWorkspace(WORKSPACE);
    const stored = await backend.history.append(record('', WORKSPACE), TEST_SEAL_KEY);
    const evidence = await backend.history.appendTestRun(testRun(WORKSPACE, '2026-11-23T12:00:00.000Z', 0), TEST_SEAL_KEY);
    await lock.release();
    expect((await ledgerRecords(backend.history, { workspace: WORKSPACE })).map((r) => r.id)).toEqual([stored.id]);
    expect((await backend.history.listTestRuns({ workspace: WORKSPACE })).map((r) => r.id)).toEqual([evidence.id]);
  });

  it('runs the queries of concurrent operations on one backend one after another on each connection: none is sent while another is unanswered', async () => {
    const backend = await open((await databaseOfFile()).url);
    await backend.writeWorkspace('other@local', emptyWorkspace(), 0);
    // What pg deprecates (a query given to a client still busy with one): counted at the driver.
    const send = pg.Client.prototype.query;
    let overlapping = 0;
    pg.Client.prototype.query = function (this: pg.Client & { _activeQuery?: unknown; _queryQueue: unknown[] }, ...args: unknown[]) {
      if (this._activeQuery || this._queryQueue.length > 0) overlapping += 1;
      return (send as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof send;
    cleanups.push(async () => void (pg.Client.prototype.query = send));
    const lock = backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    const reads = Array.from({ length: 4 }, () => backend.readWorkspace('other@local'));
    await Promise.all([lock, ...reads, backend.listWorkspaces(), backend.readLock(WORKSPACE)]);
    await Promise.all([backend.readWorkspace(WORKSPACE), backend.readWorkspace('other@local'), backend.history.append(record('', WORKSPACE), TEST_SEAL_KEY)]);
    await (await lock).release();
    expect(overlapping).toBe(0);
  });

  it('ends the wait for a database that does not answer at once on the run\'s interrupt, and on close', async () => {
    const database = await silentDatabase();
    const silent = database.server;
    cleanups.push(database.close);
    const connected = () => new Promise<void>((resolve) => silent.once('connection', () => resolve()));
    const where = `postgres://voxform:planted-pw@127.0.0.1:${database.port}/voxform`;
    const backend = await open(where);
    const stop = new AbortController();
    const arrived = connected();
    const locking = backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined, signal: stop.signal });
    await arrived;
    stop.abort();
    await expect(locking).rejects.toMatchObject({ code: 'interrupted' });
    // A read outside a lock (plan, status) ends with the backend's close, as the CLI's clean-up closes it on Ctrl-C.
    const other = await open(where);
    const arrivedAgain = connected();
    const reading = other.readWorkspace(WORKSPACE).catch((error: unknown) => error);
    await arrivedAgain;
    await other.close();
    expect(await reading).toMatchObject({ code: 'state_backend_failed', message: expect.not.stringContaining('timeout expired') });
  });

  it('ends a connection that a run interrupted while the schema was brought up to date, once it is made: the process is not kept alive', async () => {
    const { url, database } = await databaseOfFile();
    // Another voxform's migration holds the schema's lock: this run's connection is made, then waits inside the migration.
    const migrating = new pg.Client({ connectionString: url });
    await migrating.connect();
    cleanups.push(() => migrating.end());
    await migrating.query(`SELECT pg_advisory_lock(${BigInt(MIGRATION_LOCK_KEY).toString()})`);
    const activity = (where: string) => migrating.query<{ n: string }>(`SELECT count(*) AS n FROM pg_stat_activity WHERE datname = $1 AND application_name = 'voxform'${where}`, [database]).then((result) => Number(result.rows[0]?.n));
    const voxformConnections = () => activity('');
    const waitingForTheMigration = () => activity(" AND wait_event_type = 'Lock'");
    const backend = await open(url);
    const stop = new AbortController();
    const locking = backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined, signal: stop.signal });
    while ((await waitingForTheMigration()) === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    stop.abort();
    await expect(locking).rejects.toMatchObject({ code: 'interrupted' });
    await backend.close();
    await migrating.query(`SELECT pg_advisory_unlock(${BigInt(MIGRATION_LOCK_KEY).toString()})`);
    // The migration goes on and the connection is made; then it is ended, by the run that stopped waiting for it.
    for (let polls = 0; polls < 250 && (await voxformConnections()) > 0; polls++) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await voxformConnections()).toBe(0);
  });

  it('tells a lock forced open by another operator (who ended its connection) from a lost database', async () => {
    const { url } = await databaseOfFile();
    const holder = await open(url);
    const lock = await holder.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    const { note } = await (await open(url)).forceUnlock(lock.holder.lockId, OPERATOR);
    expect(note).toContain('connection was ended');
    await new Promise((resolve) => lock.lost.addEventListener('abort', resolve, { once: true }));
    // Told by a field, not by a phrase of the message.
    expect(lock.lostReason()).toMatchObject({ reason: 'forced_open', lockId: lock.holder.lockId, backend: 'postgres', by: OPERATOR });
    expect(describeLockLoss(lock.lostReason()!)).toMatch(new RegExp(`^the lock ${lock.holder.lockId} was forced open by ${BY_OPERATOR.replace(/[().]/g, '\\$&')} at \\d{4}-`));
  });

  it('migrates a database of an older voxform forward: its lock rows read as without a forced open, then record one', async () => {
    const { url, database } = await databaseOfFile();
    // The database as schema version 2 left it, with a lock row of a run that ended.
    const older = new pg.Client({ connectionString: url });
    await older.connect();
    try {
      await older.query('CREATE TABLE voxform_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
      for (const migration of MIGRATIONS.filter((m) => m.version <= 2)) {
        await older.query(migration.sql);
        await older.query('INSERT INTO voxform_schema_version (version) VALUES ($1)', [migration.version]);
      }
      await older.query("INSERT INTO voxform_locks (workspace, generation) VALUES ($1, 3)", [WORKSPACE]);
    } finally {
      await older.end();
    }
    const backend = await open(url);
    expect(await backend.readLastForcedOpen(WORKSPACE)).toBeUndefined();
    const lock = await backend.acquireLock(WORKSPACE, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    await (await open(url)).forceUnlock(lock.holder.lockId, OPERATOR);
    expect(await (await open(url)).readLastForcedOpen(WORKSPACE)).toMatchObject({ lockId: lock.holder.lockId, by: OPERATOR });
    const stored = await asAdmin(async (client) => {
      const versions = await client.query<{ version: number }>('SELECT version FROM voxform_schema_version ORDER BY 1');
      const row = await client.query<{ generation: string; last_forced_by: unknown }>('SELECT generation, last_forced_by FROM voxform_locks');
      return { versions: versions.rows.map((r) => r.version), rows: row.rows };
    }, database);
    expect(stored.versions).toEqual(MIGRATIONS.map((m) => m.version));
    expect(stored.rows).toEqual([{ generation: '4', last_forced_by: OPERATOR }]);
  });

  it('says a password is missing when the server asks for one and the URL, PGPASSWORD and .pgpass give none', async () => {
    const { url } = await databaseOfFile();
    const withoutPassword = new URL(url);
    withoutPassword.password = '';
    const saved = { PGPASSWORD: process.env.PGPASSWORD, PGPASSFILE: process.env.PGPASSFILE };
    delete process.env.PGPASSWORD;
    process.env.PGPASSFILE = path.join(tmpdir(), 'voxform-no-such-pgpass');
    cleanups.push(async () => {
      for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    });
    const backend = await open(withoutPassword.href);
    await expect(backend.readWorkspace(WORKSPACE)).rejects.toMatchObject({
      code: 'state_password_missing',
      message: `The state database ${withoutPassword.href} asks for a password, and none was given.`,
      hint: expect.stringContaining('set PGPASSWORD'),
    });
  });

  it('takes PGPASSWORD from the environment it is given (a library caller\'s), not from the process\'s', async () => {
    const { url } = await databaseOfFile();
    const withoutPassword = new URL(url);
    withoutPassword.password = '';
    const saved = { PGPASSWORD: process.env.PGPASSWORD, PGPASSFILE: process.env.PGPASSFILE };
    process.env.PGPASSWORD = PLANTED_DB_PASSWORD;
    process.env.PGPASSFILE = path.join(tmpdir(), 'voxform-no-such-pgpass');
    cleanups.push(async () => {
      for (const [name, value] of Object.entries(saved)) if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    });
    const openWith = async (env: Record<string, string>, secrets: string[] = []) => {
      const backend = await openStateSpec(withoutPassword.href, { env, cwd: repoRoot, registerSecret: (value) => secrets.push(value) });
      cleanups.push(() => backend.close());
      return backend;
    };
    // The process's PGPASSWORD is not the caller's: nothing was given.
    await expect((await openWith({})).readWorkspace(WORKSPACE)).rejects.toMatchObject({ code: 'state_password_missing' });
    delete process.env.PGPASSWORD;
    const secrets: string[] = [];
    const given = await openWith({ PGPASSWORD: PLANTED_DB_PASSWORD }, secrets);
    expect(secrets).toEqual([PLANTED_DB_PASSWORD]);
    expect(await given.readWorkspace(WORKSPACE)).toMatchObject({ exists: false });
  });
});
