/**
 * `SecretRegistry.redactQuoted`: text quoted onto a review hides short secrets too, which the
 * scrub of printed text leaves (they would garble every word holding them); `redact` is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { SecretRegistry } from '../../src/secrets/redact.js';

describe('SecretRegistry.redactQuoted', () => {
  it('hides a short secret in any echoed form as well as the long ones, in one pass; redact leaves it', () => {
    const secrets = new SecretRegistry();
    secrets.add('q7Z');
    secrets.add('long-secret-value');
    const text = 'error: the service refused {"api_secret":"q7Z","key":"long-secret-value"} (q7Z%20)';
    expect(secrets.redact(text)).toBe('error: the service refused {"api_secret":"q7Z","key":"(sensitive)"} (q7Z%20)');
    expect(secrets.redactQuoted(text)).toBe('error: the service refused {"api_secret":"(sensitive)","key":"(sensitive)"} ((sensitive)%20)');
    expect(secrets.size).toBe(1);
  });

  it('never searches for a short secret inside a marker it wrote', () => {
    const secrets = new SecretRegistry();
    secrets.add('sen');
    secrets.add('long-secret-value');
    expect(secrets.redactQuoted('a long-secret-value and sensible')).toBe('a (sensitive) and (sensitive)sible');
  });
});
