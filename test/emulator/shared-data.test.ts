import { mkdir, mkdtemp, readFile, rm, utimes } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { BOOKING, clientFor, FRONT_DESK } from './helpers.js';

let dir: string;
let dataFile: string;
const running: RunningEmulator[] = [];

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'voxform-shared-'));
  dataFile = path.join(dir, 'local.json');
});
afterEach(async () => {
  await Promise.all(running.splice(0).map((e) => e.close()));
  await rm(dir, { recursive: true, force: true });
});

/** One process's embedded emulator, as `--local` starts it. */
async function embedded(): Promise<RunningEmulator> {
  const emulator = await startEmulator({ dataFile, sharedDataFile: true, webhooks: 'none' });
  running.push(emulator);
  return emulator;
}

const onDisk = async () => JSON.parse(await readFile(dataFile, 'utf8'));

describe('a data file shared by several emulators (--local)', () => {
  it('each sees what the others wrote, and a write never undoes another one', async () => {
    const a = clientFor(await embedded());
    const b = clientFor(await embedded());
    expect((await a.put(`/agents/${FRONT_DESK}`, { name: 'Written by A', config: {} })).status).toBe(200);
    // B had loaded the file before A's write; its own write must not bring back the old front desk.
    expect((await b.put(`/agents/${BOOKING}`, { name: 'Written by B', config: {} })).status).toBe(200);
    expect((await b.get(`/agents/${FRONT_DESK}`)).body.name).toBe('Written by A');
    expect((await a.get(`/agents/${BOOKING}`)).body.name).toBe('Written by B');
    // A session started in one is in the call log the other serves.
    const call = (await a.post('/register_call', { agent_id: FRONT_DESK })).body.call_id as string;
    expect((await b.get('/call-logs?limit=1')).body.histories[0].call_id).toBe(call);

    const names = Object.fromEntries((await onDisk()).agents.map((agent: { id: string; name: string }) => [agent.id, agent.name]));
    expect(names[FRONT_DESK]).toBe('Written by A');
    expect(names[BOOKING]).toBe('Written by B');
  });

  it('concurrent writes from two emulators all survive', async () => {
    const first = await embedded();
    const second = await embedded();
    const a = clientFor(first);
    const b = clientFor(second);
    const made = await Promise.all(
      Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? a : b).post('/api_keys', { type: 'private', name: `key-${i}` })),
    );
    expect(made.every((answer) => answer.status === 201)).toBe(true);
    const names = (await onDisk()).keys.map((key: { name: string | null }) => key.name);
    for (let i = 0; i < 60; i++) expect(names).toContain(`key-${i}`);
    // Every key works in both emulators, whichever made it.
    for (const answer of made.slice(0, 4)) {
      expect((await clientFor({ ...first, apiKey: answer.body.key }).get('/phones')).status).toBe(200);
      expect((await clientFor({ ...second, apiKey: answer.body.key }).get('/phones')).status).toBe(200);
    }
  });

  it('two emulators started at once on a new file seed it once, and both serve it', async () => {
    const [a, b] = await Promise.all([embedded(), embedded()]);
    expect(a.apiKey).toBe(b.apiKey);
    expect((await clientFor(a).put(`/agents/${FRONT_DESK}`, { name: 'After start', config: {} })).status).toBe(200);
    expect((await clientFor(b).get(`/agents/${FRONT_DESK}`)).body.name).toBe('After start');
  });

  it('a lock left behind by a process that died is taken over', async () => {
    const emulator = await embedded();
    const lockDir = `${dataFile}.lock`;
    await mkdir(lockDir);
    const longAgo = new Date(Date.now() - 60_000);
    await utimes(lockDir, longAgo, longAgo);
    expect((await clientFor(emulator).put(`/agents/${FRONT_DESK}`, { name: 'Lock taken over', config: {} })).status).toBe(200);
    expect((await onDisk()).agents.find((agent: { id: string }) => agent.id === FRONT_DESK).name).toBe('Lock taken over');
  });

  it('in-process controls (end a call, reset) work on a shared file', async () => {
    const emulator = await embedded();
    const other = await embedded();
    const call = (await clientFor(other).post('/register_call', { agent_id: FRONT_DESK })).body.call_id as string;
    const ended = await emulator.control.endCall(call, 'user-ended', { duration: 3 });
    expect(ended.record.call_status).toBe('user-ended');
    expect((await clientFor(other).get('/call-logs?limit=1')).body.histories[0]).toMatchObject({ call_id: call, call_status: 'user-ended', duration: 3 });
    await clientFor(other).put(`/agents/${FRONT_DESK}`, { name: 'Before reset', config: {} });
    await emulator.control.reset();
    expect((await clientFor(other).get(`/agents/${FRONT_DESK}`)).body.name).toBe('Front desk');
  });

  it('reads do not wait for the lock: a command that only reads starts and answers while another holds it', async () => {
    const writer = await embedded();
    await clientFor(writer).put(`/agents/${FRONT_DESK}`, { name: 'Before the lock', config: {} });
    // Another process holds the lock and keeps it fresh, as proper-lockfile does, so it is never taken over.
    const lockDir = `${dataFile}.lock`;
    await mkdir(lockDir);
    const holder = setInterval(() => void utimes(lockDir, new Date(), new Date()).catch(() => undefined), 1000);
    try {
      const reader = await embedded();
      expect((await clientFor(reader).get(`/agents/${FRONT_DESK}`)).body.name).toBe('Before the lock');
      expect((await clientFor(reader).get('/call-logs?limit=1')).status).toBe(200);
    } finally {
      clearInterval(holder);
    }
  });
});
