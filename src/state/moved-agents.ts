/**
 * What the state keeps of an agent belongs to the service agent it was applied to (its id), not to
 * the manifest key: an entry follows its agent to a renamed key (`front-desk:` became `reception:`,
 * the same `id:`), as a resource moved in Terraform, and a key whose `id:` changed starts with no
 * entry, as an agent never applied.
 */
import type { AgentState, WorkspaceState } from './types.js';

/** A manifest agent: its state address and its service id. */
interface AddressedAgent {
  address: string;
  id: string;
}

/**
 * The entries the manifests' agents have no claim on under their own key, by agent id: an entry
 * under a key the manifests do not name, or name for another agent.
 */
function entriesOffTheirKey(workspace: WorkspaceState, idAt: ReadonlyMap<string, string>): Map<string, string[]> {
  const byId = new Map<string, string[]>();
  for (const [address, entry] of Object.entries(workspace.agents)) {
    if (idAt.get(address) !== entry.id) byId.set(entry.id, [...(byId.get(entry.id) ?? []), address]);
  }
  return byId;
}

/**
 * The workspace as the manifests' agents read it — the last apply of each, the drift baseline — and
 * the agents the manifests renamed (each new address, with the address the state kept it under).
 * A manifest agent's entry is the one under its key when that holds its id; else the one entry of
 * its id under another key (that key gone from the manifests, or given another agent: two keys
 * swapped). With none, or several (two old keys of one agent: which holds its last apply is
 * unknown), or with two manifest keys naming its agent (which one it became is unknown), it has no
 * entry: never applied. Entries of agents the manifests do not name stay as they are.
 */
export function agentBaseline(workspace: WorkspaceState, desired: Iterable<AddressedAgent>): { workspace: WorkspaceState; moves: Map<string, string> } {
  const agents = [...desired];
  const idAt = new Map(agents.map((agent) => [agent.address, agent.id]));
  const keysOf = new Map<string, number>();
  for (const agent of agents) keysOf.set(agent.id, (keysOf.get(agent.id) ?? 0) + 1);
  const offTheirKey = entriesOffTheirKey(workspace, idAt);
  const baseline: Record<string, AgentState> = {};
  for (const [address, entry] of Object.entries(workspace.agents)) if (!idAt.has(address)) baseline[address] = entry;
  const moves = new Map<string, string>();
  for (const { address, id } of agents) {
    const own = workspace.agents[address];
    if (own?.id === id) {
      baseline[address] = own;
      continue;
    }
    const [from, ...more] = offTheirKey.get(id) ?? [];
    if (from === undefined || more.length > 0 || keysOf.get(id) !== 1) continue;
    baseline[address] = workspace.agents[from] as AgentState;
    moves.set(address, from);
    if (!idAt.has(from)) delete baseline[from];
  }
  return { workspace: { ...workspace, agents: baseline }, moves };
}
