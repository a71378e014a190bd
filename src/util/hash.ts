/**
 * Every hash voxform takes, each kind in one form: content identity `sha256:<hex>`; bare hex for
 * digest parts and formats the service, S3 or git define; `hmac-sha256:<hex>` fingerprints of secrets;
 * `'sha256-<base64>'` CSP sources; raw bytes for numbers derived from names.
 */
import { createHash, createHmac, type Hash } from 'node:crypto';
import { requireArgument } from './required-options.js';

/**
 * JSON.stringify's replacer for keys sorted at every level: each object is rebuilt with its keys in
 * code-unit order (a rebuilt object puts index-like keys first, in numeric order, as every object
 * holds them), so equal values serialize alike whatever order their writer used.
 */
export function withSortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, (value as Record<string, unknown>)[key]]));
}

/** JSON with object keys sorted at every level (`withSortedKeys`). */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, withSortedKeys) ?? 'undefined';
}

/**
 * `canonicalJson(value)` in pieces, for a value too large to be one string (a saved plan at the
 * plan budget): the arrays and objects `levels` deep are written an entry at a time, deeper values whole.
 */
export function* canonicalJsonPieces(value: unknown, levels: number): Generator<string> {
  if (levels === 0 || !opensAsEntries(value)) return yield canonicalJson(value);
  const array = Array.isArray(value);
  const entries = (array ? value : withSortedKeys('', value)) as Record<string, unknown>;
  let empty = true;
  for (const key of array ? Array.from(value, (_, i) => String(i)) : Object.keys(entries)) {
    const item = entries[key];
    const opens = opensAsEntries(item);
    const whole = opens ? undefined : (entryJson(item, key) ?? (array ? 'null' : undefined));
    if (!opens && whole === undefined) continue; // left out of an object, as canonicalJson leaves it out
    yield `${empty ? (array ? '[' : '{') : ','}${array ? '' : `${JSON.stringify(key)}:`}`;
    empty = false;
    yield* whole === undefined ? canonicalJsonPieces(item, levels - 1) : [whole];
  }
  yield `${empty ? (array ? '[' : '{') : ''}${array ? ']' : '}'}`;
}

/** An array, or an object serialized as its own entries (one with a `toJSON` is serialized as what that returns). */
function opensAsEntries(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !hasToJson(value);
}

/** An entry's JSON as canonicalJson writes it inside its container (its `toJSON` told its key); undefined where it is left out. */
function entryJson(item: unknown, key: string): string | undefined {
  return JSON.stringify(hasToJson(item) ? item.toJSON(key) : item, withSortedKeys);
}

function hasToJson(value: unknown): value is { toJSON(key: string): unknown } {
  return value !== null && typeof value === 'object' && typeof (value as { toJSON?: unknown }).toJSON === 'function';
}

/** `sha256:<hex>` of a string or bytes. */
export function sha256(data: string | Uint8Array): string {
  return `sha256:${sha256Hex(data)}`;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/** The SHA-256 of data read in chunks, as bare hex. */
export class Sha256Stream {
  private readonly hash: Hash = createHash('sha256');

  update(chunk: Uint8Array): this {
    this.hash.update(chunk);
    return this;
  }

  hex(): string {
    return this.hash.digest('hex');
  }
}

/**
 * A hash to be fed the bytes of a blob of `size` bytes, whose hex digest is the blob's id as git
 * names it: SHA-1, or SHA-256 in a repository of that object format.
 */
export function gitBlobHash(algorithm: 'sha1' | 'sha256', size: number): Hash {
  return createHash(algorithm).update(`blob ${size}\0`);
}

/** The bare hex MD5 of bytes: only where a format outside voxform asks for it (an S3 ETag). */
export function md5Hex(data: Uint8Array): string {
  return createHash('md5').update(data).digest('hex');
}

/** The bare hex HMAC-SHA256 of a text: only where a format outside voxform asks for it (an S3 policy signature). */
export function hmacSha256Hex(key: string, text: string): string {
  return createHmac('sha256', key).update(text).digest('hex');
}

export function sha256Bytes(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}

/** A Content-Security-Policy source that allows exactly this inline text. */
export function cspSourceHash(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
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
  // An empty key would hash as any other: every state and plan would share one key no account holds.
  requireArgument('fingerprintKey', 'apiKey', secret, 'text');
  return derivedKey(secret, 'voxform fingerprint key v1');
}

/** A key derived from `secret` for one use, named by `label` (bare hex of an HMAC of the label): keys of two labels never coincide. */
export function derivedKey(secret: string, label: string): string {
  return createHmac('sha256', secret).update(label).digest('hex');
}

/** Whether a value is a content hash, `sha256:` and 64 hex digits (what records keep of a configuration). */
export function isContentHash(value: unknown): value is string {
  return typeof value === 'string' && /^sha256:[0-9a-f]{64}$/.test(value);
}

/** A content hash as people compare it by eye: its first 12 hex digits. */
export function shortHash(hash: string): string {
  return hash.replace(/^sha256:/, '').slice(0, 12);
}

/** Whether a kept value is a keyed hash (what the state keeps of a secret), not the value itself. */
export function isKeyedHash(value: unknown): boolean {
  return typeof value === 'string' && /^hmac-sha256:[0-9a-f]{64}$/.test(value);
}

/**
 * `hmac-sha256:<hex>` of a value's canonical JSON under `key` (see `fingerprintKey`); `levels`: of a
 * value too large to serialize as one string, how deep it is hashed an entry at a time (`canonicalJsonPieces`).
 */
export function keyedHash(key: string, value: unknown, levels = 0): string {
  const hmac = createHmac('sha256', key);
  for (const piece of canonicalJsonPieces(value, levels)) hmac.update(piece);
  return `hmac-sha256:${hmac.digest('hex')}`;
}

/** Whether hashes recorded under the key named `recorded` cannot be compared under the key named `keyId`; a state without the name is read as made with it. */
export function hashedWithAnotherKey(recorded: string | undefined, keyId: string): boolean {
  return recorded !== undefined && recorded !== keyId;
}

/** Names the fingerprint key without revealing it (an HMAC of a constant under it): saved plans and the state say which key they were made with. */
export function fingerprintKeyId(fingerprintKey: string): string {
  return keyedHash(fingerprintKey, 'voxform fingerprint key id');
}
