/**
 * A kept file that goes between the look and the read: a lock's holder that another run removed,
 * with its folder, while this run was reading it (seen in CI: the losing apply of two reported
 * "locked by an unknown run … a symbolic link leading out of its folder" instead of looking again).
 * The look is `lstat` (node:fs/promises), replaced here so that the file and its folder go right
 * after it answers; the open and the read are the real ones.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import * as fsPromises from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { readKeptJson } from '../../src/project-files/kept-files.js';
import { useTempDirs } from '../helpers/cli.js';

/** Set by a test: run once, after the next `lstat` has answered and before its answer is used. */
let afterNextLook: (() => Promise<void>) | undefined;
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    lstat: async (...args: Parameters<typeof actual.lstat>) => {
      const info = await actual.lstat(...args);
      const then = afterNextLook;
      afterNextLook = undefined;
      await then?.();
      return info;
    },
  };
});

const tempDir = useTempDirs();
afterEach(() => {
  afterNextLook = undefined;
});

describe('a kept file removed with its folder between the look and the read', () => {
  const LIMITS = { maxBytes: 64 * 1024, maxValues: 100, maxDepth: 8 };
  it('is not found (look again), not refused', async () => {
    const dir = await tempDir({});
    const folder = path.join(dir, 'state.json.lock');
    await mkdir(folder);
    const holder = path.join(folder, 'holder-0000000000000001.json');
    await writeFile(holder, '{"pid": 1, "host": "h"}');
    afterNextLook = () => rm(folder, { recursive: true, force: true });
    expect(await readKeptJson(holder, LIMITS)).toEqual({ found: false });
  });

  it('a holder that is a link out of its folder, and stays: still refused', async () => {
    const dir = await tempDir({ 'outside.json': '{}' });
    const folder = path.join(dir, 'state.json.lock');
    await mkdir(folder);
    const holder = path.join(folder, 'holder-0000000000000002.json');
    await fsPromises.symlink(path.join(dir, 'outside.json'), holder);
    expect(await readKeptJson(holder, LIMITS)).toEqual({ found: true, ok: false, reason: 'refused', problem: 'is a symbolic link leading out of its folder' });
  });
});
