/**
 * apply() with a saved plan and the plan's own `targets` beside it, as the CLI passes them: the two
 * lists are compared with work that grows with their length, not its square. The plan file may have
 * been edited to name any number of targets, and this runs before its digest is checked.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apply } from '../../src/apply/apply.js';
import type { ApplyClient } from '../../src/apply/client.js';
import type { SavedPlan } from '../../src/plan/plan-file.js';
import { useTempDirs } from '../helpers/cli.js';
import { desiredState } from '../helpers/desired.js';
import { countingReads } from '../helpers/counting-reads.js';

const tempDir = useTempDirs();

/** A client whose every call fails: nothing may be read or written here. */
const refusingClient = new Proxy({} as ApplyClient, {
  get: (_, key) => (key === 'then' ? undefined : () => Promise.reject(new Error('no request may be sent'))),
});

describe('apply() with a saved plan naming many targets', () => {
  it("compares the targets given with the plan's own in one pass, not one search of its list per target", async () => {
    const n = 3000;
    const targets = Array.from({ length: n }, (_, i) => `agent.desk-${i}`);
    const own = countingReads([...targets]);
    const savedPlan = {
      format_version: '1.8',
      kind: 'voxform-plan',
      created_at: '2026-01-01T00:00:00.000Z',
      manifest_hash: 'sha256:manifest',
      files: [],
      environment: null,
      base_url: 'https://other.example',
      targets: own.list,
      secrets_digest: '',
      fingerprint_key_id: '',
      plan_digest: '',
      resource_changes: [],
    } satisfies SavedPlan;
    const applying = apply({ desired: desiredState({}), client: refusingClient, stateFile: path.join(await tempDir(), 'state.json'), serviceId: 'local', fingerprintKey: 'key', savedPlan, targets });
    // Its own targets taken; refused then as made for another service, nothing sent.
    await expect(applying).rejects.toMatchObject({ code: 'plan_stale', message: expect.stringContaining('made for') });
    // Searched once per target: about n * n / 2 reads; read into a set: a few per target.
    expect(own.reads()).toBeLessThan(10 * n);
  });
});
