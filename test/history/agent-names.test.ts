import { describe, expect, it } from 'vitest';
import { AgentNames } from '../../src/history/agent-names.js';
import type { AgentVersion } from '../../src/history/types.js';

function version(id: string, prompt = 'Hi'): AgentVersion {
  return { id, config: { prompt }, configHash: `sha256:${id}`, maskedPaths: [] };
}

describe('AgentNames', () => {
  it('follows a renamed key to the records that hold the agent under its earlier name', () => {
    const records: Array<{ agents: Record<string, AgentVersion> }> = [{ agents: { reception: version('a1'), booking: version('a2') } }, { agents: { 'front-desk': version('a1', 'old'), booking: version('a2') } }];
    const names = new AgentNames(records);
    expect(names.versionIn(records[1]!, 'reception')?.config).toEqual({ prompt: 'old' });
    expect(names.nameNow('front-desk', version('a1'))).toBe('reception');
    expect(names.nameNow('booking', version('a2'))).toBe('booking');
  });

  it('follows no rename where its agent has two keys now, nor an old name some agent still has', () => {
    const twoKeys = new AgentNames([{ agents: { reception: version('a1'), lobby: version('a1') } }, { agents: { 'front-desk': version('a1') } }]);
    expect(twoKeys.nameNow('front-desk', version('a1'))).toBe('front-desk');
    expect(twoKeys.versionIn({ agents: { 'front-desk': version('a1') } }, 'reception')).toBeUndefined();
    const reused = new AgentNames([{ agents: { reception: version('a1'), 'front-desk': version('a9') } }, { agents: { 'front-desk': version('a1') } }]);
    expect(reused.nameNow('front-desk', version('a1'))).toBe('front-desk');
    const keptInManifests = new AgentNames([{ agents: { reception: version('a1') } }], ['front-desk', 'reception']);
    expect(keptInManifests.nameNow('front-desk', version('a1'))).toBe('front-desk');
  });
});
