/**
 * Editors show a schema's descriptions on hover and in completion: every property of both schemas,
 * and every value of every enum, says what it means.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { loadSchemas, type JsonSchema } from '../../src/schema/load.js';

type Root = 'service' | 'manifest';
const ANNOTATION_ONLY = new Set(['#/$defs/Clear', '#/$defs/Empty']);

function definitionOf(root: Root, ref: string): { schema: JsonSchema; root: Root } {
  const targetRoot: Root = ref.startsWith('service.schema.json#') ? 'service' : root;
  const name = ref.slice(ref.lastIndexOf('/') + 1);
  const schema = (loadSchemas()[targetRoot].$defs as Record<string, JsonSchema>)[name];
  if (!schema) throw new Error(`dangling reference ${ref} in the ${root} schema`);
  return { schema, root: targetRoot };
}

/** A property is described by its own description, or by the definition it only refers to. */
function isDescribed(schema: JsonSchema, root: Root): boolean {
  if (typeof schema.description === 'string' && schema.description.trim().length > 10) return true;
  if (typeof schema.$ref === 'string') {
    const target = definitionOf(root, schema.$ref);
    return isDescribed(target.schema, target.root);
  }
  const branches = (schema.anyOf as JsonSchema[] | undefined)?.filter((b) => !ANNOTATION_ONLY.has(String(b.$ref)));
  return branches !== undefined && branches.length > 0 && branches.every((b) => isDescribed(b, root));
}

interface Finding {
  undescribed: string[];
  enums: string[];
  /** JSON pointers (from the schema's root) of subschemas with `examples`. */
  examples: Array<{ root: Root; pointer: string; values: unknown[] }>;
}

/** Walks every subschema, noting properties without a description and enums without value descriptions. */
function walk(schema: unknown, root: Root, at: string, found: Finding): void {
  if (Array.isArray(schema)) return schema.forEach((item, i) => walk(item, root, `${at}/${i}`, found));
  if (schema === null || typeof schema !== 'object') return;
  const node = schema as JsonSchema;
  if (Array.isArray(node.examples)) found.examples.push({ root, pointer: at.slice(1), values: node.examples });
  if (Array.isArray(node.enum)) {
    const texts = node.enumDescriptions;
    const ok = Array.isArray(texts) && texts.length === node.enum.length && texts.every((t) => typeof t === 'string' && t.trim() !== '');
    if (!ok) found.enums.push(`${root}:${at} (${node.enum.map(String).join(', ')})`);
  }
  for (const [key, value] of Object.entries(node)) {
    if (key === 'properties') {
      for (const [name, property] of Object.entries(value as Record<string, JsonSchema>)) {
        if (!isDescribed(property, root)) found.undescribed.push(`${root}:${at}/properties/${name}`);
        walk(property, root, `${at}/properties/${name}`, found);
      }
    } else if (key !== 'examples' && key !== 'default' && key !== 'const' && key !== 'enum') {
      walk(value, root, `${at}/${key}`, found);
    }
  }
}

describe('schema descriptions', () => {
  const found: Finding = { undescribed: [], enums: [], examples: [] };
  let properties = 0;
  for (const root of ['service', 'manifest'] as const) {
    walk(loadSchemas()[root], root, '#', found);
    properties += JSON.stringify(loadSchemas()[root]).split('"properties":').length - 1;
  }

  it('walks both schemas', () => {
    expect(properties).toBeGreaterThan(50);
  });

  it('every property has a description (its own, or that of the definition it refers to)', () => {
    expect(found.undescribed).toEqual([]);
  });

  it('every enum describes each of its values (enumDescriptions, as editors read it)', () => {
    expect(found.enums).toEqual([]);
  });

  it('every example is a value its schema accepts', () => {
    const schemas = loadSchemas();
    const ajv = addFormatsModule.default(new Ajv2020({ strict: false }));
    ajv.addSchema(schemas.service);
    ajv.addSchema(schemas.manifest);
    expect(found.examples.length).toBeGreaterThan(10);
    const refused: string[] = [];
    for (const { root, pointer, values } of found.examples) {
      const validate = ajv.getSchema(`${String(schemas[root].$id)}#${pointer}`);
      if (!validate) throw new Error(`no subschema at ${root}:${pointer}`);
      for (const value of values) if (!validate(value)) refused.push(`${root}:${pointer}: ${JSON.stringify(value)}`);
    }
    expect(refused).toEqual([]);
  });
});
