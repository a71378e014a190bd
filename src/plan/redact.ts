import { pathMatchesPattern } from '../schema/introspect.js';
import { REDACTED } from '../util/redact.js';
import { isPlainObject } from '../util/json-object.js';

/**
 * A copy of `value` (found at dotted `path` of a resource) with every part that lies at or under
 * one of the sensitive `patterns` (`config.tools[].header`, `config.session_data_webhook.headers`,
 * concrete paths from `${env:…}`) replaced by the redaction marker. Renderers and plan files only
 * ever see values through this.
 */
export function redactValue(value: unknown, path: string, patterns: readonly string[]): unknown {
  if (patterns.length === 0 || value === undefined) return value;
  const walk = (current: unknown, parts: Array<string | number>): unknown => {
    if (patterns.some((pattern) => pathMatchesPattern(parts, pattern))) return current === undefined || current === null ? current : REDACTED;
    if (Array.isArray(current)) return current.map((item, i) => walk(item, [...parts, i]));
    if (isPlainObject(current)) return Object.fromEntries(Object.entries(current).map(([k, v]) => [k, walk(v, [...parts, k])]));
    return current;
  };
  return walk(value, path === '' ? [] : path.split('.'));
}
