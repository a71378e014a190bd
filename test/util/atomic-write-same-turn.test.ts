/**
 * A file replaced and its writer hearing so are one step: the rename is not left to the thread pool,
 * where it could finish while a signal is handled and the process exits before the writer's next
 * step (`voxform fmt` stopped by Ctrl-C would rewrite a file without listing it). Here the promise
 * API's rename never settles: a writer that used it would never finish.
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { writeFileAtomic, WriteSet, writeTempBeside } from '../../src/util/atomic-write.js';

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return { ...actual, rename: () => new Promise<never>(() => undefined) };
});

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('replacing a file', () => {
  it('writeFileAtomic renames in the turn its promise settles in', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'voxform-same-turn-'));
    const file = path.join(dir, 'voxform.yaml');
    await writeFile(file, 'old\n');
    await writeFileAtomic(file, 'new\n');
    expect(await readFile(file, 'utf8')).toBe('new\n');
    expect(await readdir(dir)).toEqual(['voxform.yaml']);
  });

  it('a WriteSet places a file in the same way', async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'voxform-same-turn-'));
    const file = path.join(dir, 'prompt.md');
    const set = new WriteSet();
    const temp = await writeTempBeside(file, 'text\n');
    set.place(temp, file, true);
    set.finish();
    expect(await readFile(file, 'utf8')).toBe('text\n');
  });
});
