/**
 * An environment's credentials merge over the base's by provider, each found by the provider at
 * once: searching the list for each overlay credential cost the square of their number. The work
 * is counted as the reads of the credentials (a Proxy around each); the merge is checked against
 * the search it replaced.
 */
import { describe, expect, it } from 'vitest';
import { DiagnosticList } from '../../src/manifest/diagnostics.js';
import { selectEnvironment } from '../../src/manifest/environments.js';
import { RESOURCE_SECTIONS, type CombinedManifest, type Layer } from '../../src/manifest/fragments.js';
import { deepMerge } from '../../src/manifest/merge.js';
import { isPlainObject } from '../../src/util/json-object.js';
import type { Span } from '../../src/manifest/source.js';

function layer(credentials: unknown[]): Layer {
  const sections = Object.fromEntries(RESOURCE_SECTIONS.map((section) => [section, {}])) as Layer['sections'];
  return { settings: {}, sections, credentials };
}

/** The credentials of environment `prod`, its overlay's merged over the base's. */
function mergedCredentials(base: unknown[], overlay: unknown[]): unknown[] {
  const combined: CombinedManifest = {
    ...layer(base),
    environments: new Map([['prod', { layer: layer(overlay), keySpan: {} as Span, promotion: {} }]]),
    environmentsSpan: undefined,
    firstSpan: {} as Span,
  };
  return selectEnvironment(combined, 'prod', undefined, new DiagnosticList()).credentials;
}

/** The merge as it was first written: each overlay credential searched for in the list so far. */
function searchedMerge(base: unknown[], overlay: unknown[]): unknown[] {
  const out = [...base];
  for (const credential of overlay) {
    const provider = isPlainObject(credential) ? credential.provider : undefined;
    const replaced = out.findIndex((item) => isPlainObject(item) && provider !== undefined && item.provider === provider);
    const at = replaced >= 0 ? replaced : out.length;
    out[at] = replaced >= 0 ? deepMerge(out[at], credential) : credential;
  }
  return out;
}

describe('credentials merge by provider', () => {
  it('as the search did: the first of a provider replaced, NaN and no provider never matched', () => {
    const base = [{ provider: 'a', n: 1 }, { provider: 'a', n: 2 }, { provider: Number.NaN, n: 3 }, 'text', { n: 4 }, { provider: 0, n: 5 }, { provider: { name: 'own' }, n: 6 }, null];
    const overlay = [
      { provider: 'a', m: 1 },
      { provider: Number.NaN, m: 2 },
      { provider: Number.NaN, m: 3 },
      { provider: -0, m: 4 },
      { provider: 'b', m: 5 },
      { provider: 'b', m: 6 },
      { m: 7 },
      'x',
      { provider: { name: 'own' }, m: 8 },
      { provider: '0', m: 12 },
      { provider: null, m: 13 },
      { provider: null, m: 14 },
    ];
    const merged = mergedCredentials(base, overlay);
    expect(merged).toEqual(searchedMerge(base, overlay));
    expect(merged).toHaveLength(base.length + 8);
  });

  it('2,000 overlay credentials over 2,000 are each read a few times, not once per credential before them', () => {
    const count = 2_000;
    let reads = 0;
    const counted = <T extends object>(value: T): T =>
      new Proxy(value, {
        get: (target, key, receiver) => (reads++, Reflect.get(target, key, receiver)),
        getOwnPropertyDescriptor: (target, key) => (reads++, Reflect.getOwnPropertyDescriptor(target, key)),
        ownKeys: (target) => (reads++, Reflect.ownKeys(target)),
      });
    const base = Array.from({ length: count }, (_, i) => counted({ provider: `p${i}`, api_key: `k${i}` }));
    // Half replace the base's last credentials, half are new providers.
    const overlay = Array.from({ length: count }, (_, i) => counted({ provider: i % 2 === 0 ? `p${count - 1 - i}` : `q${i}`, model: `m${i}` }));
    const merged = mergedCredentials(base, overlay);
    expect(merged).toHaveLength(count + count / 2);
    expect(merged[count - 1]).toEqual({ provider: `p${count - 1}`, api_key: `k${count - 1}`, model: 'm0' });
    expect(merged[count]).toEqual({ provider: 'q1', model: 'm1' });
    // Searched for each: about 1.5 × 2,000² reads of `provider`.
    expect(reads).toBeLessThan(50 * count);
  });
});
