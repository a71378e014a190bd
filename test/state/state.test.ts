import { FileStateBackend } from '../../src/state/file-backend.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readStateFile, StateStore } from '../../src/state/state-file.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { SlowToSerialize } from '../helpers/state.js';

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

  it('refuses `workspaces` that is a list: a write would otherwise throw every workspace away', async () => {
    const file = path.join(dir, 'state.json');
    await writeFile(file, '{"version":1,"serial":0,"workspaces":[]}');
    await expect(readStateFile(file)).rejects.toMatchObject({ code: 'state_invalid', message: expect.stringContaining('workspaces is a list') });
    await expect(new FileStateBackend(file).readWorkspace('default@local')).rejects.toMatchObject({ code: 'state_invalid' });
  });

  it('coalesces concurrent updates and keeps every one of them', async () => {
    const file = path.join(dir, 'nested', 'state.json');
    const store = await StateStore.open(new FileStateBackend(file), 'default@local', 'test-fingerprint-key');
    await Promise.all(
      Array.from({ length: 50 }, (_, i) => store.update((ws) => (ws.credentials[`credential.p${i}`] = { fingerprint: `sha256:${i}` }))),
    );
    const onDisk = await readStateFile(file);
    expect(Object.keys(onDisk.workspaces['default@local']!.credentials)).toHaveLength(50);
    // Far fewer writes than updates: the serial counts writes.
    expect(onDisk.serial).toBeLessThan(50);
    expect(onDisk.serial).toBeGreaterThanOrEqual(2);
  });

  it('paces its writes while requests are in flight, and writes at once after `hurry` (a waiting write too)', async () => {
    const file = path.join(dir, 'state.json');
    const store = await StateStore.open(new SlowToSerialize(file), 'default@local', 'test-fingerprint-key');
    await store.update((ws) => (ws.credentials['credential.a'] = { fingerprint: 'sha256:a' }));
    // The first write "held the loop" a minute: the next one would wait nine.
    const waiting = store.update((ws) => (ws.credentials['credential.b'] = { fingerprint: 'sha256:b' }));
    await new Promise((resolve) => setImmediate(resolve));
    store.hurry();
    await waiting;
    await store.recordApplyEnd({ command: 'voxform apply', outcome: 'applied', applied: 2, failed: 0, skipped: 0 }, ['B', 'A', 'B']);
    const onDisk = (await readStateFile(file)).workspaces['default@local']!;
    expect(Object.keys(onDisk.credentials)).toEqual(['credential.a', 'credential.b']);
    expect(onDisk.environmentVariables).toEqual(['A', 'B']);
    expect(onDisk.lastApply?.outcome).toBe('applied');
  });

  it('asks the next write to leave the machine a share of the time this one took to reach the disk', async () => {
    // The disk's part of a write (copy, flush, rename) is the machine's time, not the event loop's:
    // a backend reporting only its serializing would let a 5 MB state be flushed back to back.
    const backend = new FileStateBackend(path.join(dir, 'state.json'));
    const written = await backend.writeWorkspace('default@local', emptyWorkspace(), 0);
    expect(written.serial).toBe(1);
    expect(written.pauseMs).toBeGreaterThan(0);
  });

  it('keeps workspaces of other environments and services apart', async () => {
    const file = path.join(dir, 'state.json');
    const prod = await StateStore.open(new FileStateBackend(file), 'default@https://api-west.millis.ai', 'test-fingerprint-key');
    await prod.update((ws) => (ws.credentials['credential.openai'] = { fingerprint: 'sha256:a' }));
    const staging = await StateStore.open(new FileStateBackend(file), 'staging@https://api-west.millis.ai', 'test-fingerprint-key');
    await staging.update((ws) => (ws.credentials['credential.openai'] = { fingerprint: 'sha256:b' }));
    const onDisk = await readStateFile(file);
    expect(Object.keys(onDisk.workspaces).sort()).toEqual(['default@https://api-west.millis.ai', 'staging@https://api-west.millis.ai']);
  });
});
