/** Fills a planned body just before it is sent: secrets from the manifests or the service, ids from earlier requests. */
import { VoxformError } from '../errors.js';
import { formatDotted, valueAtPath, type FieldPath } from '../util/field-path.js';
import { comparableLiveAgent } from '../plan/agent-fields.js';
import type { LiveState } from '../plan/read-live.js';
import type { FillSource, PlannedRequest } from '../plan/types.js';
import type { DesiredIndex, DesiredResource } from './resources.js';

interface FillContext {
  resources: DesiredIndex;
  live: LiveState;
  /** Request id → the id it returned (an uploaded knowledge file's id). */
  results: ReadonlyMap<string, string>;
}

type Container = Record<string | number, unknown>;

/** Puts a value in place of an existing one (its parent must be there: a fill replaces, never creates). */
function setValueAt(target: unknown, path: FieldPath, value: unknown): boolean {
  const parent = valueAtPath(target, path.slice(0, -1));
  if (parent === null || typeof parent !== 'object' || path.length === 0) return false;
  (parent as Container)[path[path.length - 1] as string | number] = value;
  return true;
}

/** A resource's values as a manifest sets them, in the shape fills address them. */
function manifestValues(resource: DesiredResource | undefined): unknown {
  if (resource?.kind === 'agent') return { name: resource.name, config: resource.config };
  if (resource?.kind === 'phone') return { import: resource.import };
  if (resource?.kind === 'credential') return { api_key: resource.apiKey };
  if (resource?.kind === 'campaign') return { name: resource.name, include_metadata_in_prompt: resource.include_metadata_in_prompt };
  if (resource?.kind === 'knowledge') return { name: resource.name, description: resource.description };
  return undefined;
}

/** Agent id → the service's values of the agent in the shape fills address them (`comparableLiveAgent`). */
type LiveValues = Map<string, unknown>;

/**
 * The service's values of `resource`, an agent's, made at most once per body: a body holds a fill for
 * every secret of the service's it sends back, and making them copies the whole agent. Fills sit at
 * leaves apart from one another, so none writes into a value another reads.
 */
function liveValues(resource: DesiredResource | undefined, context: FillContext, made: LiveValues): unknown {
  if (resource?.kind !== 'agent') return undefined;
  if (!made.has(resource.id)) {
    const live = context.live.agents.get(resource.id);
    made.set(resource.id, live && comparableLiveAgent(live));
  }
  return made.get(resource.id);
}

function resolve(source: FillSource, request: PlannedRequest, context: FillContext, made: LiveValues): unknown {
  if ('resultOf' in source) {
    const result = context.results.get(source.resultOf);
    if (result === undefined) throw new VoxformError('apply_failed', `${request.id}: ${source.resultOf} returned no id to send.`, { hint: 'Run `voxform plan` again to see what the service holds now, then apply again.' });
    return result;
  }
  const { address, from, path } = source.secret;
  const resource = context.resources.get(address);
  const values = from === 'manifest' ? manifestValues(resource) : liveValues(resource, context, made);
  const value = valueAtPath(values, path);
  if (value === undefined) {
    // Only the place is named: the value is a secret.
    throw new VoxformError('plan_stale', `${request.id}: the secret value at ${formatDotted(path)} of ${address} is no longer ${from === 'manifest' ? 'in the manifests' : 'on the service'}; nothing of this request was sent.`, {
      hint: 'Plan again.',
    });
  }
  return value;
}

/** The body to send: the planned one with every fill put in (a copy; the plan is not changed). */
export function filledBody(request: PlannedRequest, context: FillContext): Record<string, unknown> | undefined {
  if (!request.body || request.fills.length === 0) return request.body;
  const body = structuredClone(request.body);
  const made: LiveValues = new Map();
  for (const fill of request.fills) {
    if (!setValueAt(body, fill.at, resolve(fill.value, request, context, made))) {
      throw new VoxformError('plan_unreadable', `${request.id}: the plan fills ${formatDotted(fill.at)}, which its body does not have.`, { hint: 'Make the plan again with `voxform plan --out FILE`; never edit a saved plan.' });
    }
  }
  return body;
}
