/**
 * An agent whose manifest key was renamed (`front-desk:` became `reception:`, the same `id:`) is the
 * same agent: what the state keeps of it follows it to the new key, as a resource moved in Terraform.
 */
import type { WorkspaceState } from './types.js';

/**
 * The agents the manifests renamed: each new address, with the state address that kept the agent
 * before. A state entry moves when the manifests no longer name its key and exactly one manifest
 * agent has its id; with several (two keys may name one service agent) which one it became is
 * unknown, and the entry stays where it is.
 */
export function movedAgents(workspace: WorkspaceState, desired: Iterable<{ address: string; id: string }>): Map<string, string> {
  const byId = new Map<string, string[]>();
  for (const agent of desired) byId.set(agent.id, [...(byId.get(agent.id) ?? []), agent.address]);
  const named = new Set([...byId.values()].flat());
  const from = new Map<string, string[]>();
  for (const [address, entry] of Object.entries(workspace.agents)) {
    const candidates = byId.get(entry.id) ?? [];
    if (named.has(address) || candidates.length !== 1) continue;
    const to = candidates[0] as string;
    from.set(to, [...(from.get(to) ?? []), address]);
  }
  // Two old keys of one agent: which of them holds its last apply is unknown, so neither moves.
  const moves = new Map<string, string>();
  for (const [to, addresses] of from) if (addresses.length === 1) moves.set(to, addresses[0] as string);
  return moves;
}

/**
 * The workspace as it reads once the moves are made: each moved entry under its new address (an
 * entry an earlier apply already wrote there is the newer, and kept), none left under the old one.
 */
export function withMovedAgents(workspace: WorkspaceState, moves: ReadonlyMap<string, string>): WorkspaceState {
  if (moves.size === 0) return workspace;
  const agents = { ...workspace.agents };
  for (const [to, from] of moves) {
    const entry = agents[from];
    delete agents[from];
    if (entry && !Object.hasOwn(agents, to)) agents[to] = entry;
  }
  return { ...workspace, agents };
}
