import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { RequestLog } from '../../src/emulator/request-log.js';
import { loadSeedIntoStore, resolveSeed } from '../../src/emulator/seed.js';
import { SessionManager } from '../../src/emulator/sessions.js';
import { SharedDataFile } from '../../src/emulator/shared-file.js';
import { EmulatorStore } from '../../src/emulator/store.js';
import { WebhookSender } from '../../src/emulator/webhooks.js';
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

describe('many shared data files in one process', () => {
  it('add no per-file context to every later promise of the process', async () => {
    // On Node 20 each async-context storage a process ever used is copied onto every promise made
    // after: one per data file would slow every later promise of a program that opens many.
    const contextsOnAPromise = () => Object.getOwnPropertySymbols(Promise.resolve()).length;
    const host = { reload: async () => true, dirty: () => false, write: async () => undefined };
    const first = new SharedDataFile(path.join(dir, 'first.json'), host, () => undefined);
    await first.run(false, () => undefined);
    const before = contextsOnAPromise();
    for (let i = 0; i < 20; i++) {
      const file = new SharedDataFile(path.join(dir, `data-${i}.json`), host, () => undefined);
      // Inside its batch, a file knows it is in one; another file's batch is not its own.
      expect(await file.run(false, () => [file.inBatch, first.inBatch])).toEqual([true, false]);
    }
    expect(contextsOnAPromise()).toBe(before);
  });
});

describe('when a shared data file is written for a chat', () => {
  const identity = async () => {
    const file = await stat(dataFile, { bigint: true });
    return `${file.ino}:${file.mtimeNs}`;
  };
  /** A chat of `turns` requests, each carrying the conversation so far; the last ends it. `between` runs after each turn. */
  async function chat(client: ReturnType<typeof clientFor>, turns: number, between: () => Promise<void>): Promise<Set<string>> {
    const messages: Array<{ role: string; content: string }> = [];
    const callIds = new Set<string>();
    for (let turn = 0; turn < turns; turn++) {
      messages.push({ role: 'user', content: `Question ${turn}` });
      const answer = await client.post('/chat/completions', { agent: { agent_id: FRONT_DESK }, messages, end_of_session: turn === turns - 1 });
      expect(answer.status).toBe(200);
      callIds.add(/"id":"chatcmpl-([^"]+)"/.exec(answer.text)?.[1] as string);
      messages.push({ role: 'assistant', content: `[Front desk] You said: Question ${turn}` });
      await between();
    }
    return callIds;
  }

  it('writes it when it starts and when it ends, not at every turn between', async () => {
    const client = clientFor(await embedded());
    const writes = new Set([await identity()]);
    await chat(client, 6, async () => void writes.add(await identity()));
    // The seeded file, the chat's start, its end.
    expect(writes.size).toBe(3);
    expect(JSON.parse((await onDisk()).call_logs[0].chat)).toHaveLength(12);
  });

  it('goes on with the same call when another process wrote the file between two turns', async () => {
    const client = clientFor(await embedded());
    const other = clientFor(await embedded());
    let writes = 0;
    const callIds = await chat(client, 4, async () => void expect((await other.put(`/agents/${BOOKING}`, { name: `Write ${++writes}`, config: {} })).status).toBe(200));
    expect(callIds.size).toBe(1);
    const record = (await other.get('/call-logs?limit=1')).body.histories[0];
    expect(record).toMatchObject({ call_id: [...callIds][0], call_status: 'chat_completion' });
    expect(JSON.parse(record.chat)).toHaveLength(8);
  });
});

describe('what a shared data file keeps of the sessions it served', () => {
  it('drops the oldest ended chats past its bound, so what a write costs stops growing with the chats before', async () => {
    // The bound made small, so that a few chats pass it: the rule is the same at the real size.
    const store = new EmulatorStore(dataFile, { shared: true, transcriptsKept: 100_000 });
    const sessions = new SessionManager(store, new WebhookSender(1000, 'none'), new RequestLog(10));
    const seed = await resolveSeed(undefined);
    await store.access(true, async () => {
      loadSeedIntoStore(store, seed);
      await store.commit();
    });
    const chat = (content: string, end: boolean) =>
      store.access(true, async () => {
        const { session } = await sessions.chatTurn({ agent_id: FRONT_DESK }, [{ role: 'user', content }], undefined);
        if (end) sessions.end(session, 'chat_completion', {}, undefined, 'http://127.0.0.1');
        await store.commit();
        return session.call_id;
      });
    const open = await chat('A chat still going on', false);
    const written: number[] = [];
    const ended: string[] = [];
    // Each chat holds about 20 kB: its message, and the reply that echoes it, in its record and its session.
    for (let i = 0; i < 20; i++) {
      ended.push(await chat(`${i} ${'x'.repeat(5_000)}`, true));
      written.push((await stat(dataFile)).size);
    }
    const lastWrites = written.slice(-5);
    expect(Math.max(...lastWrites) - Math.min(...lastWrites)).toBeLessThan(5_000);
    const onDisk = JSON.parse(await readFile(dataFile, 'utf8'));
    const calls = new Set(onDisk.call_logs.map((record: { call_id: string }) => record.call_id));
    expect(calls.has(ended.at(-1))).toBe(true);
    expect(calls.has(ended[0])).toBe(false);
    expect(onDisk.sessions.some((session: { call_id: string }) => session.call_id === ended[0])).toBe(false);
    // An open session stays, however old; so do the call records no session made (the seed's, synthetic traffic).
    expect(calls.has(open)).toBe(true);
    expect(onDisk.call_logs.length - onDisk.sessions.length).toBe(seed.call_logs?.length);
  });
});

