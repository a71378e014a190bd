import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPlan, createClient, createPlan, fingerprintKey, loadManifests, startEmulator, StateStore } from '../src/index.js';
import { repoRoot } from './helpers/cli.js';
import { SECRETS } from './helpers/project.js';

describe('the library', () => {
  it('runs the whole pipeline: load, plan, apply, plan again with no changes', async () => {
    const emulator = await startEmulator({ quiet: true });
    const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-lib-'));
    try {
      const { state: desired, diagnostics } = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
      expect(diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const store = await StateStore.open(path.join(dir, 'state.json'), 'default@local', fingerprintKey(emulator.apiKey));
      const first = await createPlan({ desired: desired!, client, workspace: store.workspace, salt: store.fingerprintKey, baseUrl: 'local', files: [] });
      expect(first.plan.summary).toMatchObject({ create: 3, update: 4 });
      const result = await applyPlan({ plan: first.plan, desired: desired!, live: first.live, client, store, parallelism: 4 });
      expect(result.failed).toEqual([]);
      expect(result.applied).toHaveLength(7);
      const second = await createPlan({ desired: desired!, client, workspace: store.workspace, salt: store.fingerprintKey, baseUrl: 'local', files: [] });
      expect(second.plan.summary).toEqual({ create: 0, update: 0, unchanged: 7, drifted: 0 });
    } finally {
      await client.close();
      await emulator.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
