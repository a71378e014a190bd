import type { Agent } from '../schema/types.gen.js';
import type { DesiredAgent } from '../manifest/types.js';
import { comparableLiveAgent, desiredAgentFields } from '../plan/agent-fields.js';
import { agentSensitivePatterns } from '../secrets/schema-paths.js';
import { isUnchanged } from '../plan/compare.js';
import { parseDotted, valueAtPath } from '../util/field-path.js';
import { isPlainObject } from '../util/json-object.js';
import { redactValue } from '../plan/redact.js';

/** The managed fields (dotted paths) a live agent does not hold as the manifests set them. */
export function fieldsNotAsDesired(agent: DesiredAgent, live: Agent, only: (path: string) => boolean = () => true): Array<[path: string, desired: unknown, actual: unknown]> {
  const comparable = comparableLiveAgent(live);
  const differing: Array<[string, unknown, unknown]> = [];
  for (const [path, value] of desiredAgentFields(agent)) {
    if (!only(path)) continue;
    const actual = valueAtPath(comparable, parseDotted(path));
    if (!isUnchanged(value, actual)) differing.push([path, value, actual]);
  }
  return differing;
}

/**
 * Whether an update body sent the managed field at `path`: `name` always goes, and a config field
 * when its top-level key does (the service replaces a key sent whole and leaves the others alone).
 */
function sentBy(body: Record<string, unknown> | undefined): (path: string) => boolean {
  const config = isPlainObject(body?.config) ? body.config : {};
  return (path) => {
    const [first, top] = parseDotted(path);
    if (first === 'name') return body?.name !== undefined;
    return first === 'config' && top !== undefined && Object.hasOwn(config, top);
  };
}

/**
 * Warnings for the fields an update sent that the agent as read back holds otherwise. A field not
 * sent is never named: someone may change it on the service meanwhile, and this apply had no say in
 * it. The update's answer does not return the agent, so a field sent and read back otherwise was
 * either not kept or changed by someone between the two: the warning says both.
 */
export function readBackWarnings(agent: DesiredAgent, live: Agent, sentBody: Record<string, unknown> | undefined): string[] {
  const patterns = agentSensitivePatterns(agent);
  return fieldsNotAsDesired(agent, live, sentBy(sentBody)).map(([path, value, actual]) => {
    const sent = JSON.stringify(redactValue(value, path, patterns));
    const kept = actual === undefined ? 'nothing' : JSON.stringify(redactValue(actual, path, patterns));
    const shown = sent === kept ? '' : ` (sent ${sent}, the service has ${kept})`;
    return `${agent.address}: ${path} is not as applied${shown}: changed on the service since, or not kept.`;
  });
}
