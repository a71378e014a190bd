/** Asking the service for an agent by an id that may name none. */
import type { Agent } from '../schema/types.gen.js';
import { VoxformError } from '../errors.js';
import { isApiError } from './errors.js';

/**
 * The agent of `id`, or undefined when the service has none (`api_not_found`). `refusedMeansAbsent`: the id
 * came from the user, and a value no id can be may be refused (400, 422) rather than not found.
 * `unsendableMeansAbsent`: the id came from the service (a call record's, a phone's), and one no
 * request can carry (empty, `.`, `..`) names no agent, where a user's would be their mistake to fix.
 */
export async function agentIfExists(client: { getAgent(id: string): Promise<Agent> }, id: string, how: { refusedMeansAbsent?: boolean; unsendableMeansAbsent?: boolean } = {}): Promise<Agent | undefined> {
  try {
    return await client.getAgent(id);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'api_not_found') return undefined;
    if (how.refusedMeansAbsent === true && isApiError(error) && (error.status === 400 || error.status === 422)) return undefined;
    if (how.unsendableMeansAbsent === true && error instanceof VoxformError && error.code === 'api_request_invalid') return undefined;
    throw error;
  }
}

/**
 * The service's name of each agent id (null for an agent without one); an id the service does not know, or refuses (it may be one
 * the user named, or a call record's), is left out. So is an id no request can carry (empty, `.`,
 * `..`): the ids come from the service's call records and phones, and name no agent. Read
 * concurrently: the client bounds the requests in flight.
 */
export async function agentNamesOnService(client: { getAgent(id: string): Promise<Agent> }, ids: Iterable<string>): Promise<Map<string, string | null>> {
  const agents = await Promise.all([...new Set(ids)].map(async (id) => [id, await agentIfExists(client, id, { refusedMeansAbsent: true, unsendableMeansAbsent: true })] as const));
  // An agent the service sent without a name, or with a name that is no text, is there, nameless.
  return new Map(agents.flatMap(([id, agent]): Array<[string, string | null]> => (agent ? [[id, typeof agent.name === 'string' ? agent.name : null]] : [])));
}
