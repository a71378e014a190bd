/**
 * The incremental diff (src/plan/incremental-diff.ts): each agent is compared as its answer
 * arrives, in whatever order, and the plan is the one `diffStates` makes after the last read.
 */
import { describe, expect, it, vi } from 'vitest';
import { createPlan } from '../../src/plan/create-plan.js';
import { diffStates } from '../../src/plan/diff.js';
import { IncrementalDiff } from '../../src/plan/incremental-diff.js';
import type { LiveReader } from '../../src/plan/read-live.js';
import type { Agent, Phone } from '../../src/schema/types.gen.js';
import { emptyWorkspace, hashApplied } from '../../src/state/types.js';
import { desiredAgent, desiredKnowledge, desiredPhone, desiredState } from '../helpers/desired.js';

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

describe('knowledge files the agents tell about', () => {
  const file = desiredKnowledge('faq', { description: 'FAQ', contentHash: 'sha256:faq' });
  const agents = ['a1', 'a2'].map((id, i) => desiredAgent(`agent-${i}`, { id, knowledge: ['faq'] }));
  const phone = desiredPhone('+15551230001', { agent: { localName: 'agent-0', id: 'a1' } });
  // Both agents had faq (file_1) attached at the last apply.
  const state = emptyWorkspace();
  state.knowledge['knowledge.faq'] = { fileId: 'file_1', contentHash: 'sha256:faq', name: 'faq.md', description: 'FAQ' };
  for (const agent of agents) state.agents[agent.address] = { id: agent.id, applied: { knowledge: hashApplied('salt', ['file_1']) } };
  const inputs = { desired: desiredState({ agents, phones: [phone], knowledge: [file] }), state, salt: 'salt', baseUrl: 'local', files: [] };
  const withFiles = (id: string, files: string[]): Agent => ({ id, name: id, config: { knowledge_base: { files } }, created_at: 1 });

  it('compares an agent whose file no answer listed yet once every agent attaching it is in, and tells of it', () => {
    const live = [withFiles('a1', []), withFiles('a2', [])];
    const told: string[] = [];
    const diff = new IncrementalDiff(inputs, (change) => told.push(change.address));
    diff.phonesRead([{ id: '+15551230001', agent_id: 'a1' } as Phone]);
    diff.agentRead(agents[0]!, live[0]!);
    // Whether the service still has file_1 waits for the other agent attaching it.
    expect(told).toEqual([]);
    diff.agentRead(agents[1]!, live[1]!);
    expect(told).toEqual([agents[0]!.address, phone.address, agents[1]!.address]);
    const liveState = { agents: new Map(live.map((agent) => [agent.id, agent])), phones: [{ id: '+15551230001', agent_id: 'a1' } as Phone] };
    const { changes } = diff.finish(liveState);
    expect(changes).toEqual(diffStates({ ...inputs, live: liveState }).changes);
    expect(changes.find((c) => c.address === 'knowledge.faq')).toMatchObject({ action: 'create', reason: 'gone' });
  });

  it('compares an agent at once when an answer lists the file', () => {
    const told: string[] = [];
    const diff = new IncrementalDiff(inputs, (change) => told.push(change.address));
    diff.agentRead(agents[1]!, withFiles('a2', ['file_1']));
    expect(told).toEqual([agents[1]!.address]);
    diff.agentRead(agents[0]!, withFiles('a1', []));
    const { changes } = diff.finish({ agents: new Map([['a1', withFiles('a1', [])], ['a2', withFiles('a2', ['file_1'])]]), phones: [] });
    expect(changes.find((c) => c.address === 'knowledge.faq')).toMatchObject({ action: 'no-op', id: 'file_1' });
    expect(changes.find((c) => c.address === agents[0]!.address)?.requests).toMatchObject([{ operation: 'set_agent_files', body: { files: ['file_1'] } }]);
  });
});
