/**
 * The state after an agent's update looks up each path of the agent in the list of paths the last
 * apply found live: that list, from the state file, may be as long as the agent's paths, and is read
 * once, not once per path.
 */
import { describe, expect, it } from 'vitest';
import { stateAfterRequest } from '../../src/apply/record-state.js';
import { DesiredIndex } from '../../src/apply/resources.js';
import type { PlannedRequest, ResourceChange } from '../../src/plan/types.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { desiredAgent, desiredState } from '../helpers/desired.js';
import { countingReads } from '../helpers/counting-reads.js';

const update: PlannedRequest = { id: 'agent.billing/1', operation: 'update_agent', method: 'PUT', path: '/agents/a2', body: {}, fills: [], dependsOn: [] };

/** An update of agent.billing that sends none of its paths: every one was found live as wanted. */
const sendsNothing: ResourceChange = {
  address: 'agent.billing', kind: 'agent', action: 'update', id: 'a2', before: {}, after: {}, fieldChanges: [], sensitivePaths: [], reason: undefined, dependsOn: [], requests: [update], liveFingerprint: '',
};

describe('the state after an agent update, with a long `foundLive`', () => {
  it('reads the list of paths found live before once, not once per path of the agent', () => {
    const n = 3000;
    const config = Object.fromEntries(Array.from({ length: n }, (_, i) => [`field_${i}`, `value ${i}`]));
    const agent = desiredAgent('billing', { id: 'a2', config });
    const resources = new DesiredIndex(desiredState({ agents: [agent] }));
    const ws = emptyWorkspace();
    // An earlier apply that sent nothing: every path found live.
    stateAfterRequest(update, sendsNothing, {}, undefined, { resources, key: 'key' })?.(ws);
    const entry = ws.agents['agent.billing']!;
    const foundLive = entry.foundLive!;
    expect(foundLive).toHaveLength(n);

    const counted = countingReads([...foundLive]);
    entry.foundLive = counted.list;
    stateAfterRequest(update, sendsNothing, {}, undefined, { resources, key: 'key' })?.(ws);
    // Found live again, and still never sent.
    expect(ws.agents['agent.billing']?.foundLive).toEqual(foundLive);
    // Searched once per path of the agent: about n * n / 2 reads; read once: about 2 * n.
    expect(counted.reads()).toBeLessThan(10 * n);
  });
});
