import { createHash, createHmac } from 'node:crypto';
import { isPlainObject } from './json-object.js';

/** JSON with object keys sorted at every level, so equal values always serialize alike. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (isPlainObject(v)) {
      return Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    }
    return v;
  }) ?? 'undefined';
}

/** `sha256:<hex>` of a string or bytes. */
export function sha256(data: string | Uint8Array): string {
  return `sha256:${createHash('sha256').update(data).digest('hex')}`;
}

/** `sha256:` of a value's canonical JSON: equal values, equal hashes, whatever the key order. */
export function hashValue(value: unknown): string {
  return sha256(canonicalJson(value));
}

/**
 * The key of every fingerprint voxform stores or saves (state file, saved plans), derived from a
 * secret the operator holds and the files never do: the API key. An HMAC under it cannot be tested
 * against guesses offline, so a 4-character webhook token in the state file stays a secret; with a
 * salt stored beside the hash it would fall in seconds.
 */
export function fingerprintKey(secret: string): string {
  return createHmac('sha256', secret).update('voxform fingerprint key v1').digest('hex');
}

/** `hmac-sha256:<hex>` of a value's canonical JSON under `key` (see `fingerprintKey`). */
export function keyedHash(key: string, value: unknown): string {
  return `hmac-sha256:${createHmac('sha256', key).update(canonicalJson(value)).digest('hex')}`;
}
