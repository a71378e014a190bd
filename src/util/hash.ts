import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level, so equal values always serialize alike. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      return Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
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
