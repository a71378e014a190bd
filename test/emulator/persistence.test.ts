import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEmulator } from '../../src/emulator/index.js';
import { EmulatorStore } from '../../src/emulator/store.js';
import { clientFor, FRONT_DESK } from './helpers.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'voxform-emulator-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('the data file', () => {
  it('is created from the seed, and a restart loads what was changed', async () => {
    const dataFile = path.join(dir, 'local.json');
    const first = await startEmulator({ dataFile });
    const c1 = clientFor(first);
    expect(JSON.parse(await readFile(dataFile, 'utf8'))).toMatchObject({ format: 'voxform-emulator-data', version: 3 });
    expect((await c1.put(`/agents/${FRONT_DESK}`, { name: 'Persisted', config: { prompt: 'Kept across restarts' } })).status).toBe(200);
    const key = (await c1.post('/api_keys', { type: 'private', name: 'ci' })).body.key as string;
    await c1.post('/phones/import', { country: 'US', phone: '+15551230002', region: 'us-west', api_key: 'k', api_secret: 'secret-of-import' });
    const call = (await c1.post('/register_call', { agent_id: FRONT_DESK })).body;
    await first.close();

    const text = await readFile(dataFile, 'utf8');
    expect(text).not.toContain(key);
    expect(text).not.toContain('secret-of-import');

    const second = await startEmulator({ dataFile });
    try {
      expect(second.apiKey).toBe(first.apiKey);
      const c2 = clientFor(second);
      const agent = (await c2.get(`/agents/${FRONT_DESK}`)).body;
      expect(agent).toMatchObject({ name: 'Persisted', config: { prompt: 'Kept across restarts' } });
      expect(agent.config.voice.provider).toBe('elevenlabs');
      expect((await clientFor({ ...second, apiKey: key }).get('/phones')).body.map((p: { id: string }) => p.id)).toContain('+15551230002');
      // An open call survives the restart and can still be ended.
      expect((await c2.post(`/_emulator/calls/${call.call_id}/end`, { status: 'user-ended' })).status).toBe(200);
    } finally {
      await second.close();
    }
  });

  it('coalesces concurrent changes and every acknowledged change is on disk', async () => {
    const dataFile = path.join(dir, 'busy.json');
    const emulator = await startEmulator({ dataFile });
    const c = clientFor(emulator);
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => c.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config: { custom_vocabulary: { keywords: { [`word${i}`]: i } } } })),
    );
    expect(answers.every((a) => a.status === 200)).toBe(true);
    // Every answer came after its write: the file already holds the final state, before close().
    const onDisk = JSON.parse(await readFile(dataFile, 'utf8'));
    const live = (await c.get(`/agents/${FRONT_DESK}`)).body;
    expect(onDisk.agents.find((a: { id: string }) => a.id === FRONT_DESK).config.custom_vocabulary).toEqual(live.config.custom_vocabulary);
    await emulator.close();
  });

  it("writes an ended chat's transcript once, in its call record, and a session continued after a restart has its history", async () => {
    const dataFile = path.join(dir, 'chat.json');
    const first = await startEmulator({ dataFile });
    const question = 'A question asked once';
    expect((await clientFor(first).post('/chat/completions', { agent: { agent_id: FRONT_DESK }, messages: [{ role: 'user', content: question }], end_of_session: true })).status).toBe(200);
    await first.close();
    const text = await readFile(dataFile, 'utf8');
    // The question and the reply that echoes it, in the call record only.
    expect(text.split(question).length - 1).toBe(2);
    const second = await startEmulator({ dataFile });
    const sessionId = JSON.parse(text).sessions[0].session_id as string;
    expect((await clientFor(second).post('/register_call', { agent_id: FRONT_DESK, session_continuation: { session_id: sessionId } })).status).toBe(200);
    const continued = (await clientFor(second).get('/call-logs?limit=1')).body.histories[0];
    expect(continued.session_id).toBe(sessionId);
    expect(JSON.parse(continued.chat)[0]).toEqual({ role: 'user', content: question });
    await second.close();
  });

  it('a change committed right as a write finishes is written too (no lost wake-up)', async () => {
    const store = new EmulatorStore(path.join(dir, 'store.json'));
    for (let i = 0; i < 30; i++) {
      // A commit made from the continuation of a settled one, and one from a later microtask.
      await store.commit().then(() => store.commit());
      await Promise.all([store.commit(), Promise.resolve().then(() => store.commit())]);
    }
    store.agents.set('ag_last', { id: 'ag_last', name: 'Last', config: {} });
    await store.commit();
    const onDisk = JSON.parse(await readFile(path.join(dir, 'store.json'), 'utf8'));
    expect(onDisk.agents.map((a: { id: string }) => a.id)).toEqual(['ag_last']);
  });

  /** A data file the emulator wrote, holding an open call with its own config, and synthetic traffic. */
  async function writtenDataFile(): Promise<{ dataFile: string; data: Record<string, any> }> {
    const dataFile = path.join(dir, 'written.json');
    const emulator = await startEmulator({ dataFile });
    const c = clientFor(emulator);
    expect((await c.post('/register_call', { agent_id: FRONT_DESK, agent_config: { prompt: 'Override' } })).status).toBe(200);
    await emulator.control.traffic({ calls: 3 });
    await emulator.close();
    return { dataFile, data: JSON.parse(await readFile(dataFile, 'utf8')) };
  }

  it('loads again every file it wrote: its agents, phones, campaigns, call logs and sessions are of the shape it relies on', async () => {
    const { dataFile, data } = await writtenDataFile();
    expect(data.sessions.length).toBeGreaterThan(0);
    expect(data.campaigns.length).toBeGreaterThan(0);
    const again = await startEmulator({ dataFile });
    await again.close();
  });

  const damaged: Array<{ name: string; damage: (data: Record<string, any>) => void; problem: string }> = [
    { name: 'agents that are no list', damage: (data) => (data.agents = 'x'), problem: 'agents is a string, where a list belongs' },
    { name: "an agent's config of null", damage: (data) => (data.agents[1].config = null), problem: "agents[1].config is null, where the agent's configuration (an object) belongs" },
    { name: "an agent's tools that are no list", damage: (data) => (data.agents[0].config.tools = 'x'), problem: 'agents[0].config.tools must be array' },
    { name: 'an agent without a name', damage: (data) => delete data.agents[0].name, problem: 'agents[0].name is required' },
    { name: 'a phone of null', damage: (data) => (data.phones[0] = null), problem: 'phones[0] is null, where an object belongs' },
    { name: 'a campaign without an id', damage: (data) => delete data.campaigns[0].id, problem: 'campaigns[0].id is missing, where a string belongs' },
    { name: 'a call record whose ts is a string', damage: (data) => (data.call_logs[0].ts = '1'), problem: 'call_logs[0].ts is a string, where a number belongs' },
    { name: "a call record's config that is a list", damage: (data) => (data.call_logs[0].agent_config = []), problem: 'call_logs[0].agent_config is a list, where a configuration (an object), or nothing belongs' },
    { name: 'knowledge files that are no list', damage: (data) => (data.knowledge.files = {}), problem: 'knowledge.files is an object, where a list belongs' },
    { name: "a session's config of null", damage: (data) => (data.sessions[0].config = null), problem: "sessions[0].config is null, where the session's configuration (an object) belongs" },
    { name: "a session's transcript that is no list", damage: (data) => (data.sessions[0].transcript = 'x'), problem: 'sessions[0].transcript is a string, where a list of messages (objects) belongs' },
    { name: 'a key whose type is neither', damage: (data) => (data.keys[0].type = 'admin'), problem: 'keys[0].type is a string, where "private" or "public" belongs' },
    { name: 'a version it does not read', damage: (data) => (data.version = 4), problem: 'version is the number 4, where 1 or 2 or 3 belongs' },
  ];

  it.each(damaged)('refuses $name when it loads the file, naming the field', async ({ damage, problem }) => {
    const { dataFile, data } = await writtenDataFile();
    damage(data);
    await writeFile(dataFile, JSON.stringify(data));
    await expect(startEmulator({ dataFile })).rejects.toMatchObject({
      code: 'emulator_data_invalid',
      message: `The emulator data file ${dataFile} cannot be used: ${problem}.`,
      hint: 'Point --data at a new file, or delete this one to start again from the seed.',
    });
  });

  it('refuses a data file that is not one, with a clear error', async () => {
    const dataFile = path.join(dir, 'broken.json');
    await writeFile(dataFile, '{"agents": ');
    await expect(startEmulator({ dataFile })).rejects.toMatchObject({ code: 'emulator_data_invalid', message: expect.stringContaining('not valid JSON') });
    await writeFile(dataFile, '{"hello": "world"}');
    await expect(startEmulator({ dataFile })).rejects.toMatchObject({ code: 'emulator_data_invalid' });
  });

  it('reset returns to the seed and is persisted too', async () => {
    const dataFile = path.join(dir, 'reset.json');
    const emulator = await startEmulator({ dataFile });
    const c = clientFor(emulator);
    await c.put(`/agents/${FRONT_DESK}`, { name: 'Changed', config: {} });
    expect((await c.post('/_emulator/reset', {})).status).toBe(200);
    await emulator.close();
    const again = await startEmulator({ dataFile });
    expect((await clientFor(again).get(`/agents/${FRONT_DESK}`)).body.name).toBe('Front desk');
    await again.close();
  });
});
