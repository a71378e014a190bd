/**
 * An agent given by its name on the service: the manifests' agents are asked for their names as
 * every reader of names asks (agentNamesOnService), so one the service refuses is passed over, as
 * `get agents` and the report pass it over, instead of stopping the search for the others.
 */
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/api/errors.js';
import { resolveAgentArgument } from '../../src/cli/agent-argument.js';
import type { Agent } from '../../src/schema/types.gen.js';

const refused = (id: string, status: number, code: 'api_not_found' | 'api_validation') =>
  new ApiError({ code, message: `GET /agents/${id} failed: ${status}.`, hint: undefined, status, method: 'GET', path: `/agents/${id}`, attempts: 1 });

/** A service holding `names` by id, refusing `refusing` with a 422, and knowing no other id. */
function service(names: Record<string, string>, refusing: string) {
  return {
    getAgent: async (id: string): Promise<Agent> => {
      if (id === refusing) throw refused(id, 422, 'api_validation');
      const name = names[id];
      if (name === undefined) throw refused(id, 404, 'api_not_found');
      return { id, name, created_at: 0, config: {} } as unknown as Agent;
    },
    iterateCallLogs: async function* () {},
  };
}

describe('resolveAgentArgument, by a name on the service', () => {
  it('finds the agent of that name while the service refuses another agent of the manifests', async () => {
    const known = { manifests: new Map([['broken', 'agent-refused'], ['desk', 'agent-desk-01']]) };
    const client = service({ 'agent-desk-01': 'Front Desk' }, 'agent-refused');
    expect(await resolveAgentArgument('Front Desk', known, client as never)).toBe('agent-desk-01');
  });

  it('says a name no agent has is unknown', async () => {
    const known = { manifests: new Map([['broken', 'agent-refused'], ['desk', 'agent-desk-01']]) };
    const client = service({ 'agent-desk-01': 'Front Desk' }, 'agent-refused');
    await expect(resolveAgentArgument('Back Office', known, client as never)).rejects.toMatchObject({ code: 'agent_unknown' });
  });
});
