import { canonicalJson } from '../util/hash.js';

/**
 * The one "unchanged" rule of voxform: a desired value matches the live (or last-applied) one when
 * both serialize alike with keys sorted, and a desired `null` (the manifest clears the field)
 * matches a field that is unset. The differ, the update body and the read-back all ask this.
 */
export function isUnchanged(desired: unknown, live: unknown): boolean {
  if (desired === null) return live === undefined || live === null;
  return canonicalJson(desired) === canonicalJson(live);
}
