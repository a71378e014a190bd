import { canonicalJson } from '../util/hash.js';

/**
 * The one "unchanged" rule of voxform: a desired value matches the live (or last-applied) one when
 * both serialize alike with keys sorted, and a desired `null` (the manifest clears the field)
 * matches a field that is unset. The differ, the update body and the read-back all ask this.
 */
export function isUnchanged(desired: unknown, live: unknown): boolean {
  if (desired === null) return live === undefined || live === null;
  return serializeAlike(desired, live);
}

/**
 * Whether two values serialize alike with keys sorted (`canonicalJson`). Two strings (prompts,
 * mostly), two booleans or two finite numbers do exactly when they are equal: compared without
 * serializing. Anything else (objects, arrays, values of two kinds, NaN and Infinity, which
 * serialize as null) is compared in canonical JSON.
 */
export function serializeAlike(a: unknown, b: unknown): boolean {
  const kind = typeof a;
  if (kind === typeof b && (kind === 'string' || kind === 'boolean' || (kind === 'number' && Number.isFinite(a) && Number.isFinite(b)))) return a === b;
  return canonicalJson(a) === canonicalJson(b);
}
