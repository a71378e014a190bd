/**
 * The one writer of output files: when the system refuses a write, its error names the file the user
 * gave and says why in plain words, never the temporary file it writes first.
 */
import { execFileSync } from 'node:child_process';
import { lstatSync } from 'node:fs';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeWriteFailure, FileWriteError, findWriteObstacle, writeFileAtomic } from '../../src/util/atomic-write.js';
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

describe('writeFileAtomic: what stands at the target', () => {
  it('refuses a named pipe and a socket, left as they are, and writes nothing beside them', async () => {
    const dir = await tempDir();
    const pipe = path.join(dir, 'pipe');
    execFileSync('mkfifo', [pipe]);
    const socketPath = path.join(dir, 'sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    try {
      for (const [file, kind] of [[pipe, 'a named pipe'], [socketPath, 'a socket']] as const) {
        const error = await writeFileAtomic(file, 'report').then(() => undefined, (caught: unknown) => caught);
        expect(error).toBeInstanceOf(FileWriteError);
        expect((error as FileWriteError).message).toBe(`Cannot write ${file}: it is ${kind}, not a file.`);
        expect(await findWriteObstacle(file)).toBe(`it is ${kind}, not a file`);
      }
      expect(lstatSync(pipe).isFIFO()).toBe(true);
      expect(lstatSync(socketPath).isSocket()).toBe(true);
      expect((await readdir(dir)).sort()).toEqual(['pipe', 'sock']);
    } finally {
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('replaces a symbolic link, never writing through it', async () => {
    const dir = await tempDir();
    await writeFile(path.join(dir, 'kept.txt'), 'keep');
    await symlink(path.join(dir, 'kept.txt'), path.join(dir, 'link'));
    await writeFileAtomic(path.join(dir, 'link'), 'report');
    expect(lstatSync(path.join(dir, 'link')).isFile()).toBe(true);
    expect(await readFile(path.join(dir, 'kept.txt'), 'utf8')).toBe('keep');
  });
});
