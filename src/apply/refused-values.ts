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
import { childOf, spansOf, type PathPart } from '../manifest/positions.js';
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
  if (path.length === 0) return undefined;
  const whole = placeOf(agent, ['config', ...path], configLocation(agent, path));
  if (whole) return whole;
  // A part longer than what the entry writes is located where the whole path is: not found either.
  // Trying each length in turn would copy the service's path once per segment of it.
  for (let length = Math.min(writtenDepth(agent.config, path), path.length - 1); length > 0; length--) {
    const found = placeOf(agent, ['config', ...path.slice(0, length)], configLocation(agent, path.slice(0, length)));
    if (found) return found;
  }
  return undefined;
}

/** How many segments of `path` the spans under `root` follow: `spanAt` answers any longer part with the place of this one. */
function writtenDepth(root: unknown, path: readonly PathPart[]): number {
  let node = root;
  for (let depth = 0; depth < path.length; depth++) {
    const part = path[depth] as PathPart;
    if (!spansOf(node)?.entries.get(part)) return depth;
    node = childOf(node, part);
  }
  return path.length;
}

/** `at` for `path`, unless it is the agent's own key: what stands for a value written nowhere in its entry. */
function placeOf(agent: DesiredAgent, path: Array<string | number>, at: SourceLocation): { at: SourceLocation; path: Array<string | number> } | undefined {
  return at === agent.source ? undefined : { at, path };
}

/** A place in the tree of the managed paths: the segments that go on from it, and whether a managed path ends here. */
interface ManagedPlace {
  managed: boolean;
  next: Map<string, ManagedPlace>;
}

/** The managed paths as one tree of their segments: an issue's path is walked once, not beside every managed path. */
function managedTree(paths: readonly string[][]): ManagedPlace {
  const root: ManagedPlace = { managed: false, next: new Map() };
  for (const path of paths) {
    let place = root;
    for (const segment of path) {
      let next = place.next.get(segment);
      if (!next) place.next.set(segment, (next = { managed: false, next: new Map() }));
      place = next;
    }
    place.managed = true;
  }
  return root;
}

/** Whether a managed path holds `path`, either way round, or is it: `config.flow` and `config.flow.interruption`. */
function relatedToManaged(root: ManagedPlace, path: readonly string[]): boolean {
  let place = root;
  for (const segment of path) {
    if (place.managed) return true;
    const next = place.next.get(segment);
    if (!next) return false;
    place = next;
  }
  // Every segment followed: a managed path ends here or goes on below (the root, only when there is one).
  return place.managed || place.next.size > 0;
}

/**
 * The client's refusal of an update body whose every refused field is one the manifests do not set
 * (no managed field at, above or below it), named as the service's and how to fix it, where the
 * client's says voxform or the manifest built the request wrong; undefined otherwise.
 */
function serviceValuesRefused(error: VoxformError, change: ResourceChange): VoxformError | undefined {
  const issues = (error.details as { issues?: Array<{ path: Array<string | number>; message: string }> } | undefined)?.issues ?? [];
  const managed = managedTree(Object.keys(change.after ?? {}).map(parseDotted));
  const refused = issues.map((issue) => ({ path: issue.path.map(String), message: issue.message }));
  if (refused.length === 0 || refused.some((issue) => relatedToManaged(managed, issue.path))) return undefined;
  const fields = [...new Set(refused.map((issue) => formatDotted(issue.path)))];
  const topKeys = [...new Set(refused.map((issue) => formatDotted(issue.path.slice(0, 2))))];
  return new VoxformError(
    'api_request_invalid',
    `The service holds ${refused.map((issue) => `${formatDotted(issue.path)} in a shape its own schema refuses (${issue.message})`).join('; ')}; updating ${topKeys.join(' and ')} sends back what the manifest does not set as the service has it, so the update was not sent.`,
    { hint: `Set ${fields.join(' and ')} in the manifest (it then sends its own value), or correct it on the service, then run again.`, details: error.details },
  );
}
