/**
 * What the workspace's state records that the manifests no longer name. The service has no delete
 * for these resources, so a plan sends nothing for them: it lists them, so that removing a resource
 * from the manifests is never silent, and says how to detach a knowledge file a live agent keeps.
 * Apply leaves their records in the state (docs/plan.md, "Removing a resource from the manifests").
 */
import type { DesiredState } from '../manifest/types.js';
import type { WorkspaceState } from '../state/types.js';
import { byCodeUnits } from '../util/compare.js';
import { valueAtPath } from '../util/field-path.js';
import { liveKnowledgeFiles } from './fingerprint.js';
import type { LiveState } from './read-live.js';
import type { NoLongerManaged, ResourceChange, ResourceKind } from './types.js';

/**
 * The state's entries whose resource no resource of the manifests is, in address order: an entry
 * under an address neither the manifests nor a move names (a renamed key's old address is the
 * change's `movedFrom`: the same resource, not a removed one), and an agent's or campaign's under a
 * key of the manifests that now names another id (`keyNowNames`: apply writes the new one's entry
 * over it). An agent, campaign or knowledge file whose id a resource of the manifests has is managed
 * still, under whatever key the state records it: never listed. `recorded` is the workspace as the
 * state holds it, before renamed keys were followed (following drops an entry its key no longer names).
 */
export function noLongerManaged(recorded: WorkspaceState, desired: DesiredState, changes: readonly ResourceChange[], live: LiveState): NoLongerManaged[] {
  const named = new Set<string>();
  for (const map of [desired.agents, desired.phones, desired.campaigns, desired.knowledge, desired.credentials]) for (const resource of map.values()) named.add(resource.address);
  for (const change of changes) if (change.movedFrom !== undefined) named.add(change.movedFrom);
  const found: NoLongerManaged[] = [];
  const unmanaged = (kind: ResourceKind, address: string, id: string, keyNowNames?: string) =>
    found.push({ address, kind, id, attachedTo: kind === 'knowledge' ? agentsKeeping(id, desired, live) : [], ...(keyNowNames === undefined ? {} : { keyNowNames }) });
  for (const [kind, entries, resources] of [
    ['agent', recorded.agents, desired.agents],
    ['campaign', recorded.campaigns, desired.campaigns],
  ] as const) {
    const idAt = new Map([...resources.values()].map((resource) => [resource.address, resource.id]));
    const managedIds = new Set(idAt.values());
    for (const [address, { id }] of Object.entries(entries)) {
      if (managedIds.has(id)) continue;
      const keyNowNames = idAt.get(address);
      if (keyNowNames !== undefined || !named.has(address)) unmanaged(kind, address, id, keyNowNames);
    }
  }
  const managedFiles = new Set(Object.entries(recorded.knowledge).flatMap(([address, entry]) => (named.has(address) ? [entry.fileId] : [])));
  for (const [address, { fileId }] of Object.entries(recorded.knowledge)) if (!named.has(address) && !managedFiles.has(fileId)) unmanaged('knowledge', address, fileId);
  const idAfterDot = (address: string) => address.slice(address.indexOf('.') + 1);
  for (const [kind, entries] of [['phone', recorded.phones], ['credential', recorded.credentials]] as const) {
    for (const address of Object.keys(entries)) if (!named.has(address)) unmanaged(kind, address, idAfterDot(address));
  }
  return found.sort((a, b) => byCodeUnits(a.address, b.address));
}

/**
 * The manifests' agents that attach the file live and leave their files as they are: neither
 * `knowledge:` nor `config.knowledge_base.files` (an exported agent lists its files by id there).
 */
function agentsKeeping(fileId: string, desired: DesiredState, live: LiveState): string[] {
  const keeping: string[] = [];
  for (const agent of desired.agents.values()) {
    if (agent.knowledge !== undefined || valueAtPath(agent.config, ['knowledge_base', 'files']) !== undefined) continue;
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
  if (resource.keyNowNames !== undefined) {
    // Its record is under a key the manifests keep: apply writes the new resource's over it, so no later plan lists it.
    return `${code(resource.address)}'s earlier ${resource.kind} ${code(resource.id)}: the key now names ${code(resource.keyNowNames)}; left as is on the service, and apply replaces its record with the new one's`;
  }
  const id = resource.id === '' || resource.address.endsWith(resource.id) ? '' : ` (${code(resource.id)})`;
  const line = `${code(resource.address)}${id}: no longer in ${desired}; left as is on the service`;
  if (resource.attachedTo.length === 0) return line;
  const agents = resource.attachedTo.map(code).join(', ');
  const them = resource.attachedTo.length === 1 ? 'that agent' : 'each of them';
  return `${line}; still attached to ${agents}, which lists no knowledge: to detach it, give ${them} \`knowledge: []\`, or the list of files to keep`;
}
