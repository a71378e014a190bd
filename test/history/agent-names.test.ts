import { describe, expect, it } from 'vitest';
import { AgentNames, versionOfAgent } from '../../src/history/agent-names.js';
import type { AgentVersion } from '../../src/history/types.js';

function version(id: string, prompt = 'Hi'): AgentVersion {
  return { id, config: { prompt }, configHash: `sha256:${id}`, maskedPaths: [] };
}

describe('AgentNames', () => {
  it('follows a renamed key to the records that hold the agent under its earlier name', () => {
    const records: Array<{ agents: Record<string, AgentVersion> }> = [{ agents: { reception: version('a1'), booking: version('a2') } }, { agents: { 'front-desk': version('a1', 'old'), booking: version('a2') } }];
    const names = new AgentNames(records);
    expect(names.versionIn(records[1]!, 'reception')?.config).toEqual({ prompt: 'old' });
    expect(names.namesNow('front-desk', version('a1'))).toEqual(['reception']);
    expect(names.namesNow('booking', version('a2'))).toEqual(['booking']);
  });

  it('follows a rename the manifests made before it is applied: a key of the manifests is the agent its id: names', () => {
    const record = { agents: { 'front-desk': version('a1') } };
    const names = new AgentNames([record], [['reception', 'a1']]);
    expect(names.versionIn(record, 'reception')).toBe(record.agents['front-desk']);
    expect(names.namesNow('front-desk', version('a1'))).toEqual(['reception']);
  });

  it('finds each agent of two swapped keys under its earlier key', () => {
    const older = { agents: { reception: version('a1', 'desk'), booking: version('a2', 'book') } };
    const names = new AgentNames([{ agents: { reception: version('a2'), booking: version('a1') } }, older]);
    expect(names.versionIn(older, 'booking')?.config).toEqual({ prompt: 'desk' });
    expect(names.versionIn(older, 'reception')?.config).toEqual({ prompt: 'book' });
    expect(names.namesNow('reception', version('a1'))).toEqual(['booking']);
  });

  it('never takes the agent a name stood for before its id: changed for the agent it stands for now', () => {
    const older = { agents: { billing: version('a1') } };
    const names = new AgentNames([older], [['billing', 'a2']]);
    expect(names.versionIn(older, 'billing')).toBeUndefined();
    expect(names.namesNow('billing', version('a1'))).toEqual([]);
    expect(names.idNow('billing')).toBe('a2');
    const reused = new AgentNames([{ agents: { reception: version('a1'), 'front-desk': version('a9') } }, { agents: { 'front-desk': version('a1') } }]);
    expect(reused.namesNow('front-desk', version('a1'))).toEqual(['reception']);
    expect(reused.versionIn({ agents: { 'front-desk': version('a1') } }, 'front-desk')).toBeUndefined();
  });

  it('gives an agent with two keys now both names, and keeps a name that still stands for it', () => {
    const twoKeys = new AgentNames([{ agents: { 'front-desk': version('a1') } }], [['reception', 'a1'], ['lobby', 'a1']]);
    expect(twoKeys.namesNow('front-desk', version('a1'))).toEqual(['reception', 'lobby']);
    expect(twoKeys.versionIn({ agents: { 'front-desk': version('a1') } }, 'lobby')?.id).toBe('a1');
    const keptInManifests = new AgentNames([{ agents: { reception: version('a1') } }], [['front-desk', 'a1'], ['reception', 'a1']]);
    expect(keptInManifests.namesNow('front-desk', version('a1'))).toEqual(['front-desk']);
  });

  it('looks an old name no agent has now up as the record spells it', () => {
    const older = { agents: { 'front-desk': version('a1', 'old') } };
    const names = new AgentNames([{ agents: { reception: version('a1') } }, older]);
    expect(names.idNow('front-desk')).toBeUndefined();
    expect(names.versionIn(older, 'front-desk')?.config).toEqual({ prompt: 'old' });
  });
});

describe('AgentNames.newestHolding', () => {
  it('finds each name\'s newest record holding its agent, under an earlier key too, as asking every record in turn does', () => {
    const records: Array<{ agents: Record<string, AgentVersion> }> = [{ agents: { other: version('a9') } }, { agents: { 'front-desk': version('a1', 'old') } }, { agents: { reception: version('a1', 'older'), booking: version('a2') } }];
    const names = new AgentNames(records, [['reception', 'a1'], ['booking', 'a2']]);
    const newest = names.newestHolding(records, ['reception', 'booking', 'gone']);
    for (const name of ['reception', 'booking', 'gone']) expect(newest.get(name)).toBe(records.find((record) => names.versionIn(record, name) !== undefined));
    expect(newest.get('reception')).toBe(records[1]);
    expect(newest.has('gone')).toBe(false);
  });

  it('walks the records once: 1,000 agents behind 10,000 newer records that hold none of them (a planted ledger) stay linear', () => {
    let looks = 0;
    const counted = (agents: Record<string, AgentVersion>) => new Proxy(agents, { ownKeys: (target) => (looks++, Reflect.ownKeys(target)), getOwnPropertyDescriptor: (...args) => (looks++, Reflect.getOwnPropertyDescriptor(...args)) });
    const restored = { agents: counted(Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`agent-${i}`, version(`a${i}`)]))) };
    const newer = Array.from({ length: 10_000 }, (_, i) => ({ agents: counted({ [`other-${i}`]: version(`o${i}`) }) }));
    const records = [...newer, restored];
    const names = new AgentNames(records);
    looks = 0;
    const newest = names.newestHolding(records, Object.keys(restored.agents));
    expect(newest.get('agent-999')).toBe(restored);
    // A few looks per record, not one per record for each agent.
    expect(looks).toBeLessThan(50 * 11_000);
  });
});

describe('versionOfAgent', () => {
  it("lists a record's agents once, however often it is asked: a planted record of thousands of agents, each asked of every other, stays linear", () => {
    const plain: Record<string, { id: string }> = {};
    for (let i = 0; i < 2_000; i++) plain[`agent-${i}`] = { id: `-OKthen${i}` };
    let listings = 0;
    const agents = new Proxy(plain, {
      ownKeys(target) {
        listings++;
        return Reflect.ownKeys(target);
      },
    });
    const record = { agents };
    // Each name held under another id than asked for: every lookup falls through to the search by id.
    for (let i = 0; i < 2_000; i++) expect(versionOfAgent(record, `agent-${i}`, `-OKnow${i}`)).toBeUndefined();
    expect(versionOfAgent(record, 'renamed', '-OKthen7')).toEqual({ id: '-OKthen7' });
    expect(listings).toBe(1);
  });
});
