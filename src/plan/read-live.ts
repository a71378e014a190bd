import { agentIfExists } from '../api/agent-if-exists.js';
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
 * Reads every agent id the manifests send concurrently (their agents', and those phones name by
 * `{ id: … }`), and the phone list when the manifests manage phones. An agent the service does not
 * know is left out, for the differ to report; any other failure stops it.
 */
export async function readLiveState(client: LiveReader, desired: DesiredState, listeners: LiveStateListeners = {}): Promise<LiveState> {
  const { onPhones } = listeners;
  // The phone list is asked for first, so that it is not the last answer in, behind every agent.
  const phonesRead = desired.phones.size > 0 ? client.listPhones().then((phones) => (onPhones?.(phones), phones)) : Promise.resolve([] as Phone[]);
  const outside = [...desired.phones.values()].flatMap((phone) => (phone.agent && phone.agent.localName === undefined ? [phone.agent.id] : []));
  const [agents, phones] = await Promise.all([readAgents(client, [...manifestAgentIds(desired), ...outside], listeners), phonesRead]);
  return { agents, phones };
}

/** Every agent of the manifests the service knows, by id, read concurrently; one it does not know is left out. */
export async function readLiveAgents(client: Pick<LiveReader, 'getAgent'>, desired: DesiredState, listeners: LiveStateListeners = {}): Promise<Map<string, Agent>> {
  return readAgents(client, manifestAgentIds(desired), listeners);
}

function manifestAgentIds(desired: DesiredState): string[] {
  return [...desired.agents.values()].map((agent) => agent.id);
}

/** The agents of `wanted` the service knows, by id, each id read once (the client bounds the requests in flight). */
async function readAgents(client: Pick<LiveReader, 'getAgent'>, wanted: readonly string[], { onProgress, onAgent }: LiveStateListeners): Promise<Map<string, Agent>> {
  const ids = [...new Set(wanted)];
  let read = 0;
  const agents = await Promise.all(
    ids.map(async (id) => {
      try {
        const agent = await agentIfExists(client, id);
        if (agent) onAgent?.(agent);
        return agent;
      } finally {
        onProgress?.(++read, ids.length);
      }
    }),
  );
  return new Map(agents.flatMap((agent): Array<[string, Agent]> => (agent ? [[agent.id, agent]] : [])));
}
