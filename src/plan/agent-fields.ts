/** An agent's managed fields, as the differ, the update body, apply's state records and the read-back see them. */
import type { Agent } from '../schema/types.gen.js';
import type { DesiredAgent } from '../manifest/types.js';
import { schemaNode, stripToShape } from '../schema/introspect.js';
import { dottedLeaves, isDottedAtOrUnder } from '../util/field-path.js';

/** A live agent as comparable to a manifest: read-only extras stripped (they are never managed). */
export interface ComparableAgent {
  name: string;
  config: Record<string, unknown>;
}

/** Fields made once per loaded agent (which does not change): the differ, apply and the read-back each ask. */
const fieldsOf = new WeakMap<DesiredAgent, ReadonlyMap<string, unknown>>();

/** The managed field values of an agent: `name` and every leaf the manifest sets under `config`. */
export function desiredAgentFields(agent: DesiredAgent): ReadonlyMap<string, unknown> {
  let fields = fieldsOf.get(agent);
  if (!fields) {
    fields = collectFields(agent);
    fieldsOf.set(agent, fields);
  }
  return fields;
}

function collectFields(agent: DesiredAgent): Map<string, unknown> {
  const fields = new Map<string, unknown>();
  if (agent.name !== undefined) fields.set('name', agent.name);
  for (const [path, value] of dottedLeaves(agent.config, 'config')) fields.set(path, value);
  for (const ignored of agent.ignore) for (const path of [...fields.keys()]) if (isDottedAtOrUnder(path, ignored)) fields.delete(path);
  return fields;
}

export function comparableLiveAgent(agent: Agent): ComparableAgent {
  const config = stripToShape(schemaNode('AgentConfigUpdate'), agent.config ?? {}) as Record<string, unknown>;
  return { name: agent.name, config };
}