describe('a data file an emulator owns (`voxform emulator --data`) is never shared', () => {
  /** An emulator that owns the file, as `voxform emulator --data` starts one. */
  async function owner(): Promise<RunningEmulator> {
    const emulator = await startEmulator({ dataFile, webhooks: 'none' });
    running.push(emulator);
    return emulator;
  }

  it('an owner is refused while a --local command has the file open, and starts once it closed', async () => {
    const local = await embedded();
    await expect(startEmulator({ dataFile, webhooks: 'none' })).rejects.toMatchObject({
      code: 'emulator_data_in_use',
      message: expect.stringMatching(new RegExp(`is in use by \\S+@${hostname()} \\(pid ${process.pid}, "voxform … --local", since [^)]+\\), whose embedded emulator shares it`)),
      hint: expect.stringContaining('point --data at another file'),
    });
    await local.close();
    running.splice(running.indexOf(local), 1);
    await owner();
  });

  it('a --local command, and a second owner, are refused while an owner has it, which keeps its file as it was', async () => {
    const first = await owner();
    await clientFor(first).put(`/agents/${FRONT_DESK}`, { name: 'Kept by the owner', config: {} });
    await expect(startEmulator({ dataFile, sharedDataFile: true, webhooks: 'none' })).rejects.toMatchObject({
      code: 'emulator_data_in_use',
      message: expect.stringMatching(new RegExp(`is in use by \\S+@${hostname()} \\(pid ${process.pid}, "voxform emulator --data", since [^)]+\\), which keeps the account`)),
    });
    await expect(startEmulator({ dataFile, webhooks: 'none' })).rejects.toMatchObject({ code: 'emulator_data_in_use', message: expect.stringContaining('a second emulator') });
    expect((await onDisk()).agents.find((agent: { id: string }) => agent.id === FRONT_DESK).name).toBe('Kept by the owner');
    // The refused ones took their names back: only the owner's is left.
    expect(await readdir(`${dataFile}.users.lock`)).toHaveLength(1);
  });

  it('names the users folder when a file stands in its place', async () => {
    await writeFile(`${dataFile}.users.lock`, '');
    await expect(startEmulator({ dataFile, webhooks: 'none' })).rejects.toMatchObject({
      code: 'emulator_data_unwritable',
      message: expect.stringContaining(`${dataFile}.users.lock is a file`),
    });
  });

  it('forgets a user whose process no longer runs on this host', async () => {
    const gone = spawnSync(process.execPath, ['-e', '']).pid;
    await mkdir(`${dataFile}.users.lock`);
    const left = { user: 'someone', host: hostname(), pid: gone, command: 'voxform emulator --data', use: 'owns', since: '2026-01-01T00:00:00.000Z' };
    await writeFile(path.join(`${dataFile}.users.lock`, 'left-behind.json'), JSON.stringify(left));
    await embedded();
    expect(await readdir(`${dataFile}.users.lock`)).not.toContain('left-behind.json');
  });

  it('forgets a name of this host and pid that this process did not write (a restarted container runs as pid 1 again)', async () => {
    await mkdir(`${dataFile}.users.lock`);
    const left = { user: 'someone', host: hostname(), pid: process.pid, command: 'voxform emulator --data', use: 'owns', since: '2026-01-01T00:00:00.000Z' };
    await writeFile(path.join(`${dataFile}.users.lock`, 'before-restart.json'), JSON.stringify(left));
    await owner();
    expect(await readdir(`${dataFile}.users.lock`)).not.toContain('before-restart.json');
  });

  it('names another user as a state lock names its holder, the control characters of its entry as ?', async () => {
    await mkdir(`${dataFile}.users.lock`);
    const ESC = '\u001b';
    const planted = { user: `ana${ESC}]0;owned\u0007`, host: `elsewhere${ESC}[5m.invalid`, pid: 4242, command: `voxform emulator --data${ESC}[2J`, use: 'owns', since: `then${ESC}[1m` };
    await writeFile(path.join(`${dataFile}.users.lock`, `planted${ESC}[31m.json`), JSON.stringify(planted));
    const refused = (await embedded().catch((error: unknown) => error)) as { code: string; message: string; hint: string };
    expect(refused.code).toBe('emulator_data_in_use');
    expect(refused.message).toContain('is in use by ana?]0;owned?@elsewhere?[5m.invalid (pid 4242, "voxform emulator --data?[2J", since then?[1m), which keeps');
    expect(refused.hint).toContain(`delete ${dataFile}.users.lock/planted?[31m.json`);
    expect(`${refused.message}${refused.hint}`).not.toMatch(/[\u0000-\u001f]/);
  });

  it('names another user whose entry says not since when, without a time', async () => {
    await mkdir(`${dataFile}.users.lock`);
    const planted = { user: 'ana', host: 'elsewhere.invalid', pid: 4242, command: 'voxform emulator --data', use: 'owns' };
    await writeFile(path.join(`${dataFile}.users.lock`, 'no-time.json'), JSON.stringify(planted));
    const refused = (await embedded().catch((error: unknown) => error)) as { code: string; message: string };
    expect(refused.code).toBe('emulator_data_in_use');
    expect(refused.message).toContain('is in use by ana@elsewhere.invalid (pid 4242, "voxform emulator --data"), which keeps');
  });
});
