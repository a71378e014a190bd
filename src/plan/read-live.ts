import type { Agent, Phone } from '../schema/types.gen.js';
import type { DesiredState } from '../manifest/types.js';

/** What the service said when it was read: agents by id (those it knows), and the phones. */
export interface LiveState {
  agents: Map<string, Agent>;
  phones: Phone[];
}

/** The part of the API client that reading live state needs. */
export interface LiveReader {
  getAgent(id: string): Promise<Agent>;
  listPhones(): Promise<Phone[]>;
}

function isNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === 'api_not_found';
}

/** Who hears of the reads as they arrive. */
interface LiveStateListeners {
  /** After each agent's read, found or not. */
  onProgress?: ((agentsRead: number, agents: number) => void) | undefined;
  /** Each agent the service answered with. */
  onAgent?: ((agent: Agent) => void) | undefined;
  /** The phone list (read only when the manifests manage phones). */
  onPhones?: ((phones: Phone[]) => void) | undefined;
}

/**
 * Reads every desired agent concurrently, and the phone list when the manifests manage phones. An
 * agent the service does not know is left out, for the differ to report; any other failure stops it.
 */
export async function readLiveState(client: LiveReader, desired: DesiredState, listeners: LiveStateListeners = {}): Promise<LiveState> {
  const { onProgress, onAgent, onPhones } = listeners;
  const ids = [...new Set([...desired.agents.values()].map((agent) => agent.id))];
  let read = 0;
  // The phone list is asked for first, so that it is not the last answer in, behind every agent.
  const phonesRead = desired.phones.size > 0 ? client.listPhones().then((phones) => (onPhones?.(phones), phones)) : Promise.resolve([] as Phone[]);
  const [agents, phones] = await Promise.all([
    Promise.all(
      ids.map(async (id) => {
        try {
          const agent = await client.getAgent(id);
          onAgent?.(agent);
          return agent;
        } catch (error) {
          if (isNotFound(error)) return undefined;
          throw error;
        } finally {
          onProgress?.(++read, ids.length);
        }
      }),
    ),
    phonesRead,
  ]);
  const byId = new Map<string, Agent>();
  for (const agent of agents) if (agent) byId.set(agent.id, agent);
  return { agents: byId, phones };
}
