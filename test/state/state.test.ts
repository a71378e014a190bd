import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireStateLock } from '../../src/state/lock.js';
import { readStateFile, StateStore } from '../../src/state/state-file.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'voxform-state-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('state file', () => {
  it('reads a missing file as an empty state', async () => {
    expect(await readStateFile(path.join(dir, 'none.json'))).toEqual({ version: 1, serial: 0, workspaces: {} });
  });

  it('refuses a damaged file with a clear error', async () => {
    const file = path.join(dir, 'state.json');
    await writeFile(file, '{"version": 1, "workspaces": {');
    await expect(readStateFile(file)).rejects.toMatchObject({ code: 'state_invalid' });
    await writeFile(file, '{"version": 7, "workspaces": {}}');
    await expect(readStateFile(file)).rejects.toMatchObject({ code: 'state_invalid' });
  });

  it('coalesces concurrent updates and keeps every one of them', async () => {
    const file = path.join(dir, 'nested', 'state.json');
    const store = await StateStore.open(file, 'default@local', 'test-fingerprint-key');
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.update((ws) => (ws.credentials[`credential.p${i}`] = { fingerprint: `sha256:${i}` }))),
    );
    const onDisk = await readStateFile(file);
    expect(Object.keys(onDisk.workspaces['default@local']!.credentials)).toHaveLength(50);
    // Far fewer writes than updates: the serial counts writes.
    expect(onDisk.serial).toBeLessThan(50);
    expect(onDisk.serial).toBeGreaterThanOrEqual(2);
  });

  it('keeps workspaces of other environments and services apart', async () => {
    const file = path.join(dir, 'state.json');
    const prod = await StateStore.open(file, 'default@https://api-west.millis.ai', 'test-fingerprint-key');
    await prod.update((ws) => (ws.credentials['credential.openai'] = { fingerprint: 'sha256:a' }));
    const staging = await StateStore.open(file, 'staging@https://api-west.millis.ai', 'test-fingerprint-key');
    await staging.update((ws) => (ws.credentials['credential.openai'] = { fingerprint: 'sha256:b' }));
    const onDisk = await readStateFile(file);
    expect(Object.keys(onDisk.workspaces).sort()).toEqual(['default@https://api-west.millis.ai', 'staging@https://api-west.millis.ai']);
  });
});

describe('state lock', () => {
  const warn = () => undefined;

  it('refuses a second holder, naming the first', async () => {
    const file = path.join(dir, 'state.json');
    const first = await acquireStateLock(file, { command: 'voxform apply', timeoutSeconds: 0, warn });
    await expect(acquireStateLock(file, { command: 'voxform apply', timeoutSeconds: 0, warn })).rejects.toMatchObject({
      code: 'state_locked',
      message: expect.stringContaining(`pid ${process.pid}`),
    });
    await first.release();
    const second = await acquireStateLock(file, { command: 'voxform apply', timeoutSeconds: 0, warn });
    await second.release();
  });

  it('waits for the holder within --lock-timeout', async () => {
    const file = path.join(dir, 'state.json');
    const first = await acquireStateLock(file, { command: 'a', timeoutSeconds: 0, warn });
    setTimeout(() => void first.release(), 200);
    const second = await acquireStateLock(file, { command: 'b', timeoutSeconds: 10, warn });
    expect(second.owner.command).toBe('b');
    await second.release();
  });

  it('takes over a lock whose process is gone, with a warning', async () => {
    const file = path.join(dir, 'state.json');
    const { hostname } = await import('node:os');
    await writeFile(`${file}.lock`, JSON.stringify({ pid: 2 ** 22 + 12345, host: hostname(), user: 'x', command: 'voxform apply', since: 'then' }));
    const warnings: string[] = [];
    const lock = await acquireStateLock(file, { command: 'c', timeoutSeconds: 0, warn: (m) => warnings.push(m) });
    expect(warnings[0]).toContain('no longer runs');
    expect(JSON.parse(await readFile(`${file}.lock`, 'utf8')).pid).toBe(process.pid);
    await lock.release();
  });
});
