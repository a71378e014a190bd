import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { defaultSeed, startEmulator } from '../../src/emulator/index.js';
import { readSeedFile, seedProblems } from '../../src/emulator/seed.js';
import { configurationHash } from '../../src/history/config-hash.js';
import { repoRoot } from '../helpers/cli.js';
import { clientFor, expectSchema } from './helpers.js';

describe('the default seed', () => {
  const seed = defaultSeed();
  const example = parse(readFileSync(path.join(repoRoot, 'agents.example.yaml'), 'utf8'));

  it('is valid', () => {
    expect(seedProblems(seed)).toEqual([]);
    for (const agent of seed.agents ?? []) expectSchema('Agent', agent);
  });

  it('holds every agent of agents.example.yaml (and its staging environment) in full read shape', () => {
    const ids = new Set(seed.agents?.map((a) => a.id));
    for (const agent of Object.values(example.agents) as Array<{ id: string }>) expect(ids.has(agent.id)).toBe(true);
    for (const agent of Object.values(example.environments.staging.agents) as Array<{ id: string }>) expect(ids.has(agent.id)).toBe(true);
    for (const agent of seed.agents ?? []) {
      expect(agent.config.voice?.provider, agent.id).toBeTruthy();
      expect(agent.config.llm?.model, agent.id).toBeTruthy();
      expect(agent.config.flow?.voicemail?.action, agent.id).toBeTruthy();
      expect(agent.config.speech_to_text?.provider, agent.id).toBeTruthy();
      for (const tool of agent.config.tools ?? []) expect(tool.response_mode).toBeTruthy();
    }
    expect(seed.agents?.filter((a) => a.id.startsWith('-OKspareAgent'))).toHaveLength(5);
  });

  it("records each call with its agent's whole configuration, as the service does, so the report tells the agents' versions apart", () => {
    const configOf = new Map(seed.agents?.map((agent) => [agent.id, agent.config]));
    const hashes = new Set<string>();
    for (const call of seed.call_logs ?? []) {
      const config = configOf.get(call.agent_id ?? '');
      expect(config, call.call_id).toBeDefined();
      const hash = configurationHash(call.agent_config ?? {});
      expect(hash, call.call_id).toBe(configurationHash(config as Record<string, unknown>));
      hashes.add(hash);
    }
    // The front desk and its staging copy share a configuration; the booking agent has its own.
    expect(hashes.size).toBe(2);
  });

  it('differs from the example manifest, so a first plan shows changes', () => {
    for (const [, spec] of Object.entries(example.agents) as Array<[string, { id: string; config: Record<string, unknown> }]>) {
      const live = seed.agents?.find((a) => a.id === spec.id);
      expect(live?.config.first_message).not.toBe(spec.config.first_message);
    }
  });

  it('has the first phone, not the imported one, and the campaign', () => {
    const phones = seed.phones?.map((p) => p.id);
    expect(phones).toContain('+15551230001');
    expect(phones).not.toContain('+15551230002');
    expect(seed.campaigns?.find((c) => c.id === 'cmp_recall_2026')?.status).toBe('idle');
  });

  it('has 40 call records with strictly decreasing ts', () => {
    const logs = seed.call_logs ?? [];
    expect(logs).toHaveLength(40);
    for (let i = 1; i < logs.length; i++) expect(logs[i]!.ts!).toBeLessThan(logs[i - 1]!.ts!);
    expect(new Set(logs.map((r) => r.call_status)).size).toBeGreaterThan(5);
  });

  it('is a fresh copy each time', () => {
    const a = defaultSeed();
    a.agents!.length = 0;
    expect(defaultSeed().agents!.length).toBeGreaterThan(0);
  });
});

describe('seed files', () => {
  it('loads a YAML seed (raw keys hashed) and refuses an invalid one naming every problem', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-seed-'));
    try {
      const good = path.join(dir, 'seed.yaml');
      await writeFile(
        good,
        [
          'keys:',
          '  - { type: private, key: abcdefabcdefabcdefabcdefabcdef12 }',
          'agents:',
          '  - id: ag_1',
          '    name: One',
          '    config: { prompt: Hello, voice: { provider: openai, voice_id: alloy } }',
          'phones:',
          '  - { id: "+15550000001", agent_id: ag_1 }',
          'campaigns:',
          '  - { id: cmp_1, name: C, status: idle }',
          'call_logs:',
          '  - { call_id: c1, agent_id: ag_1, ts: 100, call_status: user-ended }',
        ].join('\n'),
      );
      const emulator = await startEmulator({ seed: good });
      try {
        expect(emulator.apiKey).toBe('abcdefabcdefabcdefabcdefabcdef12');
        const c = clientFor(emulator);
        expect((await c.get('/agents/ag_1')).body.config.voice).toEqual({ provider: 'openai', voice_id: 'alloy' });
        expect((await c.get('/phones')).body).toEqual([{ id: '+15550000001', agent_id: 'ag_1', tags: [] }]);
        expect((await c.get('/call-logs')).body.histories.map((r: { call_id: string }) => r.call_id)).toEqual(['c1']);
      } finally {
        await emulator.close();
      }

      const bad = path.join(dir, 'bad.json');
      await writeFile(bad, JSON.stringify({ agent: [], agents: [{ id: 'a', config: { voice: { speed: 1 } } }], keys: [{ type: 'admin' }], call_logs: [{ ts: 'x' }] }));
      const error = await startEmulator({ seed: bad }).then(
        () => undefined,
        (e: unknown) => e as { code: string; message: string },
      );
      expect(error?.code).toBe('emulator_seed_invalid');
      for (const part of ['agent: is not a known field', 'agents[0].name', 'agents[0].config.voice.speed', 'keys[0].type', 'call_logs[0].call_id', 'call_logs[0].ts']) {
        expect(error?.message).toContain(part);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses duplicate ids', () => {
    expect(seedProblems({ agents: [{ id: 'a', name: 'A', config: {} }, { id: 'a', name: 'B', config: {} }] })).toEqual(['agents[1].id: "a" is already used by agents[0]']);
  });
});

describe('a seed file that cannot be read', () => {
  it('is named once, with why in words, not the system error that repeats its path', async () => {
    const file = path.join(tmpdir(), 'voxform-no-such-seed.json');
    await expect(readSeedFile(file)).rejects.toMatchObject({ code: 'emulator_seed_unreadable', message: `The seed file ${file} does not exist.` });
    await expect(readSeedFile(tmpdir())).rejects.toMatchObject({ message: `The seed file ${tmpdir()} is a folder, not a file.` });
  });
});
