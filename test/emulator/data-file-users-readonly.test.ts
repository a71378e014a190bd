/**
 * A data file in a folder the file system refuses to write in (a read-only checkout, a folder of
 * another account): the emulator cannot name itself there, nor write the file, so it goes on
 * unnamed, as it ran before users were named. Running as root, chmod would not refuse: the
 * refusal is made by the mock.
 */
import { mkdir, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { openDataFile } from '../../src/emulator/data-file-users.js';

let refuseUsersFolderWith: string | undefined;
let refuseEntriesWith: string | undefined;

vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    mkdir: async (...args: Parameters<typeof actual.mkdir>) => {
      const [folder] = args;
      if (refuseUsersFolderWith !== undefined && String(folder).endsWith('.users.lock')) {
        throw Object.assign(new Error(`${refuseUsersFolderWith}: refused, mkdir '${String(folder)}'`), { code: refuseUsersFolderWith, syscall: 'mkdir', path: folder });
      }
      return actual.mkdir(...args);
    },
    open: async (...args: Parameters<typeof actual.open>) => {
      const [file] = args;
      if (refuseEntriesWith !== undefined && path.basename(path.dirname(String(file))).endsWith('.users.lock')) {
        throw Object.assign(new Error(`${refuseEntriesWith}: refused, open '${String(file)}'`), { code: refuseEntriesWith, syscall: 'open', path: file });
      }
      return actual.open(...args);
    },
  };
});

let dir: string;
let dataFile: string;

beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'voxform-users-readonly-'));
  dataFile = path.join(dir, 'local.json');
});
afterEach(async () => {
  refuseUsersFolderWith = undefined;
  refuseEntriesWith = undefined;
  await rm(dir, { recursive: true, force: true });
});

describe('a data file whose folder the file system refuses to write in', () => {
  it.each(['EROFS', 'EACCES', 'EPERM'])('is opened without a name when making the users folder fails with %s', async (code) => {
    refuseUsersFolderWith = code;
    const close = await openDataFile(dataFile, 'owns');
    expect(await readdir(dir)).toEqual([]);
    await close();
  });

  it('is refused when only the users folder, made by another account, refuses the entry', async () => {
    await mkdir(`${dataFile}.users.lock`);
    refuseEntriesWith = 'EACCES';
    await expect(openDataFile(dataFile, 'owns')).rejects.toMatchObject({ code: 'EACCES' });
  });

  it('is opened without a name when a read-only file system refuses the entry in a users folder that is there', async () => {
    await mkdir(`${dataFile}.users.lock`);
    refuseEntriesWith = 'EROFS';
    await (await openDataFile(dataFile, 'owns'))();
  });

  it('is still refused for any other failure', async () => {
    refuseUsersFolderWith = 'ENOSPC';
    await expect(openDataFile(dataFile, 'shares')).rejects.toMatchObject({ code: 'ENOSPC' });
  });
});
