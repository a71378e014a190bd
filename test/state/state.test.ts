import { FileStateBackend } from '../../src/state/file-backend.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PERSIST_INTERVAL_MS, readStateFile, StateStore } from '../../src/state/state-file.js';
import { CountingWrites, ManualClock, RefusingWrites } from '../helpers/state.js';
import { STATE_FORMAT_VERSION } from '../../src/state/format-version.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'voxform-state-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('state file', () => {
  it('reads a missing file as an empty state', async () => {
    expect(await readStateFile(path.join(dir, 'none.json'))).toEqual({ version: STATE_FORMAT_VERSION, serial: 0, workspaces: {} });
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

  it('writes the first update at once, then at most once per interval, and keeps every update', async () => {
    const file = path.join(dir, 'nested', 'state.json');
    const backend = new CountingWrites(file);
    const clock = new ManualClock();
    const store = await StateStore.open(backend, 'default@local', 'test-fingerprint-key', clock);
    await store.update((ws) => (ws.credentials['credential.p0'] = { fingerprint: 'sha256:0' }));
    expect(backend.writes).toBe(1);
    const later = Promise.all(
      Array.from({ length: 49 }, (_, i) => store.update((ws) => (ws.credentials[`credential.p${i + 1}`] = { fingerprint: `sha256:${i + 1}` }))),
    );
    for (let turn = 0; turn < 10; turn++) await new Promise((resolve) => setImmediate(resolve));
    expect(backend.writes).toBe(1);
    expect(clock.waiting).toBe(1);
    clock.advance(PERSIST_INTERVAL_MS - 1);
    expect(backend.writes).toBe(1);
    clock.advance(1);
    await later;
    expect(backend.writes).toBe(2);
    const onDisk = await readStateFile(file);
    expect(Object.keys(onDisk.workspaces['default@local']!.credentials)).toHaveLength(50);
    expect(onDisk.serial).toBe(2);
  });

  it('writes what waits for the interval at once on `flush` (the end, an interrupt), and every update after it too', async () => {
    const file = path.join(dir, 'state.json');
    const backend = new CountingWrites(file);
    const clock = new ManualClock();
    const store = await StateStore.open(backend, 'default@local', 'test-fingerprint-key', clock);
    await store.update((ws) => (ws.credentials['credential.a'] = { fingerprint: 'sha256:a' }));
    const waiting = store.update((ws) => (ws.credentials['credential.b'] = { fingerprint: 'sha256:b' }));
    await new Promise((resolve) => setImmediate(resolve));
    store.flush();
    await waiting;
    expect(clock.waiting).toBe(0);
    await store.update((ws) => (ws.credentials['credential.c'] = { fingerprint: 'sha256:c' }));
    await store.recordApplyEnd({ command: 'voxform apply', outcome: 'applied', applied: 3, failed: 0, skipped: 0 }, ['B', 'A', 'B']);
    expect(backend.writes).toBe(4);
    const onDisk = (await readStateFile(file)).workspaces['default@local']!;
    expect(Object.keys(onDisk.credentials)).toEqual(['credential.a', 'credential.b', 'credential.c']);
    expect(onDisk.environmentVariables).toEqual(['A', 'B']);
    expect(onDisk.lastApply?.outcome).toBe('applied');
  });

  it('writes an update that must be stored before a request is sent at once, without holding back the next one', async () => {
    const backend = new CountingWrites(path.join(dir, 'state.json'));
    const clock = new ManualClock();
    const store = await StateStore.open(backend, 'default@local', 'test-fingerprint-key', clock);
    await store.update((ws) => (ws.credentials['credential.a'] = { fingerprint: 'sha256:a' }));
    // Within the interval of that write: stored at once all the same.
    await store.updateNow((ws) => (ws.credentials['credential.b'] = { fingerprint: 'sha256:b' }));
    expect(backend.writes).toBe(2);
    const paced = store.update((ws) => (ws.credentials['credential.c'] = { fingerprint: 'sha256:c' }));
    clock.advance(PERSIST_INTERVAL_MS);
    await paced;
    expect(backend.writes).toBe(3);
    // The first write of a run being at once, so is its first update after one written at once.
    const fresh = await StateStore.open(backend, 'default@local', 'test-fingerprint-key', new ManualClock());
    await fresh.updateNow((ws) => (ws.credentials['credential.d'] = { fingerprint: 'sha256:d' }));
    await fresh.update((ws) => (ws.credentials['credential.e'] = { fingerprint: 'sha256:e' }));
    expect(backend.writes).toBe(5);
  });

  it('writes updates made at once while one is being written together in the next write', async () => {
    const backend = new CountingWrites(path.join(dir, 'state.json'));
    const store = await StateStore.open(backend, 'default@local', 'test-fingerprint-key', new ManualClock());
    const first = store.updateNow((ws) => (ws.credentials['credential.a'] = { fingerprint: 'sha256:a' }));
    const others = ['b', 'c', 'd'].map((name) => store.updateNow((ws) => (ws.credentials[`credential.${name}`] = { fingerprint: `sha256:${name}` })));
    await Promise.all([first, ...others]);
    expect(backend.writes).toBe(2);
    const onDisk = (await readStateFile(path.join(dir, 'state.json'))).workspaces['default@local'];
    expect(Object.keys(onDisk?.credentials ?? {}).sort()).toEqual(['credential.a', 'credential.b', 'credential.c', 'credential.d']);
  });

  it('records the end of an apply at once, whatever the interval', async () => {
    const file = path.join(dir, 'state.json');
    const store = await StateStore.open(new FileStateBackend(file), 'default@local', 'test-fingerprint-key', new ManualClock());
    await store.update((ws) => (ws.credentials['credential.a'] = { fingerprint: 'sha256:a' }));
    await store.recordApplyEnd({ command: 'voxform apply', outcome: 'applied', applied: 1, failed: 0, skipped: 0 });
    expect((await readStateFile(file)).workspaces['default@local']?.lastApply?.outcome).toBe('applied');
  });

  it('rejects the updates of a write that failed, and writes later ones again', async () => {
    const file = path.join(dir, 'state.json');
    const store = await StateStore.open(new RefusingWrites(file, 1), 'default@local', 'test-fingerprint-key', new ManualClock());
    store.flush();
    await store.update((ws) => (ws.credentials['credential.a'] = { fingerprint: 'sha256:a' }));
    await expect(store.update((ws) => (ws.credentials['credential.b'] = { fingerprint: 'sha256:b' }))).rejects.toMatchObject({ code: 'state_conflict' });
    await expect(store.update((ws) => (ws.credentials['credential.c'] = { fingerprint: 'sha256:c' }))).rejects.toMatchObject({ code: 'state_conflict' });
    expect(Object.keys((await readStateFile(file)).workspaces['default@local']!.credentials)).toEqual(['credential.a']);
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
