import { isApiError, type ApiClient } from '../api/index.js';
import { VoxformError } from '../errors.js';
import type { Agent, Phone } from '../schema/types.gen.js';

interface LiveSelection {
  /** Agent ids named with --agent, in order. */
  agentIds: readonly string[];
  /** Also every agent a phone number is bound to (--from-phones). */
  fromPhones: boolean;
}

/**
 * Reads the agents to export (each once: named ones first, in the order given, then those bound
 * to phones, in the service's phone order) and the account's phones, for the bindings.
 */
export async function readLiveAgents(client: ApiClient, selection: LiveSelection): Promise<{ agents: Agent[]; phones: Phone[] }> {
  if (selection.agentIds.length === 0 && !selection.fromPhones) {
    throw new VoxformError('export_nothing_selected', 'Say which agents to export: --agent ID (repeatable), or --from-phones for every agent bound to a phone number.', { hint: '`voxform get agents` lists the agents and their ids.' });
  }
  const phones = await client.listPhones();
  const bound = phones.map((phone) => phone.agent_id).filter((id): id is string => typeof id === 'string' && id !== '');
  if (selection.fromPhones && bound.length === 0 && selection.agentIds.length === 0) {
    throw new VoxformError('export_nothing_selected', 'No phone number of the account is bound to an agent, so --from-phones found nothing to export.', {
      hint: 'Name the agents with --agent ID instead.',
    });
  }
  const ids = [...new Set([...selection.agentIds, ...(selection.fromPhones ? bound : [])])];
  // The client bounds the requests in flight; the order of the result is the order of `ids`.
  const agents = await Promise.all(ids.map((id) => client.getAgent(id).catch((error: unknown) => {
    if (isApiError(error) && error.code === 'api_not_found') {
      throw new VoxformError('export_agent_not_found', `There is no agent ${id} on the service (GET /agents/${id} answered 404).`, {
        hint: selection.agentIds.includes(id)
          ? 'Check the id given with --agent; --from-phones exports the agents bound to phone numbers.'
          : 'A phone number is bound to an agent the service no longer has; rebind the number or name agents with --agent.',
        cause: error,
      });
    }
    throw error;
  })));
  return { agents, phones };
}
