import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The folder holding the JSON Schemas; the same relative place from src/ (tests) and dist/ (the package). */
export const schemasDir = fileURLToPath(new URL('../../schemas/', import.meta.url));

export type JsonSchema = { [keyword: string]: unknown };

let cache: { service: JsonSchema; manifest: JsonSchema } | undefined;

/** Reads both schema files once per process. */
export function loadSchemas(): { service: JsonSchema; manifest: JsonSchema } {
  cache ??= {
    service: JSON.parse(readFileSync(`${schemasDir}service.schema.json`, 'utf8')) as JsonSchema,
    manifest: JSON.parse(readFileSync(`${schemasDir}manifest.schema.json`, 'utf8')) as JsonSchema,
  };
  return cache;
}

/** Where init and export put the editor schema, relative to the project; the manifest's modeline points at it. */
export const SCHEMA_FILE = '.voxform/manifest.schema.json';
export const SCHEMA_MODELINE = `yaml-language-server: $schema=${SCHEMA_FILE}`;

/**
 * The manifest schema as one self-contained document (the service's definitions it uses copied in),
 * for editors that cannot follow a relative reference: what `voxform schema` prints.
 */
export function bundleManifestSchema(): JsonSchema {
  const { service, manifest } = loadSchemas();
  const localized = JSON.parse(
    JSON.stringify(manifest).replaceAll('"service.schema.json#/$defs/', '"#/$defs/'),
  ) as JsonSchema & { $defs: JsonSchema };
  return { ...localized, $defs: { ...(service.$defs as JsonSchema), ...localized.$defs } };
}
