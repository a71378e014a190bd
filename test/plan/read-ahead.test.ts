/**
 * Reading ahead (src/plan/read-ahead.ts and LoadOptions.onReadTargets): `plan` starts reading the
 * agents as soon as the loader knows their ids, and makes the same plan as when it reads after
 * loading; each agent is compared as its answer arrives (IncrementalDiff), in whatever order.
 */
import { describe, expect, it, vi } from 'vitest';
import type { ReadTargets } from '../../src/manifest/types.js';
import { createPlan } from '../../src/plan/create-plan.js';
import { diffStates, IncrementalDiff } from '../../src/plan/diff.js';
import { ReadAhead } from '../../src/plan/read-ahead.js';
import type { LiveReader } from '../../src/plan/read-live.js';
import type { Agent, Phone } from '../../src/schema/types.gen.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { desiredAgent, desiredPhone, desiredState } from '../helpers/desired.js';
import { loadTree, watchedEnv } from '../manifest/helpers.js';

const originalAgentRead = IncrementalDiff.prototype.agentRead;
const liveAgent = (id: string, prompt: string): Agent => ({ id, name: id, config: { prompt }, created_at: 1 });

/** A reader that counts its reads and answers when told to (`release`), in any order. */
function heldReader(agents: Agent[], phones: Phone[] = []) {
  const reads: string[] = [];
  const held = new Map<string, () => void>();
  const reader: LiveReader = {
    getAgent(id) {
      reads.push(id);
      const agent = agents.find((a) => a.id === id);
      return new Promise((resolve, reject) => held.set(id, () => (agent ? resolve(agent) : reject(Object.assign(new Error('no such agent'), { code: 'api_not_found' })))));
    },
    async listPhones() {
      reads.push('phones');
      return phones;
    },
  };
  return { reader, reads, release: (id: string) => held.get(id)?.(), waiting: () => [...held.keys()] };
}

describe('ReadAhead', () => {
  it('hands each read started ahead to the plan once, and reads what was not started', async () => {
    const held = heldReader([liveAgent('a1', 'one'), liveAgent('a2', 'two')]);
    const ahead = new ReadAhead(held.reader);
    ahead.start({ agentIds: ['a1'], phones: true, service: { baseUrl: undefined, region: undefined } });
    // The phone list first: behind the agents it would be the last answer in.
    expect(held.reads).toEqual(['phones', 'a1']);
    const first = ahead.getAgent('a1');
    const second = ahead.getAgent('a2');
    expect(held.reads).toEqual(['phones', 'a1', 'a2']);
    held.release('a1');
    held.release('a2');
    expect((await first).config.prompt).toBe('one');
    expect((await second).config.prompt).toBe('two');
    // Taken once: a later read of a1 goes to the service again.
    void ahead.getAgent('a1');
    expect(held.reads.filter((id) => id === 'a1')).toHaveLength(2);
    expect(await ahead.listPhones()).toEqual([]);
    expect(held.reads.filter((id) => id === 'phones')).toHaveLength(1);
  });

  it('a read started ahead that fails and is never taken does not crash the run', async () => {
    const held = heldReader([]);
    const ahead = new ReadAhead(held.reader);
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    try {
      ahead.start({ agentIds: ['gone'], phones: false, service: { baseUrl: undefined, region: undefined } });
      held.release('gone');
      await new Promise((resolve) => setTimeout(resolve, 10));
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
    }
  });
});

