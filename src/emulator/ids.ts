import { randomBytes } from 'node:crypto';

const ALPHANUMERIC = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** Random alphanumeric text; keys seen from the service are 32 such characters. */
export function randomAlphanumeric(length: number): string {
  // 62 does not divide 256: reject the top bytes so every character is equally likely.
  const limit = 256 - (256 % ALPHANUMERIC.length);
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte >= limit) continue;
      out += ALPHANUMERIC[byte % ALPHANUMERIC.length];
      if (out.length === length) break;
    }
  }
  return out;
}

/** A fresh identifier with a readable prefix: `call_…`, `ses_…`, `kf_…`, `key_…`. */
export function newId(prefix: string): string {
  return `${prefix}_${randomBytes(10).toString('hex')}`;
}

/** Unix seconds with millisecond precision (the service's timestamps may be fractional). */
export function nowSeconds(): number {
  return Math.round(Date.now()) / 1000;
}
