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
import { repoRoot, useTempDirs } from '../helpers/cli.js';

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

describe('placeNoMoreFiles', () => {
  it('puts no file in place once the process is ending: the file stays as it was, and no temporary file is left', async () => {
    const dir = await tempDir({ 'plan.json': 'the plan a reviewer saw\n' });
    // In a process of its own: what it sets holds for the rest of that process.
    const script = [
      `const { placeNoMoreFiles, writeFileAtomic } = await import(${JSON.stringify(path.join(repoRoot, 'dist/util/atomic-write.js'))});`,
      `await writeFileAtomic(${JSON.stringify(path.join(dir, 'before.json'))}, 'written before the stop\\n');`,
      'placeNoMoreFiles();',
      `await writeFileAtomic(${JSON.stringify(path.join(dir, 'plan.json'))}, 'a plan nobody saw\\n').then(() => console.log('placed'), (error) => console.log(error.code));`,
    ].join('\n');
    expect(execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' })).toBe('ESTOPPED\n');
    expect(await readFile(path.join(dir, 'plan.json'), 'utf8')).toBe('the plan a reviewer saw\n');
    expect((await readdir(dir)).sort()).toEqual(['before.json', 'plan.json']);
  });
});