describe('comparing as the answers arrive', () => {
  const agents = ['a1', 'a2', 'a3', 'a4'].map((id, i) => desiredAgent(`agent-${i}`, { id, config: { prompt: `new ${i}` } }));
  const phone = desiredPhone('+15551230001', { agent: { localName: 'agent-0', id: 'a1' } });
  const live = agents.map((agent, i) => liveAgent(agent.id, i === 2 ? `new ${i}` : `old ${i}`));
  const inputs = { desired: desiredState({ agents, phones: [phone] }), state: emptyWorkspace(), salt: 'salt', baseUrl: 'local', files: [] };

  it.each([
    ['in order', [0, 1, 2, 3]],
    ['backwards', [3, 2, 1, 0]],
    ['shuffled', [2, 0, 3, 1]],
  ])('makes the same plan as comparing after the last read (answers %s)', async (_name, order) => {
    const held = heldReader(live, [{ id: '+15551230001', agent_id: 'other' } as Phone]);
    const compared: string[] = [];
    const planning = createPlan({ ...inputs, workspace: inputs.state, client: held.reader, onChange: (change) => compared.push(change.address) });
    await new Promise((resolve) => setImmediate(resolve));
    for (const index of order) {
      held.release(live[index]!.id);
      await new Promise((resolve) => setImmediate(resolve));
    }
    const { plan } = await planning;
    // Each agent was compared as its own answer came in, in the order they came; the phone (its
    // list came first) right after the agent it is bound to.
    expect(compared).toEqual(order.flatMap((index) => (index === 0 ? [agents[0]!.address, phone.address] : [agents[index]!.address])));
    const after = diffStates({ ...inputs, live: { agents: new Map(live.map((agent) => [agent.id, agent])), phones: [{ id: '+15551230001', agent_id: 'other' } as Phone] } });
    expect(plan.changes).toEqual(after.changes);
    expect(plan.summary).toMatchObject({ update: 4, unchanged: 1 });
  });

  it('compares each agent as its answer arrives with no listener too (as apply plans), and asks for the phone list first', async () => {
    const held = heldReader(live, [{ id: '+15551230001', agent_id: 'other' } as Phone]);
    const compared: string[] = [];
    const agentRead = vi.spyOn(IncrementalDiff.prototype, 'agentRead').mockImplementation(function (this: IncrementalDiff, agent, answer) {
      compared.push(agent.address);
      return originalAgentRead.call(this, agent, answer);
    });
    try {
      const planning = createPlan({ ...inputs, workspace: inputs.state, client: held.reader });
      await new Promise((resolve) => setImmediate(resolve));
      expect(held.reads[0]).toBe('phones');
      held.release(live[1]!.id);
      await new Promise((resolve) => setImmediate(resolve));
      // Compared before the other answers are in, not all at the end.
      expect(compared).toEqual([agents[1]!.address]);
      for (const index of [0, 2, 3]) held.release(live[index]!.id);
      const { plan } = await planning;
      expect(compared).toHaveLength(4);
      expect(plan.summary).toMatchObject({ update: 4, unchanged: 1 });
    } finally {
      agentRead.mockRestore();
    }
  });

  it('a phone compared before the last read is the one in the plan, and is compared again when its agent was', async () => {
    const phones = [{ id: '+15551230001', agent_id: 'other' } as Phone];
    const told = new Map<string, unknown>();
    const diff = new IncrementalDiff(inputs, (change) => told.set(change.address, change));
    diff.phonesRead(phones);
    // Bound to agent-0 of the manifest: it waits for that agent's change (its binding waits for its writes).
    expect(told.has(phone.address)).toBe(false);
    diff.agentRead(agents[0]!, live[0]!);
    const early = told.get(phone.address);
    expect(early).toBeDefined();
    const liveAgents = new Map(live.map((agent) => [agent.id, agent]));
    expect(diff.finish({ agents: liveAgents, phones }).changes.find((c) => c.address === phone.address)).toBe(early);
    // Another phone list at the end (or another answer for its agent): compared again, from it.
    const other = new IncrementalDiff(inputs);
    other.phonesRead(phones);
    other.agentRead(agents[0]!, live[0]!);
    const finished = other.finish({ agents: liveAgents, phones: [{ id: '+15551230001', agent_id: 'a1' } as Phone] });
    expect(finished.changes.find((c) => c.address === phone.address)?.action).toBe('no-op');
  });

  it('an agent compared from an answer other than the one finished with is compared again', () => {
    const diff = new IncrementalDiff(inputs);
    diff.agentRead(agents[0]!, liveAgent('a1', 'new 0'));
    const liveAgents = new Map(live.map((agent) => [agent.id, agent]));
    const { changes } = diff.finish({ agents: liveAgents, phones: [] });
    // The finishing live state says "old 0": the change is made from it, not from the earlier answer.
    expect(changes.find((c) => c.address === agents[0]!.address)?.action).toBe('update');
  });
});

