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
    expect(JSON.parse(await readFile(dataFile, 'utf8'))).toMatchObject({ format: 'voxform-emulator-data', version: 2 });
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
