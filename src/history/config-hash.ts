/**
 * The content hash of an agent's configuration: the one identity that ties a deploy (an apply
 * history record) to the calls that ran with it (each call record's `agent_config`). The apply
 * history computes it over the live configuration right after apply; the call report computes it
 * over a call's `agent_config`. Equal configurations give equal hashes, whatever the key order.
 *
 * The hash is unkeyed (the history must stay usable after the API key rotates), so it is never
 * taken over a secret: values the schema marks secret, and values a manifest fills from
 * `${env:…}` (passed as `maskPaths`), are replaced by a marker before hashing.
 */
import { schemaNode, stripToShape } from '../schema/introspect.js';
import { configSecretSet } from '../secrets/schema-paths.js';
import type { PatternCursor } from '../util/field-path.js';
import { hashValue } from '../util/hash.js';
import { isPlainObject } from '../util/json-object.js';

/** What a secret value becomes before hashing. */
const MASKED = '(masked)';

export interface ConfigurationHashOptions {
  /**
   * Dotted paths under the config whose values came from `${env:…}` (`DesiredAgent.sensitivePaths`,
   * array elements by index: `tools.0.webhook`). Masked like the schema's secrets.
   */
  maskPaths?: readonly string[] | undefined;
}

/**
 * The configuration as hashed: the update shape only (the service's read-only extras and
 * per-agent bookkeeping dropped), no `null` values (a cleared field and an absent one are the same
 * configuration), secrets masked.
 */
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
