/**
 * What a recording keeps of the configuration a run sent for `--against desired`: a keyed hash of
 * each field (by dotted path), so `--mode auto` can tell that the configuration it would send now
 * differs from the one the recording was made with — the live agent's fields the manifests leave
 * out are in it, and they are not in the exchanges' keys — and name the fields, never their values.
 * Keyed (src/util/hash.ts, the state's fingerprint key) because the configuration sent may hold a
 * secret, and a recording is a repository file.
 */
import { fingerprintKeyId, keyedHash } from '../../util/hash.js';
import { dottedLeaves } from '../../util/field-path.js';

/** The fingerprints of one configuration sent, and the key they were taken with (named, never stored). */
export interface SentConfig {
  /** `fingerprintKeyId` of the key. */
  key_id: string;
  /** By dotted path (`config.temperature`): the keyed hash of the field's value. */
  fields: Record<string, string>;
}

export function sentConfigOf(config: unknown, fingerprintKey: string): SentConfig {
  const leaves = [...dottedLeaves(config, 'config')].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // fromEntries: own properties, a field named `__proto__` included.
  return { key_id: fingerprintKeyId(fingerprintKey), fields: Object.fromEntries(leaves.map(([path, value]) => [path, keyedHash(fingerprintKey, value)])) };
}

/**
 * How the configuration sent now compares with the one recorded: the paths that differ (empty when
 * none), or undefined when it cannot be told — nothing recorded, or recorded under another key.
 */
export function changedFields(recorded: SentConfig | undefined, now: SentConfig): string[] | undefined {
  if (!recorded || recorded.key_id !== now.key_id) return undefined;
  const paths = new Set([...Object.keys(recorded.fields), ...Object.keys(now.fields)]);
  return [...paths].filter((path) => fieldHash(recorded, path) !== fieldHash(now, path)).sort();
}

const fieldHash = (sent: SentConfig, path: string): string | undefined => (Object.hasOwn(sent.fields, path) ? sent.fields[path] : undefined);
