import { serializeAlike } from './compare.js';
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

/** The patterns a change's live side (`before`) is redacted by: its secret places, and those secret on the live side alone. */
export function liveSidePatterns(change: { sensitivePaths: readonly string[]; liveSensitivePaths?: readonly string[] | undefined }): readonly string[] {
  return change.liveSensitivePaths === undefined ? change.sensitivePaths : [...change.sensitivePaths, ...change.liveSensitivePaths];
}

/** How a sensitive part that changed reads, on its own line or inside a structured value. */
export const SECRET_CHANGED = '(sensitive value changed)';

/**
 * `shown`, the after side of a field change as a reviewer sees it (secrets redacted), with each
 * redacted part whose value differs between `before` and `after` read as `SECRET_CHANGED`: beside
 * the before side's redaction marker in a line diff, a tool header that changed shows as changed,
 * and one that did not stays a line both sides share. A part new on the after side is left as it is
 * (the diff shows it added).
 */
export function markChangedSecrets(shown: unknown, change: { before: unknown; after: unknown; path: string }, patterns: readonly string[]): unknown {
  if (patterns.length === 0 || shown === undefined) return shown;
  const start = secretPatternSet(patterns).cursorAt(change.path);
  if (!start.open) return shown;
  const walk = (part: unknown, before: unknown, after: unknown, at: PatternCursor): unknown => {
    if (at.covered) return part === REDACTED && before !== undefined && before !== null && !serializeAlike(before, after) ? SECRET_CHANGED : part;
    if (!at.open) return part;
    if (Array.isArray(part)) return part.map((item, i) => walk(item, childOf(before, i), childOf(after, i), at.step(i)));
    if (isPlainObject(part)) return Object.fromEntries(Object.entries(part).map(([k, v]) => [k, walk(v, childOf(before, k), childOf(after, k), at.step(k))]));
    return part;
  };
  return walk(shown, change.before, change.after, start);
}

/** The item or own property `step` of `value`, if it has one. */
function childOf(value: unknown, step: string | number): unknown {
  if (Array.isArray(value)) return typeof step === 'number' ? value[step] : undefined;
  return isPlainObject(value) && Object.hasOwn(value, step) ? value[step] : undefined;
}
