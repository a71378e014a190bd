import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isInside, readGuarded, realFolder } from '../../src/project-files/guarded-read.js';

let root: string;

beforeAll(async () => {
  root = await realFolder(await mkdtemp(path.join(tmpdir(), 'voxform-project-files-')));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Bytes that tell every position apart, so a chunk read twice or skipped shows. */
function pattern(size: number): Buffer {
  const bytes = Buffer.alloc(size);
  for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 8)) & 0xff;
  return bytes;
}

describe('readGuarded reads a file whole, into a buffer of its size', () => {
  for (const size of [0, 1, 2_000, 64 * 1024 - 1, 64 * 1024, 64 * 1024 + 1, 300_000]) {
    it(`${size} bytes`, async () => {
      const file = path.join(root, `f${size}.md`);
      await writeFile(file, pattern(size));
      const outcome = await readGuarded(file, { root, maxBytes: 1_000_000 });
      expect(outcome.ok).toBe(true);
      if (!outcome.ok) return;
      expect(outcome.bytes.equals(pattern(size))).toBe(true);
    });
  }

  it('refuses a file over the cap without reading past one byte more', async () => {
    const file = path.join(root, 'big.md');
    await writeFile(file, pattern(5_000));
    const outcome = await readGuarded(file, { root, maxBytes: 4_999 });
    expect(outcome).toMatchObject({ ok: false, reason: 'too_large' });
  });

  it('reads a file that reports size 0 but has content (as /proc files do), up to the cap', async () => {
    // /proc/self/status is a file of the process's own, with content and a reported size of 0.
    const outcome = await readGuarded('/proc/self/status', { root: '/proc', maxBytes: 1_000_000 });
    expect(outcome.ok).toBe(true);
    if (outcome.ok) expect(outcome.bytes.toString('utf8')).toMatch(/^Name:/);
    const capped = await readGuarded('/proc/self/status', { root: '/proc', maxBytes: 10 });
    expect(capped).toMatchObject({ ok: false, reason: 'too_large' });
  });
});

describe('isInside', () => {
  it.each([
    ['/p', '/p', true],
    ['/p', '/p/', true],
    ['/p', '/p/a.md', true],
    ['/p', '/p/sub/a.md', true],
    ['/p/', '/p/a.md', true],
    ['/', '/etc/passwd', true],
    ['/p', '/pp/a.md', false],
    ['/p', '/p2', false],
    ['/p', '/p/../etc/passwd', false],
    ['/p', '/p/sub/../../etc', false],
    ['/p', '/p/..', false],
    ['/p', '/p/a..b.md', true],
    ['/p', '/p/./a.md', true],
    ['/p', '/p//a.md', true],
    ['/p/sub/..', '/p/sub/../a.md', true],
    ['/p/sub/..', '/p/sub/../../x', false],
    ['/p', '/q', false],
  ])('%s holds %s: %s', (base, file, inside) => {
    expect(isInside(base, file)).toBe(inside);
  });
});
