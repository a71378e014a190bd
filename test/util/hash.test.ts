import { describe, expect, it } from 'vitest';
import { fingerprintKey, hashValue, keyedHash } from '../../src/util/hash.js';

describe('keyed fingerprints', () => {
  it('an HMAC of the canonical JSON: key order does not matter, the key does', () => {
    const key = fingerprintKey('private-key-1');
    expect(keyedHash(key, { a: 1, b: 'x' })).toBe(keyedHash(key, { b: 'x', a: 1 }));
    expect(keyedHash(key, { a: 1, b: 'x' })).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
    expect(keyedHash(fingerprintKey('private-key-2'), 'k9Zq')).not.toBe(keyedHash(key, 'k9Zq'));
    // Not the unkeyed hash, salted or not, of the same value.
    expect(keyedHash(key, 'k9Zq').slice('hmac-'.length)).not.toBe(hashValue('k9Zq'));
  });

  it('the key is derived, not the API key itself, and the same for the same API key', () => {
    expect(fingerprintKey('private-key-1')).toBe(fingerprintKey('private-key-1'));
    expect(fingerprintKey('private-key-1')).not.toContain('private-key-1');
    expect(fingerprintKey('private-key-1')).toMatch(/^[0-9a-f]{64}$/);
  });
});
