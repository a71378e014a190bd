import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach } from 'vitest';
import { createClient, type ApiClient } from '../../src/api/index.js';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { loadManifests } from '../../src/manifest/index.js';
import type { DesiredState } from '../../src/manifest/types.js';
import { fingerprintKey } from '../../src/util/hash.js';
import { repoRoot } from './cli.js';
import { SECRETS } from './project.js';

/**
 * What a test of the library's plan() and apply() starts from: an emulator on loopback, a client
 * of it, an empty temporary folder (for the state and history), and the example manifests loaded.
 */
export interface LibraryService {
  emulator: RunningEmulator;
  client: ApiClient;
  /** `fingerprintKey` of the emulator's API key. */
  key: string;
  dir: string;
  desired: DesiredState;
}

const started: LibraryService[] = [];

// Closed after each test of a file that starts one, whether the test passed or not.
afterEach(async () => {
  for (const service of started.splice(0)) {
    await service.client.close();
    await service.emulator.close();
    await rm(service.dir, { recursive: true, force: true });
  }
});

/** Starts a LibraryService, closed after the current test. */
export async function startLibraryService(): Promise<LibraryService> {
  const { state, diagnostics } = await loadManifests({ paths: ['agents.example.yaml'], cwd: repoRoot, env: SECRETS });
  const errors = diagnostics.filter((diagnostic) => diagnostic.severity === 'error');
  if (!state || errors.length > 0) throw new Error(`the example manifests do not load: ${errors.map((error) => error.message).join('; ')}`);
  const emulator = await startEmulator({ quiet: true });
  const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  const dir = await mkdtemp(path.join(tmpdir(), 'voxform-library-'));
  const service: LibraryService = { emulator, client, key: fingerprintKey(emulator.apiKey), dir, desired: state };
  started.push(service);
  return service;
}