describe('the loader says what to read ahead', () => {
  const manifest = `
agents:
  front: { id: ag_1, config: { prompt: Hi } }
  back: { id: ag_2, config: { prompt: Hi } }
phones:
  "+15551230001": { agent: front }
environments:
  staging:
    agents: { front: { id: ag_9 } }
`;

  it('once the files are parsed: the ids after the environment overlay, and whether there are phones', async () => {
    const seen: ReadTargets[] = [];
    const result = await loadTree({ 'voxform.yaml': manifest }, { environment: 'staging', onReadTargets: (targets) => seen.push(targets) });
    expect(result.diagnostics).toEqual([]);
    expect(seen).toEqual([{ agentIds: ['ag_9', 'ag_2'], phones: true, service: { baseUrl: undefined, region: undefined } }]);
  });

  it('each id as written while the file is still being parsed, before the targets: plain text only, no overlay applied', async () => {
    const heard: string[] = [];
    await loadTree(
      { 'voxform.yaml': manifest.replace('phones:', '  a: { id: "\${env:X}" }\n  b: { id: 42 }\nphones:') },
      { environment: 'staging', onAgentIdParsed: (id) => heard.push(`hint ${id}`), onReadTargets: (targets) => heard.push(`targets ${targets.agentIds.join(' ')}`) },
    );
    // As the file writes them (front's staging id comes with the targets), and never one that is
    // not plain text: reading it could only fail.
    expect(heard).toEqual(['hint ag_1', 'hint ag_2', 'targets ag_9 ag_2']);
  });

  it.each([
    ['base_url as written', 'base_url: https://elsewhere.example\n'],
    ['base_url spelled with an escape', '"base\\x5furl": https://elsewhere.example\n'],
    ['region', 'region: eu\n'],
    ['a backslash anywhere', 'defaults:\n  config: { first_message: "Hi\\tthere" }\n'],
  ])('no id while parsing where a file could name the service (%s): the settings are known first', async (_how, setting) => {
    const heard: string[] = [];
    await loadTree(
      { 'voxform.yaml': 'agents:\n  a: { id: ag_1 }\n', 'z.yaml': setting },
      { paths: ['.'], onAgentIdParsed: (id) => heard.push(`hint ${id}`), onReadTargets: (targets) => heard.push(`targets ${targets.agentIds.join(' ')}`) },
    );
    expect(heard.filter((line) => line.startsWith('hint'))).toEqual([]);
  });

  it('before any resource is resolved: no ${env:…} is read yet, and the load still hands back every secret', async () => {
    const { env, looked } = watchedEnv({ HOOK: 'planted-hook-token' });
    const readBeforeTargets: boolean[] = [];
    const result = await loadTree(
      { 'voxform.yaml': 'agents:\n  a:\n    id: ag_1\n    config: { session_data_webhook: { url: "https://hooks.example.com/x", headers: { x-token: "${env:HOOK}" } } }\n' },
      { env, onReadTargets: () => readBeforeTargets.push(looked.has('HOOK')) },
    );
    expect(result.diagnostics).toEqual([]);
    expect(readBeforeTargets).toEqual([false]);
    expect(looked.has('HOOK')).toBe(true);
    expect(result.secrets).toEqual(['planted-hook-token']);
  });

  it('tells each secret the moment it is read, while the reads may be out: before any other callback runs', async () => {
    const told: string[] = [];
    const toldBeforeNextCallback: boolean[] = [];
    const env = new Proxy({ HOOK: 'planted-hook-token' } as Record<string, string | undefined>, {
      get(target, key) {
        const value = Reflect.get(target, key);
        if (key === 'HOOK') queueMicrotask(() => toldBeforeNextCallback.push(told.includes(value as string)));
        return value;
      },
    });
    const result = await loadTree(
      { 'voxform.yaml': 'agents:\n  a:\n    id: ag_1\n    config: { session_data_webhook: { url: "https://hooks.example.com/x", headers: { x-token: "${env:HOOK}" } } }\n' },
      { env, onSecret: (secret) => told.push(secret) },
    );
    expect(result.diagnostics).toEqual([]);
    expect(toldBeforeNextCallback).toEqual([true]);
    expect(told).toEqual(result.secrets);
  });

  it('names the service the manifests name, as the loaded state will', async () => {
    const seen: ReadTargets[] = [];
    const result = await loadTree({ 'voxform.yaml': `region: eu\n${manifest}` }, { onReadTargets: (targets) => seen.push(targets) });
    expect(seen.map((targets) => targets.service)).toEqual([{ baseUrl: undefined, region: 'eu' }]);
    expect(result.state?.region).toBe('eu');
  });

  it('says nothing when the manifests name a service the operator does not trust: nothing may be read from it', async () => {
    const seen: ReadTargets[] = [];
    const result = await loadTree({ 'voxform.yaml': `base_url: https://collector.example.net\n${manifest}` }, { onReadTargets: (targets) => seen.push(targets) });
    expect(seen).toEqual([]);
    expect(result.diagnostics.map((d) => d.code)).toContain('base_url_untrusted');
  });

  it('leaves out an id that is not a plain string', async () => {
    const seen: ReadTargets[] = [];
    await loadTree({ 'voxform.yaml': 'agents:\n  a: { id: "${env:X}" }\n  b: { id: 42 }\n  c: { id: ag_3 }\n' }, { onReadTargets: (targets) => seen.push(targets) });
    expect(seen.map((targets) => targets.agentIds)).toEqual([['ag_3']]);
  });
});
