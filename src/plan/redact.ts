import { secretPatternSet } from '../secrets/schema-paths.js';
import { REDACTED } from '../secrets/redact.js';
import type { PatternCursor } from '../util/field-path.js';
import { isPlainObject } from '../util/json-object.js';

/**
 * A copy of `value` (found at dotted `path` of a resource) with every part that lies at or under
 * one of the sensitive `patterns` (`config.tools[].header`, `config.session_data_webhook.headers`,
 * concrete paths from `${env:…}`) replaced by the redaction marker. Renderers and plan files only
 * ever see values through this. Parts no pattern reaches are shared with `value`, not copied.
 */
export function redactValue(value: unknown, path: string, patterns: readonly string[]): unknown {
  if (patterns.length === 0 || value === undefined) return value;
  const start = secretPatternSet(patterns).cursorAt(path);
  if (!start.open) return value;
  const walk = (current: unknown, at: PatternCursor): unknown => {
    if (at.covered) return current === undefined || current === null ? current : REDACTED;
    if (!at.open) return current;
    if (Array.isArray(current)) return current.map((item, i) => walk(item, at.step(i)));
    if (isPlainObject(current)) return Object.fromEntries(Object.entries(current).map(([k, v]) => [k, walk(v, at.step(k))]));
    return current;
  };
  return walk(value, start);
}
