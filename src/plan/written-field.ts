/**
 * How a plan shows an agent's field the manifests fill from `${env:…}` at a place the schema does not
 * mark secret (a webhook's URL, a first message, the name). Its resolved value holds a variable's value,
 * so it is never shown; hiding the field whole would hide from the reviewer what the plan exists to
 * show (a pull request moving `session_data_webhook` to its own host). So the field is shown as the
 * manifest wrote it, every reference unresolved, beside the live value, which is hidden only where
 * trusted evidence (src/secrets/trusted.ts) says it holds a secret. Places the schema marks secret
 * (headers, credentials) stay hidden whatever is written there.
 */
import { agentSecretPatterns, secretPatternSet } from '../secrets/schema-paths.js';
import { isDottedAtOrUnder, parseDotted, placePath, valueAtPath, type FieldPath, type PatternSet } from '../util/field-path.js';
import { cloneJson, isPlainObject, setOwn } from '../util/json-object.js';
import { serializeAlike } from './compare.js';
import { redactValue } from './redact.js';
import type { ShownField } from './types.js';

/**
 * The field at `path` as a reviewer sees it (`FieldChange.shown`), or undefined when the manifests
 * fill no place of it from `${env:…}` outside the schema's secrets. `references`: the agent's
 * `${env:…}` values as written, by dotted path from its entry; `liveSecretPatterns`: the places of the
 * live agent trusted evidence says are secret, dotted from its entry (asked only for such a field).
 */
export function shownWrittenField(
  field: { path: string; before: unknown; after: unknown },
  references: Readonly<Record<string, string>> | undefined,
  liveSecretPatterns: () => readonly string[],
): ShownField | undefined {
  const under = Object.entries(references ?? {}).filter(([place]) => isDottedAtOrUnder(place, field.path));
  if (under.length === 0) return undefined;
  const schemaPatterns = agentSecretPatterns([]);
  const schemaSecrets = secretPatternSet(schemaPatterns);
  const written = under.filter(([place]) => !isSchemaSecret(schemaSecrets, place));
  if (written.length === 0) return undefined;
  const before = redactValue(field.before, field.path, [...schemaPatterns, ...liveSecretPatterns()]);
  return { before, after: redactValue(withWrittenText(field.after, field.path, shownTexts(field, before, written)), field.path, schemaPatterns) };
}

/**
 * What each of `written`'s places shows on the after side: its text as written where its value
 * changes; where the manifests resolve it to the live value, the live side's text there (`shownBefore`,
 * `(sensitive)` where that holds a secret). Such a place did not change: it reads as a line both
 * sides share, not as the live `(sensitive)` replaced by the reference that fills it with the same.
 */
function shownTexts(field: { path: string; before: unknown; after: unknown }, shownBefore: unknown, written: ReadonlyArray<[string, string]>): Array<[string, unknown]> {
  const depth = parseDotted(field.path).length;
  return written.map(([place, text]) => {
    const steps = placePath(place).slice(depth);
    if (!serializeAlike(valueAtPath(field.after, steps), valueAtPath(field.before, steps))) return [place, text];
    // Undefined where the live side hides a place around it whole: the place itself is not shown there.
    return [place, valueAtPath(shownBefore, steps) ?? text];
  });
}

/**
 * Whether the schema marks a dotted place secret. A place names a list's item by its digits
 * (`config.tools.0.header`), which the schema's patterns match only as an index (`tools[].header`):
 * a digit step is tried as both, so a tool's header is never taken for a place shown as written.
 */
function isSchemaSecret(schemaSecrets: PatternSet, place: string): boolean {
  return schemaSecrets.cursorAt(place).covered || schemaSecrets.covers(placePath(place));
}

/** `value` (the field at `base`) with the text shown at each of `written`'s places (`shownTexts`): a copy, `value` left as it is. */
function withWrittenText(value: unknown, base: string, written: ReadonlyArray<[string, unknown]>): unknown {
  const depth = parseDotted(base).length;
  let copy = value;
  for (const [place, text] of written) {
    const steps = placePath(place).slice(depth);
    if (steps.length === 0) return text;
    if (copy === value) copy = cloneJson(value);
    setAt(copy, steps, text);
  }
  return copy;
}

/** Sets `text` at `steps` inside `container` (a number names an item of a list), where the place exists. */
function setAt(container: unknown, steps: FieldPath, text: unknown): void {
  let current = container;
  for (const [index, step] of steps.entries()) {
    const last = index === steps.length - 1;
    if (Array.isArray(current) && typeof step === 'number' && step < current.length) {
      if (last) current[step] = text;
      else current = current[step];
    } else if (isPlainObject(current) && Object.hasOwn(current, String(step))) {
      if (last) setOwn(current, String(step), text);
      else current = current[String(step)];
    } else return;
  }
}
