/**
 * Where the manifests write a value the service refused in an agent's update (a 422 at
 * `body.config.…` or `body.name`): the failure's hint names it as `file:line:col`, so the fix starts
 * at the line rather than at the service's path. A value the manifests do not write (the live
 * agent's, sent back with a changed field beside it) leaves the hint as it is.
 */
import { isApiError } from '../api/errors.js';
import { formatSourceLocation, type SourceLocation } from '../errors.js';
import type { DesiredAgent } from '../manifest/types.js';
import type { PlannedRequest, ResourceChange } from '../plan/types.js';
import { configLocation, valueLocation } from '../policy/places.js';
import { formatIndexed } from '../util/field-path.js';
import type { DesiredIndex } from './resources.js';

export function withRefusedValuePlace(request: PlannedRequest, change: ResourceChange, error: unknown, resources: DesiredIndex): unknown {
  if (request.operation !== 'update_agent' || !isApiError(error) || error.code !== 'api_validation') return error;
  const agent = resources.get(change.address);
  if (agent?.kind !== 'agent') return error;
  for (const [where, field, ...path] of error.loc) {
    if (where !== 'body') continue;
    const written = field === 'name' ? placeOf(agent, ['name'], valueLocation(agent, ['name'])) : field === 'config' ? writtenConfigPlace(agent, path) : undefined;
    if (written) return error.withHint(`The service rejected the values named above; ${formatSourceLocation(written.at)} writes ${formatIndexed(written.path)}.`);
  }
  return error;
}

/** The longest part of a config path the agent's entry writes: the service's path may go on past the value (a union's member). */
function writtenConfigPlace(agent: DesiredAgent, path: ReadonlyArray<string | number>): { at: SourceLocation; path: Array<string | number> } | undefined {
  for (let length = path.length; length > 0; length--) {
    const found = placeOf(agent, ['config', ...path.slice(0, length)], configLocation(agent, path.slice(0, length)));
    if (found) return found;
  }
  return undefined;
}

/** `at` for `path`, unless it is the agent's own key: what stands for a value written nowhere in its entry. */
function placeOf(agent: DesiredAgent, path: Array<string | number>, at: SourceLocation): { at: SourceLocation; path: Array<string | number> } | undefined {
  return at === agent.source ? undefined : { at, path };
}
