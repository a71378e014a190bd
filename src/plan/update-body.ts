import type { Agent, UpdateAgentRequest } from '../schema/types.gen.js';
import type { DesiredAgent } from '../manifest/types.js';
import { isUnchanged } from './compare.js';
import { joinDotted, parseDotted, setAtPath, valueAtPath } from '../util/field-path.js';
import { cloneJson, isPlainObject, type JsonObject } from '../util/json-object.js';
import { desiredAgentFields, comparableLiveAgent, type ComparableAgent } from './agent-fields.js';

/**
 * The body of `PUT /agents/{id}` for the managed paths that differ (docs/plan.md). Each changed
 * top-level config key carries the whole live subtree with the desired leaves merged in, so nothing
 * unmanaged is lost whether the service merges or replaces keys. A top-level null is sent (the service
 * removes the key), a nested one left out; `name` is always sent. Undefined when nothing changes.
 */
export function agentUpdateBody(comparable: ComparableAgent, changedPaths: Iterable<string>, fields: ReadonlyMap<string, unknown>): UpdateAgentRequest | undefined {
  const changedTopKeys = new Set<string>();
  let nameChanged = false;
  for (const path of changedPaths) {
    if (path === 'name') nameChanged = true;
    else if (path.startsWith('config.')) changedTopKeys.add(parseDotted(path)[1] as string);
  }
  if (!nameChanged && changedTopKeys.size === 0) return undefined;

  const config: JsonObject = {};
  // The changed top-level keys whose subtree is the live one with the desired leaves merged in.
  const merged = new Set<string>();
  for (const top of changedTopKeys) {
    const topPath = joinDotted('config', top);
    if (fields.has(topPath)) {
      config[top] = cloneJson(fields.get(topPath));
      continue;
    }
    const liveSubtree = comparable.config[top];
    config[top] = isPlainObject(liveSubtree) ? cloneJson(liveSubtree) : {};
    merged.add(top);
  }
  // One pass over the fields, in their order, each leaf into its key's subtree.
  if (merged.size > 0) {
    for (const [path, value] of fields) {
      const segments = parseDotted(path);
      if (segments.length < 3 || segments[0] !== 'config' || !merged.has(segments[1] as string)) continue;
      setAtPath(config[segments[1] as string] as JsonObject, segments.slice(2), value === null ? undefined : cloneJson(value));
    }
  }
  // The managed name (none when `ignore:`d: the dashboard's, sent back as it is), else the live one.
  const name = fields.get('name');
  return { name: typeof name === 'string' ? name : comparable.name, config };
}

/** The update body for `agent` against a live agent, finding the changed fields itself. */
export function buildAgentUpdate(agent: DesiredAgent, live: Agent): UpdateAgentRequest | undefined {
  const comparable = comparableLiveAgent(live);
  const fields = desiredAgentFields(agent);
  const changed = [...fields].filter(([path, value]) => !isUnchanged(value, valueAtPath(comparable, parseDotted(path)))).map(([path]) => path);
  return agentUpdateBody(comparable, changed, fields);
}
