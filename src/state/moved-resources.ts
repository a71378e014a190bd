/**
 * What the state keeps of a resource belongs to the resource on the service, not to its manifest key:
 * an entry follows its resource to a renamed key (`front-desk:` became `reception:`), as a resource
 * moved in Terraform. An agent and a campaign are the one their `id:` names; a knowledge file, having
 * no id in the manifests, is its content (the service cannot rename a file, only upload another).
 * Phones and credentials are keyed by their number and provider: their key cannot be renamed.
 */
import type { DesiredState } from '../manifest/types.js';
import type { WorkspaceState } from './types.js';
import { addToList } from '../util/map-lists.js';

/** A manifest resource: its state address and what makes it the same resource under another key. */
interface Addressed {
  address: string;
  identity: string;
}

/** How one kind's entries follow their resources. */
interface Following<Entry> {
  identityOf(entry: Entry): string;
  /**
   * Whether the entry under a key the manifests name (as `desired`) is that key's: for an agent or a
   * campaign only when it holds the key's id (else the key was given another one, whose entry starts
   * empty); for a knowledge file always (a file whose content changed is uploaded again under its key).
   */
  belongsTo(entry: Entry, desired: Addressed): boolean;
}

/**
 * The entries of one kind as the manifests' resources read them, and the moves (new address → the
 * address the state kept the entry under). A resource's entry is the one under its key when that is
 * its own; else the one entry of its identity under a key that is not its own (a key gone from the
 * manifests, or given another resource: two keys swapped). With none, or several (which holds its
 * last apply is unknown), or with two manifest keys of its identity (which one it became is
 * unknown), it has no entry. Entries under keys the manifests do not name, and not moved, stay.
 */
function follow<Entry>(entries: Record<string, Entry>, desired: readonly Addressed[], kind: Following<Entry>): { entries: Record<string, Entry>; moves: Map<string, string> } {
  const at = new Map(desired.map((resource) => [resource.address, resource]));
  const keysOf = new Map<string, number>();
  for (const { identity } of desired) keysOf.set(identity, (keysOf.get(identity) ?? 0) + 1);
  const offTheirKey = new Map<string, string[]>();
  const followed: Record<string, Entry> = {};
  for (const [address, entry] of Object.entries(entries)) {
    const named = at.get(address);
    if (!named) followed[address] = entry;
    if (named && kind.belongsTo(entry, named)) continue;
    const identity = kind.identityOf(entry);
    addToList(offTheirKey, identity, address);
  }
  const moves = new Map<string, string>();
  for (const resource of desired) {
    const own = entries[resource.address];
    if (own !== undefined && kind.belongsTo(own, resource)) {
      followed[resource.address] = own;
      continue;
    }
    const [from, ...more] = offTheirKey.get(resource.identity) ?? [];
    if (from === undefined || more.length > 0 || keysOf.get(resource.identity) !== 1) continue;
    followed[resource.address] = entries[from] as Entry;
    moves.set(resource.address, from);
    if (!at.has(from)) delete followed[from];
  }
  return { entries: followed, moves };
}

/** Agents and campaigns: the one their `id:` names. */
function byId<Entry extends { id: string }>(): Following<Entry> {
  return { identityOf: (entry) => entry.id, belongsTo: (entry, desired) => entry.id === desired.identity };
}

/**
 * The workspace as the manifests' resources read it — the last apply of each, the drift baseline —
 * with each agent's, campaign's and knowledge file's entry followed to its key (`follow`), and every
 * move (new address → the address the state kept the entry under).
 */
export function followedWorkspace(workspace: WorkspaceState, desired: DesiredState): { workspace: WorkspaceState; moves: Map<string, string> } {
  const ids = (resources: Iterable<{ address: string; id: string }>) => [...resources].map(({ address, id }) => ({ address, identity: id }));
  const agents = follow(workspace.agents, ids(desired.agents.values()), byId());
  const campaigns = follow(workspace.campaigns, ids(desired.campaigns.values()), byId());
  const files = [...desired.knowledge.values()].map(({ address, contentHash }) => ({ address, identity: contentHash }));
  const knowledge = follow(workspace.knowledge, files, { identityOf: (entry) => entry.contentHash, belongsTo: () => true });
  return {
    workspace: { ...workspace, agents: agents.entries, campaigns: campaigns.entries, knowledge: knowledge.entries },
    moves: new Map([...agents.moves, ...campaigns.moves, ...knowledge.moves]),
  };
}
