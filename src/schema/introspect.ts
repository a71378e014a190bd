import { loadSchemas, type JsonSchema } from './load.js';
import type { FieldPath } from '../util/field-path.js';

/** What a schema says about one place in an instance, with `$ref`, `allOf` and `anyOf` folded in. */
export interface SchemaNode {
  /** Named properties allowed here, each with the node for its value. */
  properties: Map<string, SchemaNode | (() => SchemaNode)>;
  /** The node for values under any other key (maps such as headers), if the schema allows any. */
  additional: SchemaNode | 'any' | undefined;
  /** The node for array elements, if this can be an array. */
  items: SchemaNode | undefined;
  /** The JSON types a value here may have (`object`, `string`, …); undefined when the schema does not say (any). */
  types: ReadonlySet<string> | undefined;
  sensitive: boolean;
  readOnly: boolean;
}

type Root = 'service' | 'manifest';

function definition(root: Root, name: string): JsonSchema {
  const schemas = loadSchemas();
  const defs = schemas[root].$defs as Record<string, JsonSchema>;
  const def = defs[name];
  if (!def) throw new Error(`unknown ${root} schema definition: ${name}`);
  return def;
}

function followRef(ref: string, root: Root): { schema: JsonSchema; root: Root } {
  const external = ref.startsWith('service.schema.json#/$defs/');
  const targetRoot: Root = external ? 'service' : root;
  const name = ref.slice(ref.lastIndexOf('/') + 1);
  return { schema: definition(targetRoot, name), root: targetRoot };
}

const nodeCache = new WeakMap<JsonSchema, SchemaNode>();

function buildNode(schema: JsonSchema, root: Root): SchemaNode {
  const cached = nodeCache.get(schema);
  if (cached) return cached;
  const node: SchemaNode = {
    properties: new Map(),
    additional: undefined,
    items: undefined,
    types: undefined,
    sensitive: schema['x-sensitive'] === true,
    readOnly: schema.readOnly === true,
  };
  nodeCache.set(schema, node);
  const parts: Array<{ schema: JsonSchema; root: Root }> = [{ schema, root }];
  if (typeof schema.$ref === 'string') parts.push(followRef(schema.$ref, root));
  for (const key of ['allOf', 'anyOf', 'oneOf'] as const) {
    const list = schema[key];
    if (Array.isArray(list)) for (const sub of list as JsonSchema[]) parts.push({ schema: sub, root });
  }
  for (const part of parts) {
    const s = part.schema;
    if (part.schema !== schema) {
      const sub = buildNode(s, part.root);
      for (const [name, value] of sub.properties) if (!node.properties.has(name)) node.properties.set(name, value);
      node.additional ??= sub.additional;
      node.items ??= sub.items;
      if (sub.types) node.types = new Set([...(node.types ?? []), ...sub.types]);
      node.sensitive ||= sub.sensitive;
      node.readOnly ||= sub.readOnly;
      continue;
    }
    if (typeof s.type === 'string' || Array.isArray(s.type)) node.types = new Set([...(node.types ?? []), ...[s.type].flat().map(String)]);
    const props = s.properties as Record<string, JsonSchema> | undefined;
    if (props) {
      for (const [name, propSchema] of Object.entries(props)) {
        node.properties.set(name, () => buildNode(propSchema, part.root));
      }
    }
    const additional = s.additionalProperties;
    if (additional === true) node.additional = 'any';
    else if (additional && typeof additional === 'object') node.additional = buildNode(additional as JsonSchema, part.root);
    if (s.items && typeof s.items === 'object') node.items = buildNode(s.items as JsonSchema, part.root);
  }
  return node;
}

/** The node of a service definition (`AgentConfigRead`, …) or, with root `manifest`, a manifest definition. */
export function schemaNode(name: string, root: Root = 'service'): SchemaNode {
  if (root === 'manifest' && name === 'Manifest') return buildNode(loadSchemas().manifest, 'manifest');
  return buildNode(definition(root, name), root);
}

/** The node of a named property, or undefined when the schema does not know it. */
export function propertyNode(node: SchemaNode, name: string): SchemaNode | undefined {
  const entry = node.properties.get(name);
  if (entry) return typeof entry === 'function' ? entry() : entry;
  return node.additional === 'any' ? undefined : node.additional;
}

/** The node at a path (property names and array indexes), or undefined past the schema's knowledge. */
export function nodeAt(node: SchemaNode, path: FieldPath): SchemaNode | undefined {
  let current: SchemaNode | undefined = node;
  for (const part of path) {
    if (!current) return undefined;
    current = typeof part === 'number' ? current.items : propertyNode(current, part);
  }
  return current;
}

/** The property names the schema allows at a place (for "did you mean"). */
export function knownProperties(node: SchemaNode): string[] {
  return [...node.properties.keys()];
}

/** Field patterns (field-path.ts) of every value marked `x-sensitive` (or `readOnly`) under a definition. */
export function flaggedPaths(name: string, flag: 'sensitive' | 'readOnly', root: Root = 'service'): string[] {
  const found: string[] = [];
  const visiting = new Set<SchemaNode>();
  const walk = (node: SchemaNode, prefix: string): void => {
    if (node[flag]) {
      found.push(prefix);
      return;
    }
    if (visiting.has(node)) return;
    visiting.add(node);
    for (const key of node.properties.keys()) {
      const child = propertyNode(node, key);
      if (child) walk(child, prefix ? `${prefix}.${key}` : key);
    }
    if (node.additional && node.additional !== 'any') walk(node.additional, prefix ? `${prefix}.*` : '*');
    if (node.items) walk(node.items, `${prefix}[]`);
    visiting.delete(node);
  };
  walk(schemaNode(name, root), '');
  return found;
}

/** A copy of `value` holding only what the schema allows: unknown properties are dropped, recursively. */
export function stripToShape(node: SchemaNode, value: unknown, dropReadOnly = true): unknown {
  if (Array.isArray(value)) {
    return node.items ? value.map((item) => stripToShape(node.items as SchemaNode, item, dropReadOnly)) : value;
  }
  if (value === null || typeof value !== 'object') return value;
  if (node.properties.size === 0) return value; // free-form object
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    const childNode = propertyNode(node, key);
    if (!childNode) {
      if (node.additional === 'any') out[key] = child;
      continue;
    }
    if (dropReadOnly && childNode.readOnly) continue;
    out[key] = stripToShape(childNode, child, dropReadOnly);
  }
  return out;
}
