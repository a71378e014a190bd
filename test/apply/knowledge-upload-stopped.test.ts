/**
 * A knowledge upload is three requests: a presigned target asked for, the file posted to storage,
 * then `create_file`, the one write that makes a file the service has. What fails or is stopped
 * before `create_file` left made no file: it is never said to be one the service may have made.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply, createClient, fingerprintKey, loadManifests } from '../../src/index.js';
import { SECRETS, useExampleProjects, type ExampleProject } from '../helpers/project.js';

const startProject = useExampleProjects();

/** Applies the example project's manifests with a client made as the CLI makes it (bounded to apply's parallelism). */
async function applyExample(p: ExampleProject, options: { retries?: number; signal?: AbortSignal; stopGraceMs?: number }) {
  const client = createClient({ baseUrl: p.url, apiKey: p.emulator.apiKey, maxInFlight: 8, retries: options.retries });
  const { state: desired } = await loadManifests({ paths: ['voxform.yaml'], cwd: p.dir, env: SECRETS });
  const outcome = apply({
    client,
    stateFile: path.join(p.dir, '.voxform', 'state.json'),
    serviceId: 'local',
    fingerprintKey: fingerprintKey(p.emulator.apiKey),
    desired: desired!,
    autoApprove: true,
    parallelism: 8,
    signal: options.signal,
    stopGraceMs: options.stopGraceMs,
  });
  return { outcome, client };
}

describe('a knowledge upload cut off before its create_file', () => {
  it('by a stop that gives up waiting while the file is posted to storage: not applied, with no outcome to check', async () => {
    const p = await startProject();
    const storage = p.hold('POST', '/_emulator/uploads');
    const stop = new AbortController();
    const { outcome, client } = await applyExample(p, { signal: stop.signal, stopGraceMs: 0 });
    try {
      await storage.arrived(1);
      stop.abort();
      const result = await outcome;
      expect(result.failed.filter((failure) => failure.address.startsWith('knowledge.'))).toEqual([]);
      expect(result.stopped).toContain('knowledge.faq');
      storage.release();
      await client.close();
      expect(p.emulator.control.state().knowledge.files).toEqual([]);
    } finally {
      storage.release();
      await client.close();
    }
  });

  it.each([
    ['a presign request', '/knowledge/generate_presigned_url'],
    ['a connection to storage', '/_emulator/uploads'],
  ])('by %s that drops: failed, never "the service may have applied it"', async (_, dropped) => {
    const p = await startProject();
    p.emulator.control.setFaults([{ path: dropped, dropRate: 1, dropPhase: 'after' }]);
    const { outcome, client } = await applyExample(p, { retries: 0 });
    try {
      const result = await outcome;
      const upload = result.failed.find((failure) => failure.address === 'knowledge.faq');
      expect(upload?.error).toMatchObject({ code: 'api_unavailable', message: expect.stringContaining(`POST ${dropped} failed`) });
      expect(upload?.error).not.toMatchObject({ message: expect.stringMatching(/may have/) });
      expect(upload?.error).not.toMatchObject({ hint: expect.stringMatching(/may have|voxform plan/) });
      expect(p.emulator.control.state().knowledge.files).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
