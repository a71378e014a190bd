import { canonicalJson } from '../util/hash.js';
import { isPlainObject } from '../util/json-object.js';

/**
 * The one "unchanged" rule: both serialize alike with keys sorted, and a desired `null` matches an
 * unset field, or one holding an empty object: what a live object held only of fields the service
 * sets (read-only, stripped before comparing), which a `null` sent leaves there (`voicemail`'s
 * `action`), so that it would otherwise never converge.
 */
export function isUnchanged(desired: unknown, live: unknown): boolean {
  if (desired === null) return live === undefined || live === null || (isPlainObject(live) && Object.keys(live).length === 0);
  return serializeAlike(desired, live);
}

/** Whether two values serialize alike with keys sorted; strings, booleans and finite numbers compared directly. */
export function serializeAlike(a: unknown, b: unknown): boolean {
  const kind = typeof a;
  if (kind === typeof b && (kind === 'string' || kind === 'boolean' || (kind === 'number' && Number.isFinite(a) && Number.isFinite(b)))) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}
