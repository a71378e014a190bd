/**
 * PUT /agents/{id} semantics. Top-level config keys of the body replace the stored ones; keys the
 * body leaves out stay as they are. What differs between the modes is the read-only extras of the
 * read shape (voice.provider, flow.voicemail.action, llm.model, speech_to_text.provider,
 * response_mode of tools and platform functions), which the update shape cannot carry:
 *   merge   — the service keeps them where the body's subtree lacks them (voice.provider stays);
 *   replace — the body's subtree replaces the stored one wholesale, and they are gone.
 * Which of the two the real service does is not documented; the planner must be right under both.
 */
import { propertyNode, schemaNode, type SchemaNode } from '../schema/introspect.js';
import type { AgentConfigRead } from '../schema/types.gen.js';
import type { PutMode } from './types.js';
import { isPlainObject, type JsonObject } from '../util/json-object.js';

/** Only the read-only values inside `stored` (with the objects that hold them); undefined when there are none. */
function readOnlyPart(node: SchemaNode, stored: unknown): unknown {
  if (!isPlainObject(stored)) return undefined;
  const out: JsonObject = {};
  for (const key of node.properties.keys()) {
    const child = propertyNode(node, key);
    if (!child || stored[key] === undefined) continue;
    if (child.readOnly) out[key] = stored[key];
    else if (isPlainObject(stored[key])) {
      const part = readOnlyPart(child, stored[key]);
      if (part !== undefined) out[key] = part;
    }
  }
  return Object.keys(out).length > 0 ? out : undefined;
}

/**
 * `incoming` with the read-only extras of `stored` put back where `incoming` lacks them. Array
 * elements (tools, platform functions) are paired by `name`, else by position.
 */
function keepReadOnlyExtras(node: SchemaNode, stored: unknown, incoming: unknown): unknown {
  if (Array.isArray(incoming) && Array.isArray(stored) && node.items) {
    const items = node.items;
    const byName = new Map<string, unknown>();
    for (const element of stored) if (isPlainObject(element) && typeof element.name === 'string' && !byName.has(element.name)) byName.set(element.name, element);
    return incoming.map((element, index) => {
      const name = isPlainObject(element) && typeof element.name === 'string' ? element.name : undefined;
      const counterpart = name !== undefined ? byName.get(name) : stored[index];
      return counterpart === undefined ? element : keepReadOnlyExtras(items, counterpart, element);
    });
  }
  if (!isPlainObject(incoming) || !isPlainObject(stored) || node.properties.size === 0) return incoming;
  const out: JsonObject = { ...incoming };
  for (const key of node.properties.keys()) {
    const child = propertyNode(node, key);
    if (!child || stored[key] === undefined) continue;
    if (child.readOnly) {
      if (!(key in incoming)) out[key] = stored[key];
    } else if (key in incoming) {
      out[key] = keepReadOnlyExtras(child, stored[key], incoming[key]);
    } else {
      const part = readOnlyPart(child, stored[key]);
      if (part !== undefined) out[key] = part;
    }
  }
  return out;
}

/**
 * Applies an update body's config to a stored read-shape config, in place. `removed` are the
 * top-level keys the body set to null (removed in both modes).
 */
export function applyConfigUpdate(stored: AgentConfigRead, update: JsonObject, removed: readonly string[], mode: PutMode): void {
  const target = stored as JsonObject;
  for (const key of removed) delete target[key];
  const root = schemaNode('AgentConfigRead');
  // The update comes from a freshly parsed request body, so it is stored as is, without a copy.
  for (const [key, incoming] of Object.entries(update)) {
    const child = propertyNode(root, key);
    target[key] = mode === 'merge' && child ? keepReadOnlyExtras(child, target[key], incoming) : incoming;
  }
}

/**
 * A session's config: the agent's stored config with an override (register_call's agent_config,
 * chat's agent.agent_config) applied by top-level key, read-only extras kept.
 */
export function overlayConfig(stored: AgentConfigRead, override: JsonObject | undefined): AgentConfigRead {
  const config = structuredClone(stored);
  if (override) applyConfigUpdate(config, override, [], 'merge');
  return config;
}
