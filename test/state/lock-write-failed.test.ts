/**
 * A state lock the file system refuses to write is not taken, and the hint fits the cause: a full
 * disk needs space, not a folder that "exists and is writable". The holder file's write is replaced
 * here so that it fails as the system would, while a test asks it to.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { acquireStateLock } from '../../src/state/lock.js';
import { useTempDirs } from '../helpers/cli.js';

/** Set by a test: the errno code the next writes of a lock's holder file fail with. */
let holderWritesFailWith: string | undefined;
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    writeFile: async (...args: Parameters<typeof actual.writeFile>) => {
      const [file] = args;
      if (holderWritesFailWith !== undefined && typeof file === 'string' && path.basename(file).startsWith('holder-')) {
        throw Object.assign(new Error(`${holderWritesFailWith}: refused, write '${file}'`), { code: holderWritesFailWith, syscall: 'write', path: file });
      }
      return actual.writeFile(...args);
    },
  };
});

const tempDir = useTempDirs();
afterEach(() => {
  holderWritesFailWith = undefined;
});

describe('a state lock the file system refuses to write', () => {
  it.each([
    ['ENOSPC', 'the disk is full', 'Free space on the disk of the state file'],
    ['EDQUOT', 'the disk quota is used up', 'Free space within your disk quota'],
    ['EACCES', 'voxform may not write there', 'Make the state file and its folder writable for this user'],
  ])('%s: state_lock_failed with the fix for that cause, nothing left behind', async (code, reason, remedy) => {
    const dir = await tempDir({});
    const stateFile = path.join(dir, 'state.json');
    holderWritesFailWith = code;
    const error = await acquireStateLock(stateFile, { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined }).then(() => undefined, (caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'state_lock_failed', message: `Could not take the state lock ${stateFile}.lock: ${reason}.`, hint: `${remedy}; --state (or VOXFORM_STATE) names the state file.` });
    expect(await readdir(dir)).toEqual([]);
  });
});
