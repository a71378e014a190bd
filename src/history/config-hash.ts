/**
 * The content hash of an agent's configuration: what ties a deploy to the calls that ran with it.
 * It is unkeyed (the history must outlive a key rotation), so secrets (the schema's, and `maskPaths`
 * from `${env:…}`) are masked before hashing.
 */
import { schemaNode, stripToShape } from '../schema/introspect.js';
import { configSecretSet } from '../secrets/schema-paths.js';
import type { PatternCursor } from '../util/field-path.js';
import { hashValue } from '../util/hash.js';
import { isPlainObject } from '../util/json-object.js';

/** What a secret value becomes before hashing. */
const MASKED = '(masked)';

interface ConfigurationHashOptions {
  /** Dotted paths under the config whose values came from `${env:…}` (`tools.0.webhook`). */
  maskPaths?: readonly string[] | undefined;
}

/** The configuration as hashed: the update shape only, no `null` values (cleared is absent), secrets masked. */
export function normalizeAgentConfig(config: Record<string, unknown>, options: ConfigurationHashOptions = {}): Record<string, unknown> {
  const shaped = stripToShape(schemaNode('AgentConfigUpdate'), config) as Record<string, unknown>;
  return withoutNullsMasked(shaped, configSecretSet(options.maskPaths ?? []).start(), true) as Record<string, unknown>;
}

function withoutNullsMasked(value: unknown, at: PatternCursor, root: boolean): unknown {
  if (!root && at.covered) return MASKED;
  if (Array.isArray(value)) return value.map((item, index) => withoutNullsMasked(item, at.step(index), false));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (child === null || child === undefined) continue;
    out[key] = withoutNullsMasked(child, at.step(key), false);
  }
  return out;
}

/** `sha256:<hex>` of the normalized configuration. */
export function configurationHash(config: Record<string, unknown>, options: ConfigurationHashOptions = {}): string {
  return hashValue(normalizeAgentConfig(config, options));
}
