import { canonicalJson } from '../util/hash.js';

/**
 * The one "unchanged" rule of voxform: a desired value matches the live (or last-applied) one when
 * both serialize alike with keys sorted, and a desired `null` (the manifest clears the field)
 * matches a field that is unset. The differ, the update body and the read-back all ask this.
 */
export function isUnchanged(desired: unknown, live: unknown): boolean {
  if (desired === null) return live === undefined || live === null;
  // Two strings (prompts, mostly), two booleans or two finite numbers serialize alike exactly when
  // they are equal: compared without serializing. Anything else (objects, arrays, values of two
  // kinds, NaN and Infinity, which serialize as null) is compared in canonical JSON.
  const kind = typeof desired;
  if (kind === typeof live && (kind === 'string' || kind === 'boolean' || (kind === 'number' && Number.isFinite(desired) && Number.isFinite(live)))) {
    return desired === live;
  }
  return canonicalJson(desired) === canonicalJson(live);
}
