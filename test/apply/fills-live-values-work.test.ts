/**
 * An update body that sends back many of the service's secrets (a tool header each) is filled from
 * the agent as read once per body, not once per secret: each reading copies the whole agent.
 */
import { describe, expect, it } from 'vitest';
import { filledBody } from '../../src/apply/fills.js';
import { DesiredIndex } from '../../src/apply/resources.js';
import type { LiveState } from '../../src/plan/read-live.js';
import type { PlannedRequest } from '../../src/plan/types.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { desiredAgent, desiredState } from '../helpers/desired.js';

/** `target` behind a proxy that counts every read of a property of it, `reads` shared by all. */
function counting<T extends object>(target: T, reads: { count: number }): T {
  return new Proxy(target, {
    get: (object, key, receiver) => (reads.count++, Reflect.get(object, key, receiver)),
    has: (object, key) => (reads.count++, Reflect.has(object, key)),
    getOwnPropertyDescriptor: (object, key) => (reads.count++, Reflect.getOwnPropertyDescriptor(object, key)),
  });
}

describe('the fills of an update body from the service', () => {
  it('read each of the service tools once, not once per secret filled', () => {
    const n = 1000;
    const reads = { count: 0 };
    const tools = Array.from({ length: n }, (_, i) => counting({ name: `tool_${i}`, header: { authorization: `live-secret-${i}` } }, reads));
    const live: Agent = { id: 'a1', name: 'Front desk', created_at: 1, config: { tools } };
    const liveState: LiveState = { agents: new Map([['a1', live]]), phones: [] };
    const resources = new DesiredIndex(desiredState({ agents: [desiredAgent('front', { id: 'a1' })] }));
    const request: PlannedRequest = {
      id: 'agent.front/1',
      operation: 'update_agent',
      method: 'PUT',
      path: '/agents/a1',
      body: { config: { tools: Array.from({ length: n }, (_, i) => ({ name: `tool_${i}`, header: { authorization: '(sensitive)' } })) } },
      fills: Array.from({ length: n }, (_, i) => {
        const at = ['config', 'tools', i, 'header', 'authorization'];
        return { at, value: { secret: { address: 'agent.front', from: 'live' as const, path: at } } };
      }),
      dependsOn: [],
    };
    const body = filledBody(request, { resources, live: liveState, results: new Map() });
    const sent = (body?.config as { tools: Array<{ header: { authorization: string } }> }).tools;
    expect(sent.map((tool) => tool.header.authorization)).toEqual(Array.from({ length: n }, (_, i) => `live-secret-${i}`));
    // Made once per secret, every tool is read for each one: a few reads, n * n times; once per body, a few reads per tool.
    expect(reads.count).toBeLessThan(50 * n);
  });
});
