// Regenerates the agent-config definitions of schemas/manifest.schema.json from the update shape of
// schemas/service.schema.json, and derives the schema voxform itself validates with.
//
// Why two views of one schema: the manifest schema is published (editors read it, `voxform schema`
// prints it) and must accept what a person writes — `null` to clear a config field, an empty
// section, `${env:…}` where a phone number goes, a webhook whose `url` comes from `defaults`.
// voxform validates later, after nulls are taken out and templates and defaults are resolved, so it
// checks the stricter form; a string that holds an `${env:…}` reference is checked as written, never
// filled in (docs/security.md §5: a verdict on the value would tell a pull request about a secret). The published schema states the strict form with
// three annotations that `internalManifestSchema` turns into assertions:
//   - `{"$ref": "#/$defs/Clear"}` / `{"$ref": "#/$defs/Empty"}` branches of an `anyOf`: dropped;
//   - `x-required-after-merge`: becomes `required`;
//   - `x-resolved-pattern`: replaces `pattern`.
//
// `npm run gen` writes the file; test/schema/types-fresh.test.ts fails when it is stale.
import { readFile, writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const schemaDir = path.join(root, 'schemas');

export const GENERATED_COMMENT = 'Generated from service.schema.json by scripts/gen-manifest-schema.mjs (npm run gen): do not edit.';
const E164 = '^\\+[1-9][0-9]{6,14}$';
/**
 * E.164, or text with an `${env:…}` reference, which voxform checks as written: what it checks once
 * templates are resolved. An escaped `$${env:…}` is no reference but that text, so not a number.
 */
const E164_OR_REFERENCE = '^(?:\\+[1-9][0-9]{6,14}|(?:.*[^$])?\\$\\{env:[^}]*\\}.*)$';
/** E.164, or text that becomes a number once `${env:…}` or a template's `{{…}}` is resolved. */
const E164_UNRESOLVED = '^(?:\\+[1-9][0-9]{6,14}|(?:.*[^$])?\\$\\{env:[^}]*\\}.*|.*\\{\\{[^}]*\\}\\}.*)$';
const CLEAR = { $ref: '#/$defs/Clear' };
const EMPTY_REF = '#/$defs/Empty';

/** Service definitions of the update shape → the manifest definitions generated from them. */
const NAMES = {
  VoiceUpdate: 'ConfigVoice',
  FlowUpdate: 'ConfigFlow',
  VoicemailUpdate: 'ConfigVoicemail',
  LlmUpdate: 'ConfigLlm',
  SpeechToTextUpdate: 'ConfigSpeechToText',
  ToolUpdate: 'ConfigTool',
  PlatformFunctionUpdate: 'ConfigPlatformFunction',
  ToolParam: 'ConfigToolParam',
  WebhookTarget: 'ConfigWebhook',
  SecretHeaders: 'ConfigHeaders',
};

function refName(ref) {
  if (!ref.startsWith('#/$defs/')) throw new Error(`unexpected reference ${ref}`);
  return ref.slice('#/$defs/'.length);
}

/** A definition with its `allOf` parts folded in: one object of all its properties. */
function flatten(schema, defs) {
  if (!Array.isArray(schema.allOf)) return schema;
  const { allOf, unevaluatedProperties, ...own } = schema;
  // Own properties first, then those of the parts: the order editors and `voxform fmt` follow.
  const properties = { ...own.properties };
  for (const part of allOf) {
    for (const [name, value] of Object.entries(flatten(defs[refName(part.$ref)], defs).properties ?? {})) properties[name] ??= value;
  }
  const out = { ...own, properties };
  if (unevaluatedProperties === false) out.additionalProperties = false;
  return out;
}

/** A config value as written in a manifest: `null` also accepted, meaning "clear this field". */
function clearable(node) {
  const { description, ...rest } = node;
  return { ...(description ? { description } : {}), anyOf: [node.$ref ? { $ref: node.$ref } : rest, CLEAR] };
}

class Generator {
  constructor(service) {
    this.defs = service.$defs;
    this.out = {};
  }

  /** The manifest definition generated for a service definition (made on first use). */
  define(serviceName) {
    const name = NAMES[serviceName];
    if (!name) throw new Error(`no manifest name for service definition ${serviceName}: add it to NAMES`);
    if (!this.out[name]) {
      this.out[name] = {}; // reserved first: definitions may refer to each other
      const { title, ...body } = this.convert(flatten(this.defs[serviceName], this.defs));
      this.out[name] = { $comment: GENERATED_COMMENT, title: name, ...body };
    }
    return `#/$defs/${name}`;
  }

  /** A service schema node → the manifest's form of it. */
  convert(node) {
    if (node.$ref) {
      const { $ref, ...rest } = node;
      return { ...this.convert(rest), $ref: this.define(refName($ref)) };
    }
    const out = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'properties') {
        out.properties = Object.fromEntries(Object.entries(value).map(([name, child]) => [name, clearable(this.convert(child))]));
      } else if (key === 'additionalProperties' && typeof value === 'object') {
        out.additionalProperties = clearable(this.convert(value));
      } else if (key === 'items') {
        out.items = this.convert(value);
      } else if (key === 'anyOf' || key === 'allOf') {
        out[key] = value.map((branch) => this.convert(branch));
      } else if (key === 'required') {
        out['x-required-after-merge'] = value;
      } else if (key === 'pattern' && value === E164) {
        out.pattern = E164_UNRESOLVED;
        out['x-resolved-pattern'] = E164_OR_REFERENCE;
      } else {
        out[key] = value;
      }
    }
    return out;
  }
}

