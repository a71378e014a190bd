/**
 * Whose are the values refused in an agent's update. Where the manifests write a value the service
 * refused (a 422 at `body.config.…` or `body.name`), the failure's hint names it as `file:line:col`,
 * so the fix starts at the line rather than at the service's path; a value the manifests do not
 * write (the live agent's, sent back with a changed field beside it) leaves that hint as it is.
 * A body the client's schema check refused only at fields the manifests do not set holds the
 * service's own values, sent back as read (docs/plan.md, the update body): the error says so.
 */
import { isApiError } from '../api/errors.js';
import { formatSourceLocation, VoxformError, type SourceLocation } from '../errors.js';
import type { DesiredAgent } from '../manifest/types.js';
import type { PlannedRequest, ResourceChange } from '../plan/types.js';
import { configLocation, valueLocation } from '../policy/places.js';
import { formatDotted, formatIndexed, parseDotted } from '../util/field-path.js';
import type { DesiredIndex } from './resources.js';

export function withRefusedValuePlace(request: PlannedRequest, change: ResourceChange, error: unknown, resources: DesiredIndex): unknown {
  if (request.operation !== 'update_agent') return error;
  if (error instanceof VoxformError && error.code === 'api_request_invalid') return serviceValuesRefused(error, change) ?? error;
  if (!isApiError(error) || error.code !== 'api_validation') return error;
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

/** Whether one field path holds the other, either way round, or is it: `config.flow` and `config.flow.interruption`. */
function related(a: readonly string[], b: readonly string[]): boolean {
  // The shorter one's segments, compared with the other's first ones.
  return a.slice(0, b.length).every((segment, index) => segment === b[index]);
}

/**
 * The client's refusal of an update body whose every refused field is one the manifests do not set
 * (no managed field at, above or below it), named as the service's and how to fix it, where the
 * client's says voxform or the manifest built the request wrong; undefined otherwise.
 */
function serviceValuesRefused(error: VoxformError, change: ResourceChange): VoxformError | undefined {
  const issues = (error.details as { issues?: Array<{ path: Array<string | number>; message: string }> } | undefined)?.issues ?? [];
  const managed = Object.keys(change.after ?? {}).map(parseDotted);
  const refused = issues.map((issue) => ({ path: issue.path.map(String), message: issue.message }));
  if (refused.length === 0 || refused.some((issue) => managed.some((path) => related(issue.path, path)))) return undefined;
  const fields = [...new Set(refused.map((issue) => formatDotted(issue.path)))];
  const topKeys = [...new Set(refused.map((issue) => formatDotted(issue.path.slice(0, 2))))];
  return new VoxformError(
    'api_request_invalid',
    `The service holds ${refused.map((issue) => `${formatDotted(issue.path)} in a shape its own schema refuses (${issue.message})`).join('; ')}; updating ${topKeys.join(' and ')} sends back what the manifest does not set as the service has it, so the update was not sent.`,
    { hint: `Set ${fields.join(' and ')} in the manifest (it then sends its own value), or correct it on the service, then run again.`, details: error.details },
  );
}
