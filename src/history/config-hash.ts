/**
 * The content hash of an agent's configuration: what ties a deploy to the calls that ran with it.
 * It is unkeyed (the history must outlive a key rotation), so secrets (the schema's, and `maskPaths`
 * from `${env:…}`) are masked before hashing: each such place whole, unless `maskedText` masks only
 * the secrets inside its text (the recording key's, src/conversations/prepare.ts).
 */
import { schemaNode, stripToShape } from '../schema/introspect.js';
import { configSecretSet } from '../secrets/schema-paths.js';
import { formatDotted, type PatternCursor } from '../util/field-path.js';
import { hashValue } from '../util/hash.js';
import { isPlainObject } from '../util/json-object.js';

/** What a secret value becomes before hashing. */
export const MASKED = '(masked)';

interface ConfigurationHashOptions {
  /** Dotted paths under the config whose values came from `${env:…}` (`tools.0.webhook`). */
  maskPaths?: readonly string[] | undefined;
  /**
   * A text at a masked place (its dotted path under the config) as hashed, each secret in it
   * replaced by MASKED, so the hash changes with the text around them; undefined masks it whole.
   * Unset, every masked place is masked whole: the hash the deploy ledger, the history and the
   * reports attribute calls by, which must not change for the records already kept.
   */
  maskedText?: ((text: string, path: string) => string | undefined) | undefined;
}

/** The configuration as hashed: the update shape only, no `null` values (cleared is absent), secrets masked. */
export function normalizeAgentConfig(config: Record<string, unknown>, options: ConfigurationHashOptions = {}): Record<string, unknown> {
  const shaped = stripToShape(schemaNode('AgentConfigUpdate'), config) as Record<string, unknown>;
  return withoutNullsMasked(shaped, configSecretSet(options.maskPaths ?? []).start(), [], options.maskedText) as Record<string, unknown>;
}

function withoutNullsMasked(value: unknown, at: PatternCursor, path: Array<string | number>, maskedText: ConfigurationHashOptions['maskedText']): unknown {
  if (path.length > 0 && at.covered) return (typeof value === 'string' && maskedText?.(value, formatDotted(path))) || MASKED;
  if (Array.isArray(value)) return value.map((item, index) => withoutNullsMasked(item, at.step(index), [...path, index], maskedText));
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, child] of Object.entries(value)) {
    if (child === null || child === undefined) continue;
    out[key] = withoutNullsMasked(child, at.step(key), [...path, key], maskedText);
  }
  return out;
}

/** `sha256:<hex>` of the normalized configuration. */
export function configurationHash(config: Record<string, unknown>, options: ConfigurationHashOptions = {}): string {
  return hashValue(normalizeAgentConfig(config, options));
}
