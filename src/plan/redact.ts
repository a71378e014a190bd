import { secretPatternSet } from '../secrets/schema-paths.js';
import { REDACTED } from '../secrets/redact.js';
import type { PatternCursor } from '../util/field-path.js';
import { isPlainObject } from '../util/json-object.js';

/**
 * `value` (at dotted `path` of a resource) with every part under a sensitive pattern replaced by the
 * redaction marker; renderers and plan files see values only through this. Untouched parts are shared.
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
