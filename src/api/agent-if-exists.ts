/** Asking the service for an agent by an id that may name none. */
import type { Agent } from '../schema/types.gen.js';
import { isApiError } from './errors.js';

/**
 * The agent of `id`, or undefined when the service has none (`api_not_found`). `refusedMeansAbsent`: the id
 * came from the user, and a value no id can be may be refused (400, 422) rather than not found.
 */
export async function agentIfExists(client: { getAgent(id: string): Promise<Agent> }, id: string, how: { refusedMeansAbsent?: boolean } = {}): Promise<Agent | undefined> {
  try {
    return await client.getAgent(id);
  } catch (error) {
    if ((error as { code?: unknown } | null)?.code === 'api_not_found') return undefined;
    if (how.refusedMeansAbsent === true && isApiError(error) && (error.status === 400 || error.status === 422)) return undefined;
    throw error;
  }
}
