import { describe, expect, it } from 'vitest';
import { stateFileBytes } from '../../src/state/serialize.js';
import { emptyWorkspace, type StateFile, type WorkspaceState } from '../../src/state/types.js';
import { seededRandom } from '../../src/util/seeded-random.js';

const reference = (state: StateFile): string => `${JSON.stringify(state, null, 2)}\n`;

function randomWorkspace(next: () => number, round: number): WorkspaceState {
  const ws = emptyWorkspace();
  const count = Math.floor(next() * 6);
  for (let i = 0; i < count; i++) {
    ws.agents[`agent.a${i}`] = { id: `id-${i}`, applied: { name: `hmac-sha256:${round}${i}`, 'config.prompt': 'é "quoted"\n' } };
    ws.phones[`phone.+1555000000${i}`] = { agentId: next() < 0.3 ? undefined : `id-${i}`, imported: next() < 0.5 };
    if (next() < 0.5) ws.campaigns[`campaign.c${i}`] = { id: `cmp_${i}`, applied: next() < 0.5 ? {} : { name: 'Spring', include_metadata_in_prompt: true } };
    if (next() < 0.3) ws.knowledge[`knowledge.k${i}`] = { fileId: 'f', contentHash: 'sha256:x', name: 'faq.md', description: next() < 0.5 ? undefined : 'FAQ' };
    if (next() < 0.3) ws.credentials[`credential.p${i}`] = { fingerprint: 'hmac-sha256:y' };
  }
  if (next() < 0.5) ws.environmentVariables = next() < 0.5 ? [] : ['A_KEY', 'B_KEY'];
  if (next() < 0.5) ws.lastApply = { at: '2026-11-23T12:00:00.000Z', by: 'me@host', command: 'voxform apply', outcome: 'applied', applied: 3, failed: 0, skipped: 0 };
  return ws;
}

describe('the state file bytes', () => {
  it('are exactly JSON.stringify(state, null, 2) and a newline, write after write as entries are replaced', () => {
    const next = seededRandom(5);
    const state: StateFile = { version: 1, serial: 0, workspaces: {} };
    expect(stateFileBytes(state).toString('utf8')).toBe(reference(state));
    for (let round = 0; round < 200; round++) {
      state.serial = round;
      const key = `env${Math.floor(next() * 3)}@local`;
      const previous = state.workspaces[key];
      const fresh = randomWorkspace(next, round);
      if (previous && next() < 0.7) {
        // As apply does: some entries replaced, the rest kept (and their bytes with them).
        for (const [address, entry] of Object.entries(fresh.agents)) if (next() < 0.5) previous.agents[address] = entry;
        if (next() < 0.2) delete previous.phones[Object.keys(previous.phones)[0] ?? ''];
        previous.lastApply = fresh.lastApply;
      } else {
        state.workspaces[key] = fresh;
      }
      expect(stateFileBytes(state).toString('utf8')).toBe(reference(state));
    }
  });

  it('an entry whose bytes are kept cannot be changed in place (it would go stale silently)', () => {
    const ws = emptyWorkspace();
    ws.agents['agent.a'] = { id: 'a', applied: { name: 'h1' } };
    stateFileBytes({ version: 1, serial: 1, workspaces: { w: ws } });
    expect(() => {
      (ws.agents['agent.a'] as { applied: Record<string, string> }).applied.name = 'h2';
    }).toThrow(TypeError);
  });
});
