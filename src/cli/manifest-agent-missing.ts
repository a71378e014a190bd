/**
 * An agent of the manifests whose `id:` the service does not know, named as the manifests name it:
 * whichever command asked the service for it (test, chat, report…), the error says which agent of
 * which manifest, at the `file:line:col` of its id, as plan does. The loads of a run note their agents
 * (`noteManifestAgents`, which load-manifests.ts imports, so this module is loaded before any error);
 * run-command.ts turns the error through `namingManifestAgent`, the one place.
 */
import { isAgentNotFound, reworded } from '../api/errors.js';
import { formatSourceLocation } from '../errors.js';
import { agentIdSource } from '../manifest/desired-state.js';
import type { ManifestAgentsById } from './context.js';
import type { DesiredState } from '../manifest/types.js';

/**
 * `error` naming the manifest agent it is about, when it is a read of an agent of the manifests the
 * service answered 404 (`GET /agents/{id}`); any other error as it is. The code, the hint and the
 * request stay the error's.
 */
export function namingManifestAgent(error: unknown, seen: ManifestAgentsById | undefined): unknown {
  if (!seen || !isAgentNotFound(error)) return error;
  const id = decodedId(error.path.slice('/agents/'.length));
  const agent = id === undefined ? undefined : seen.get(id);
  if (!agent) return error;
  return reworded(error, { message: `${formatSourceLocation(agent.source)}: ${agent.address}: the service has no agent with id "${id}" (${error.message.replace(/\.$/, '')}).` });
}

function decodedId(segment: string): string | undefined {
  if (segment === '' || segment.includes('/')) return undefined;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** Notes the agents of a load by id (the first load's, when two name one id). */
export function noteManifestAgents(seen: ManifestAgentsById | undefined, state: DesiredState | undefined): void {
  if (!seen || !state) return;
  for (const agent of state.agents.values()) if (!seen.has(agent.id)) seen.set(agent.id, { address: agent.address, source: agentIdSource(agent) });
}