/** The generated definitions: `AgentConfigSpec` and the `Config…` definitions it uses. */
export function generateConfigDefs(service) {
  const generator = new Generator(service);
  const parts = flatten(service.$defs.AgentConfigUpdateParts, service.$defs);
  const config = generator.convert({ ...parts, additionalProperties: false });
  const prompt = service.$defs.AgentConfigUpdate.properties.prompt;
  const { title: _title, ...rest } = config;
  const spec = {
    $comment: GENERATED_COMMENT,
    title: 'AgentConfigSpec',
    description:
      "The agent's AgentConfig in the update shape, any subset of it (docs/service-api.md, PUT /agents/{agent_id}). `prompt` may also be a file include; `null` anywhere clears that field.",
    type: 'object',
    properties: {
      prompt: {
        description: `${prompt.description} Inline text, or { file: prompts/NAME.md } read relative to the manifest.`,
        anyOf: [{ type: 'string' }, { $ref: '#/$defs/FileInclude' }, CLEAR],
      },
      ...rest.properties,
    },
    additionalProperties: false,
  };
  return { AgentConfigSpec: spec, ...Object.fromEntries(Object.entries(generator.out).sort(([a], [b]) => a.localeCompare(b))) };
}

/** The manifest schema with its generated definitions replaced by fresh ones. */
export function generateManifestSchema(service, manifest) {
  const handWritten = Object.fromEntries(Object.entries(manifest.$defs).filter(([, def]) => def.$comment !== GENERATED_COMMENT));
  return { ...manifest, $defs: { ...handWritten, ...generateConfigDefs(service) } };
}

/** Drops what only the published view has (see the top of this file): what voxform validates against. */
export function internalManifestSchema(schema) {
  const walk = (node) => {
    if (Array.isArray(node)) return node.map(walk);
    if (node === null || typeof node !== 'object') return node;
    let out = {};
    for (const [key, value] of Object.entries(node)) {
      if (key === 'x-required-after-merge') out.required = value;
      else if (key === 'x-resolved-pattern') out.pattern = value;
      else if (key === 'pattern' && node['x-resolved-pattern'] !== undefined) continue;
      else out[key] = walk(value);
    }
    if (Array.isArray(out.anyOf)) {
      const kept = out.anyOf.filter((branch) => branch.$ref !== CLEAR.$ref && branch.$ref !== EMPTY_REF);
      const { anyOf: _anyOf, ...siblings } = out;
      out = kept.length === 1 ? { ...siblings, ...kept[0] } : { ...siblings, anyOf: kept };
    }
    return out;
  };
  const { Clear: _clear, Empty: _empty, ...defs } = schema.$defs;
  return walk({ ...schema, $defs: defs });
}

export async function readSchemas() {
  const service = JSON.parse(await readFile(path.join(schemaDir, 'service.schema.json'), 'utf8'));
  const manifest = JSON.parse(await readFile(path.join(schemaDir, 'manifest.schema.json'), 'utf8'));
  return { service, manifest };
}

export async function generateManifestSchemaText() {
  const { service, manifest } = await readSchemas();
  return `${JSON.stringify(generateManifestSchema(service, manifest), null, 2)}\n`;
}

const isMain = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (isMain) {
  const text = await generateManifestSchemaText();
  if (process.argv.includes('--print')) process.stdout.write(text);
  else {
    await writeFile(path.join(schemaDir, 'manifest.schema.json'), text);
    console.log('wrote schemas/manifest.schema.json');
  }
}
