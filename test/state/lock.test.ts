import { mkdir, mkdtemp, readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeForcedOpen, describeHolder } from '../../src/state/backend.js';
import { FileStateBackend } from '../../src/state/file-backend.js';
import { acquireStateLock, forceUnlockState, readLastForcedOpen, readStateLockWithId } from '../../src/state/lock.js';

/** A pid above Linux's largest (2²²): no process can have it. */
const DEAD_PID = 2 ** 22 + 12345;

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'voxform-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const warn = () => undefined;

describe('state lock', () => {
  it('records who forced it open beside it, at an injected time; a record voxform did not write reads as none, its controls never shown', async () => {
    const file = path.join(dir, 'state.json');
    const lock = await acquireStateLock(file, { command: 'voxform apply', timeoutSeconds: 0, warn });
    const by = { user: 'ops\u001b[2J', host: 'ops-1', pid: 77, command: 'voxform state unlock --force' };
    await forceUnlockState(file, lock.lockId, by, '--state', new Date('2026-11-23T12:07:43.120Z'));
    const recorded = await readLastForcedOpen(file);
    expect(recorded).toEqual({ lockId: lock.lockId, by, at: '2026-11-23T12:07:43.120Z' });
    expect(describeForcedOpen(recorded!)).toBe(`lock ${lock.lockId} by ops?[2J@ops-1 (pid 77, "voxform state unlock --force") at 2026-11-23T12:07:43.120Z`);
    const record = `${file}.forced-open.json`;
    for (const planted of [{ lockId: 'x' }, [1, 2], 'not json {']) {
      await writeFile(record, typeof planted === 'string' ? planted : JSON.stringify(planted));
      expect(await readLastForcedOpen(file)).toBeUndefined();
    }
    await rm(record);
    await symlink('/dev/zero', record);
    expect(await readLastForcedOpen(file)).toBeUndefined();
  });

  it('leaves the lock held when who forces it open cannot be recorded, saying so', async () => {
    const file = path.join(dir, 'state.json');
    const lock = await acquireStateLock(file, { command: 'voxform apply', timeoutSeconds: 0, warn });
    // A folder where the record goes: it cannot be replaced by a file.
    await mkdir(path.join(dir, 'state.json.forced-open.json'));
    const by = { user: 'ops', host: 'ops-1', pid: 77, command: 'voxform state unlock --force' };
    await expect(forceUnlockState(file, lock.lockId, by, '--state')).rejects.toMatchObject({ code: 'state_lock_failed', message: expect.stringContaining('the lock was left as it was') });
    expect(await lock.stillHeld()).toBe(true);
    await lock.release();
  });

  it('names the CI job of the run holding the lock, as the Postgres lock and `voxform status` do', async () => {
    const file = path.join(dir, 'state.json');
    const job = 'https://github.com/acme/agents/actions/runs/555';
    const first = await acquireStateLock(file, { command: 'voxform apply', timeoutSeconds: 0, warn, ciJobUrl: job });
    await expect(acquireStateLock(file, { command: 'voxform apply', timeoutSeconds: 0, warn })).rejects.toMatchObject({
      code: 'state_locked',
      message: expect.stringMatching(new RegExp(`"voxform apply", since [^,]+, job ${job.replace(/[.]/g, '\\.')}, lock [0-9a-f]+\\)\\.$`)),
    });
    await first.release();
  });

  it('refuses a second holder, naming the first, and can be taken again once released', async () => {
    const file = path.join(dir, 'state.json');
    const first = await acquireStateLock(file, { command: 'voxform apply', timeoutSeconds: 0, warn });
    await expect(acquireStateLock(file, { command: 'voxform apply', timeoutSeconds: 0, warn })).rejects.toMatchObject({
      code: 'state_locked',
      message: expect.stringMatching(new RegExp(`locked by .*@${hostname()} \\(pid ${process.pid}, "voxform apply", since `)),
      hint: expect.stringContaining('--lock-timeout'),
    });
    expect((await readStateLockWithId(file))?.owner).toMatchObject({ pid: process.pid, command: 'voxform apply' });
    await first.release();
    expect((await readStateLockWithId(file))?.owner).toBeUndefined();
    const second = await acquireStateLock(file, { command: 'voxform apply', timeoutSeconds: 0, warn });
    await second.release();
  });

  it('waits for the holder within --lock-timeout', async () => {
    const file = path.join(dir, 'state.json');
    const first = await acquireStateLock(file, { command: 'a', timeoutSeconds: 0, warn });
    const waiting = acquireStateLock(file, { command: 'b', timeoutSeconds: 30, warn });
    await first.release();
    const second = await waiting;
    expect(second.owner.command).toBe('b');
    await second.release();
  });

  it('says once that it waits, for whom and how long; a refusal after the wait says it waited', async () => {
    const file = path.join(dir, 'state.json');
    const first = await acquireStateLock(file, { command: 'voxform apply', timeoutSeconds: 0, warn });
    const warnings: string[] = [];
    const refused = await acquireStateLock(file, { command: 'b', timeoutSeconds: 1, warn: (m) => warnings.push(m) }).catch((error: unknown) => error);
    expect(warnings).toEqual([expect.stringMatching(new RegExp(`^The state file .*state\\.json is locked by .*\\(pid ${process.pid}, "voxform apply", since .*\\); waiting up to 1 s for it to finish \\(--lock-timeout\\)\\.$`))]);
    expect(refused).toMatchObject({ code: 'state_locked', hint: expect.stringMatching(/^This run waited 1 s for it to finish \(--lock-timeout 1\); wait again, or longer with a larger --lock-timeout\. /) });
    expect((refused as { hint: string }).hint).not.toContain('pass --lock-timeout SECONDS');
    await first.release();
  });

  it('shows a lock whose holder no longer runs as such: the next apply takes it over', async () => {
    const file = path.join(dir, 'state.json');
    await mkdir(`${file}.lock`);
    await writeFile(`${file}.lock/holder-0123456789abcdef.json`, JSON.stringify({ pid: DEAD_PID, host: hostname(), user: 'x', command: 'voxform apply', since: 'then' }));
    const backend = new FileStateBackend(file);
    const holder = await backend.readLock();
    expect(holder).toMatchObject({ pid: DEAD_PID, noLongerRuns: true });
    expect(describeHolder(holder!)).toBe(`x@${hostname()} (pid ${DEAD_PID}, "voxform apply", since then, lock 0123456789abcdef), which no longer runs: the next apply takes the lock over`);
    await writeFile(file, JSON.stringify({ version: 1, serial: 1, workspaces: { 'default@local': { agents: {}, knowledge: {}, credentials: {}, environmentVariables: {} } } }));
    expect((await backend.listWorkspaces())[0]?.lock).toMatchObject({ noLongerRuns: true });
    // A live holder is shown as it is.
    const live = await acquireStateLock(path.join(dir, 'other.json'), { command: 'c', timeoutSeconds: 0, warn });
    expect(await new FileStateBackend(path.join(dir, 'other.json')).readLock()).not.toHaveProperty('noLongerRuns');
    await live.release();
  });

  it('takes over a lock whose process is gone, with a warning naming it', async () => {
    const file = path.join(dir, 'state.json');
    await mkdir(`${file}.lock`);
    await writeFile(`${file}.lock/holder-0123456789abcdef.json`, JSON.stringify({ pid: DEAD_PID, host: hostname(), user: 'x', command: 'voxform apply', since: 'then' }));
    const warnings: string[] = [];
    const lock = await acquireStateLock(file, { command: 'c', timeoutSeconds: 0, warn: (m) => warnings.push(m) });
    expect(warnings).toEqual([`Taking over the state lock left by x@${hostname()} (pid ${DEAD_PID}, "voxform apply", since then, lock 0123456789abcdef), which no longer runs.`]);
    expect((await readStateLockWithId(file))?.owner).toMatchObject({ pid: process.pid, command: 'c' });
    await lock.release();
  });

  it("takes over a lock of this host and pid that this process did not write (a restarted container's apply runs as pid 1 again)", async () => {
    const file = path.join(dir, 'state.json');
    await mkdir(`${file}.lock`);
    const before = { pid: process.pid, host: hostname(), user: 'x', command: 'voxform apply', since: 'before the restart' };
    await writeFile(`${file}.lock/holder-0123456789abcdef.json`, JSON.stringify(before));
    expect(await new FileStateBackend(file).readLock()).toMatchObject({ pid: process.pid, noLongerRuns: true });
    const warnings: string[] = [];
    const lock = await acquireStateLock(file, { command: 'c', timeoutSeconds: 0, warn: (m) => warnings.push(m) });
    expect(warnings).toEqual([`Taking over the state lock left by x@${hostname()} (pid ${process.pid}, "voxform apply", since before the restart, lock 0123456789abcdef), which no longer runs.`]);
    // The lock this process took is its own: alive.
    expect(await readStateLockWithId(file)).toMatchObject({ owner: { pid: process.pid, command: 'c' }, lockId: lock.lockId });
    expect(await readStateLockWithId(file)).not.toHaveProperty('noLongerRuns');
    await lock.release();
  });

  it('takes over the lock file an older voxform left behind', async () => {
    const file = path.join(dir, 'state.json');
    await writeFile(`${file}.lock`, JSON.stringify({ pid: DEAD_PID, host: hostname(), user: 'x', command: 'voxform apply', since: 'then' }));
    const warnings: string[] = [];
    const lock = await acquireStateLock(file, { command: 'd', timeoutSeconds: 0, warn: (m) => warnings.push(m) });
    expect(warnings).toHaveLength(1);
    expect((await readStateLockWithId(file))?.owner).toMatchObject({ pid: process.pid, command: 'd' });
    await lock.release();
  });

  it('never takes over a lock held on another host, or one it cannot read', async () => {
    const file = path.join(dir, 'state.json');
    await mkdir(`${file}.lock`);
    await writeFile(`${file}.lock/holder-aa.json`, JSON.stringify({ pid: DEAD_PID, host: 'another-host.invalid', user: 'x', command: 'voxform apply', since: 'then' }));
    await expect(acquireStateLock(file, { command: 'e', timeoutSeconds: 0, warn })).rejects.toMatchObject({ message: expect.stringContaining('x@another-host.invalid') });
    await writeFile(`${file}.lock/holder-aa.json`, '{not json');
    await expect(acquireStateLock(file, { command: 'e', timeoutSeconds: 0, warn })).rejects.toMatchObject({
      message: expect.stringContaining('locked by an unknown run (its holder file holder-aa.json is not one voxform wrote, lock aa)'),
    });
  });

  it('refuses a lock that is a symbolic link (committed, it leads anywhere) as kept_folder_linked, naming it, wherever the lock is taken or read', async () => {
    const file = path.join(dir, 'state.json');
    await mkdir(path.join(dir, 'elsewhere'));
    await symlink('elsewhere', `${file}.lock`);
    const refusal = { code: 'kept_folder_linked', message: expect.stringContaining(`${file}.lock is a symbolic link`), hint: expect.stringContaining('Remove the link') };
    await expect(acquireStateLock(file, { command: 'voxform apply', timeoutSeconds: 0, warn })).rejects.toMatchObject(refusal);
    await expect(readStateLockWithId(file)).rejects.toMatchObject(refusal);
    await expect(new FileStateBackend(file).readLock()).rejects.toMatchObject(refusal);
    expect(await readdir(dir)).toEqual(['elsewhere', 'state.json.lock']);
  });

  it('leaves nothing behind: no staging folder after a refusal, no lock after a release', async () => {
    const file = path.join(dir, 'state.json');
    const first = await acquireStateLock(file, { command: 'a', timeoutSeconds: 0, warn });
    await acquireStateLock(file, { command: 'b', timeoutSeconds: 0, warn }).catch(() => undefined);
    expect(await readdir(dir)).toEqual(['state.json.lock']);
    await first.release();
    await first.release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('a release never removes a lock another run has taken since', async () => {
    const file = path.join(dir, 'state.json');
    const first = await acquireStateLock(file, { command: 'a', timeoutSeconds: 0, warn });
    // The first holder's lock is removed behind its back (an operator deleting it), and a second run takes it.
    await rm(`${file}.lock`, { recursive: true });
    const second = await acquireStateLock(file, { command: 'b', timeoutSeconds: 0, warn });
    await first.release();
    expect((await readStateLockWithId(file))?.owner).toMatchObject({ command: 'b' });
    await second.release();
  });
});

describe('state lock failures', () => {
  it('a state folder that cannot be written is a clear error, not a crash', async () => {
    // A file where the state file's folder should be.
    await writeFile(path.join(dir, 'not-a-folder'), '');
    await expect(acquireStateLock(path.join(dir, 'not-a-folder', 'state.json'), { command: 'a', timeoutSeconds: 0, warn })).rejects.toMatchObject({
      code: 'state_lock_failed',
      message: expect.stringMatching(/^Could not take the state lock .*not-a-folder\/state\.json\.lock: a part of its folder is a file, not a folder\.$/),
    });
  });
});
