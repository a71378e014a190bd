/**
 * What the workspace's state records that the manifests no longer name. The service has no delete
 * for these resources, so a plan sends nothing for them: it lists them, so that removing a resource
 * from the manifests is never silent, and says how to detach a knowledge file a live agent keeps.
 * Apply leaves their records in the state (docs/plan.md, "Removing a resource from the manifests").
 */
import type { DesiredState } from '../manifest/types.js';
import type { WorkspaceState } from '../state/types.js';
import { byCodeUnits } from '../util/compare.js';
import { liveKnowledgeFiles } from './fingerprint.js';
import type { LiveState } from './read-live.js';
import type { NoLongerManaged, ResourceChange, ResourceKind } from './types.js';

/**
 * The state's entries under addresses neither the manifests nor a move names (a renamed key's old
 * address is the change's `movedFrom`: the same resource, not a removed one), in address order.
 */
export function noLongerManaged(workspace: WorkspaceState, desired: DesiredState, changes: readonly ResourceChange[], live: LiveState): NoLongerManaged[] {
  const named = new Set<string>();
  for (const map of [desired.agents, desired.phones, desired.campaigns, desired.knowledge, desired.credentials]) for (const resource of map.values()) named.add(resource.address);
  for (const change of changes) if (change.movedFrom !== undefined) named.add(change.movedFrom);
  const idAfterDot = (address: string) => address.slice(address.indexOf('.') + 1);
  const recorded: Array<[ResourceKind, Record<string, unknown>, (address: string) => string]> = [
    ['agent', workspace.agents, (address) => workspace.agents[address]!.id],
    ['phone', workspace.phones, idAfterDot],
    ['campaign', workspace.campaigns, (address) => workspace.campaigns[address]!.id],
    ['knowledge', workspace.knowledge, (address) => workspace.knowledge[address]!.fileId],
    ['credential', workspace.credentials, idAfterDot],
  ];
  const found: NoLongerManaged[] = [];
  for (const [kind, entries, idOf] of recorded) {
    for (const address of Object.keys(entries)) {
      if (named.has(address)) continue;
      const id = idOf(address);
      found.push({ address, kind, id, attachedTo: kind === 'knowledge' ? agentsKeeping(id, desired, live) : [] });
    }
  }
  return found.sort((a, b) => byCodeUnits(a.address, b.address));
}

/** The manifests' agents that attach the file live and leave their files as they are (no `knowledge:`). */
function agentsKeeping(fileId: string, desired: DesiredState, live: LiveState): string[] {
  const keeping: string[] = [];
  for (const agent of desired.agents.values()) {
    if (agent.knowledge !== undefined) continue;
    if (liveKnowledgeFiles(live.agents.get(agent.id)?.config).includes(fileId)) keeping.push(agent.address);
  }
  return keeping.sort(byCodeUnits);
}

/**
 * The title of the list, naming the files read: `-f` naming some of the manifest files lists the
 * resources of the others too, and this tells why.
 */
export function noLongerManagedTitle(files: readonly string[]): { title: string; read: string } {
  return { title: 'Not managed any more', read: files.length > 0 ? ` (the manifest files read: ${files.join(', ')})` : '' };
}

/** One resource's line, its address and id as `code` shows them (the state is anybody's file). */
export function noLongerManagedLine(resource: NoLongerManaged, code: (text: string) => string, desired = 'the manifests'): string {
  const id = resource.id === '' || resource.address.endsWith(resource.id) ? '' : ` (${code(resource.id)})`;
  const line = `${code(resource.address)}${id}: no longer in ${desired}; left as is on the service`;
  if (resource.attachedTo.length === 0) return line;
  const agents = resource.attachedTo.map(code).join(', ');
  const them = resource.attachedTo.length === 1 ? 'that agent' : 'each of them';
  return `${line}; still attached to ${agents}, which lists no knowledge: to detach it, give ${them} \`knowledge: []\`, or the list of files to keep`;
}
