import { describe, expect, it, vi } from 'vitest';
import { diffStates } from '../../src/plan/diff.js';
import * as fingerprints from '../../src/plan/fingerprint.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { desiredAgent, desiredCampaign, desiredPhone, desiredState } from '../helpers/desired.js';

// Every call of `fingerprint` (the keyed hash behind each change's live fingerprint) is counted.
vi.mock('../../src/plan/fingerprint.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/plan/fingerprint.js')>();
  return { ...original, fingerprint: vi.fn(original.fingerprint) };
});

const liveAgent = (id: string, prompt: string): Agent => ({ id, name: 'Desk', config: { prompt, voice: { voice_id: 'ava', settings: { stability: 0.5 } } }, created_at: 1 });

function planned() {
  const agents = [desiredAgent('front', { id: 'a1', config: { prompt: 'New' } }), desiredAgent('back', { id: 'a2', config: { prompt: 'Same' } })];
  const desired = desiredState({
    agents,
    phones: [desiredPhone('+15551230001', { agent: { localName: 'front', id: 'a1' } }), desiredPhone('+15551230002')],
    campaigns: [desiredCampaign('spring', { name: 'Spring' })],
  });
  const live = {
    agents: new Map([
      ['a1', liveAgent('a1', 'Old')],
      ['a2', liveAgent('a2', 'Same')],
    ]),
    phones: [{ id: '+15551230001', agent_id: 'a2' }] as never[],
  };
  const state = emptyWorkspace();
  const { changes } = diffStates({ desired, live, state, salt: 'salt', baseUrl: 'local', files: [] });
  return { changes, desired, live, state };
}

describe("a change's live fingerprint", () => {
  it('is made when first read, once, and equals the one `apply PLAN` computes from the same live state', () => {
    const hashed = vi.mocked(fingerprints.fingerprint);
    hashed.mockClear();
    const { changes, desired, live, state } = planned();
    expect(hashed).not.toHaveBeenCalled();

    const now = fingerprints.liveFingerprints(desired, live, state, 'salt');
    hashed.mockClear();
    for (const change of changes) expect(change.liveFingerprint).toBe(now.get(change.address));
    expect(hashed).toHaveBeenCalledTimes(changes.length);
    for (const change of changes) expect(change.liveFingerprint).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(hashed).toHaveBeenCalledTimes(changes.length);
  });

  it('is written with the rest of the change (JSON, spread copies)', () => {
    const { changes } = planned();
    const [first] = changes;
    expect(JSON.parse(JSON.stringify(first)).liveFingerprint).toBe(first!.liveFingerprint);
    expect({ ...first }.liveFingerprint).toBe(first!.liveFingerprint);
  });

});
