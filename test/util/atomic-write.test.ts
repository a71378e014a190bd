/**
 * The one writer of output files: when the system refuses a write, its error names the file the user
 * gave and says why in plain words, never the temporary file it writes first.
 */
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeWriteFailure, FileWriteError, writeFileAtomic } from '../../src/util/atomic-write.js';
import { useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

describe('writeFileAtomic', () => {
  it.each([
    ['its folder does not exist', 'r dir/r.html', 'ENOENT'],
    ['it is a folder', 'taken', 'EISDIR'],
  ])('a refused write (%s) names the user\'s path, never the temporary file', async (reason, name, code) => {
    const dir = await tempDir();
    await mkdir(path.join(dir, 'taken', 'inside'), { recursive: true });
    const file = path.join(dir, name);
    const error = await writeFileAtomic(file, 'report').then(() => undefined, (caught: unknown) => caught);
    expect(error).toBeInstanceOf(FileWriteError);
    expect((error as FileWriteError).message).toBe(`Cannot write ${file}: ${reason}.`);
    expect((error as FileWriteError).code).toBe(code);
    expect((error as FileWriteError).path).toBe(file);
    expect(describeWriteFailure(error)).toBe(reason);
    expect((await readdir(dir)).sort()).toEqual(['taken']);
  });
});
