import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonPieces, fingerprintKey, gitBlobHash, hashValue, isContentHash, keyedHash, shortHash } from '../../src/util/hash.js';
import { repoRoot } from '../helpers/cli.js';

const run = promisify(execFile);
import { seededRandom } from '../../src/util/seeded-random.js';

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

/** The definition canonicalJson is written out from: JSON.stringify with every non-array object rebuilt with sorted keys. */
function referenceCanonicalJson(value: unknown): string {
  return (
    JSON.stringify(value, (_key, v: unknown) =>
      v !== null && typeof v === 'object' && !Array.isArray(v)
        ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
        : v,
    ) ?? 'undefined'
  );
}

describe('canonicalJson', () => {
  const KEYS = ['b', 'a', 'B', '10', '2', '0', '01', '-1', '1.5', 'é', 'a"b', '\\n', '4294967295', '4294967294', '', 'z'];
  const SCALARS: unknown[] = [0, -0, 1.5, -3e21, NaN, Infinity, '', 'text "quoted"\n', '\u2028', true, false, null, undefined, () => 1, Symbol('s')];

  function randomValue(next: () => number, depth: number): unknown {
    const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
    const roll = next();
    if (depth > 3 || roll < 0.45) return pick(SCALARS);
    if (roll < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => randomValue(next, depth + 1));
    if (roll < 0.65) return new Date(Math.floor(next() * 2e12));
    if (roll < 0.7) {
      const inner = randomValue(next, depth + 1);
      return { toJSON: (key: string) => ({ key, inner }) };
    }
    const object: Record<string, unknown> = {};
    for (let i = Math.floor(next() * 6); i > 0; i--) object[pick(KEYS)] = randomValue(next, depth + 1);
    return object;
  }

  it('writes exactly what the sorted-keys JSON.stringify writes, for 5,000 random values', () => {
    const next = seededRandom(11);
    for (let i = 0; i < 5_000; i++) {
      const value = randomValue(next, 0);
      expect(canonicalJson(value)).toBe(referenceCanonicalJson(value));
    }
  });

  it('in pieces, some levels deep, writes what it writes whole, and the keyed hash of the pieces is that of the whole', () => {
    const next = seededRandom(12);
    const key = fingerprintKey('private-key-1');
    for (let i = 0; i < 1_000; i++) {
      const value = randomValue(next, 0);
      for (const levels of [1, 2, 5]) {
        expect([...canonicalJsonPieces(value, levels)].join('')).toBe(canonicalJson(value));
        expect(keyedHash(key, value, levels)).toBe(keyedHash(key, value));
      }
    }
  });

  it('sorts keys at every level, index-like keys first in numeric order', () => {
    expect(canonicalJson({ b: 1, a: { d: [{ z: 1, y: 2 }], c: undefined }, 10: 'x', 2: 'y' })).toBe('{"2":"y","10":"x","a":{"d":[{"y":2,"z":1}]},"b":1}');
    expect(canonicalJson(undefined)).toBe('undefined');
    expect(canonicalJson([undefined, NaN])).toBe('[null,null]');
    expect(() => canonicalJson({ n: 1n })).toThrow(TypeError);
  });
});

describe('content hashes', () => {
  it('knows a content hash and shows its first 12 hex digits', () => {
    const hash = hashValue({ prompt: 'Hi' });
    expect(isContentHash(hash)).toBe(true);
    expect([hash.toUpperCase(), hash.slice(0, -1), `hmac-sha256:${hash.slice(7)}`, 42].some(isContentHash)).toBe(false);
    expect(shortHash(hash)).toBe(hash.slice(7, 19));
  });
});

describe('one hash module', () => {
  it('no other file of src/ takes a hash of its own: each kind has one form, here', async () => {
    const src = path.join(repoRoot, 'src');
    const files = (await readdir(src, { recursive: true })).filter((file) => file.endsWith('.ts'));
    const hashing: string[] = [];
    for (const file of files) if (/\bcreate(Hash|Hmac)\b/.test(await readFile(path.join(src, file), 'utf8'))) hashing.push(file);
    expect(hashing).toEqual([path.join('util', 'hash.ts')]);
  });

  it("gitBlobHash names a blob as git does (`git hash-object`), empty or not", async () => {
    for (const text of ['', 'hello\n', 'ünï\r\ncode\u0000']) {
      const dir = await mkdtemp(path.join(tmpdir(), 'voxform-blob-'));
      try {
        await writeFile(path.join(dir, 'f'), text);
        const { stdout } = await run('git', ['hash-object', path.join(dir, 'f')], { env: { PATH: process.env.PATH, GIT_CONFIG_NOSYSTEM: '1', HOME: dir } });
        const bytes = Buffer.from(text);
        expect(gitBlobHash('sha1', bytes.length).update(bytes).digest('hex')).toBe(stdout.trim());
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    }
  });
});
