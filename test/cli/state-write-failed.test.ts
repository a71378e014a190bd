/**
 * A state write the file system refuses (a full disk, a read-only file system) is the user's to fix,
 * not a bug of voxform: `state rm` says which file, why, how to fix it, and that nothing was removed.
 * The writer of the state file is replaced here so that it fails as the system would, while a test
 * asks it to; the lock and every other file are written for real.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

/** Set by a test: the errno code the next writes of a `state.json` fail with. */
let stateWritesFailWith: string | undefined;
vi.mock('../../src/util/atomic-write.js', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/util/atomic-write.js')>();
  return {
    ...actual,
    writeFileAtomic: async (...args: Parameters<typeof actual.writeFileAtomic>) => {
      const [file] = args;
      if (stateWritesFailWith !== undefined && path.basename(file) === 'state.json') {
        throw new actual.FileWriteError(file, Object.assign(new Error(`${stateWritesFailWith}: refused`), { code: stateWritesFailWith, syscall: 'write' }));
      }
      return actual.writeFileAtomic(...args);
    },
  };
});

const tempDir = useTempDirs();
afterEach(() => {
  stateWritesFailWith = undefined;
});

const MANIFEST = ['version: 1', 'agents:', '  front-desk:', '    id: -OKdqbqetEcM4ak369ym', '    config: { first_message: Hello one }', ''].join('\n');

describe('a state write the file system refuses', () => {
  it.each([
    ['ENOSPC', 'the disk is full', 'Free space on the disk of the state file'],
    ['EROFS', 'the file system is read-only', 'Make the file system of the state file writable, or name a state file elsewhere'],
  ])('state rm (%s): the file, why, the fix for that cause, and nothing removed', async (code, reason, remedy) => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST });
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd })).code).toBe(0);
    const stateFile = path.join(cwd, '.voxform/state.json');
    const before = await readFile(stateFile, 'utf8');
    stateWritesFailWith = code;
    const removed = await runCliInProcess(['state', 'rm', '--force', 'default@local'], { cwd });
    expect(removed.stderr).toBe(
      `error[state_write_failed]: Cannot write the state file .voxform/state.json: ${reason}; nothing was removed.\n  hint: ${remedy}, then run the command again; --state (or VOXFORM_STATE) names the state file.\n`,
    );
    expect(removed.code).toBe(1);
    expect(removed.stdout).toBe('');
    expect(await readFile(stateFile, 'utf8')).toBe(before);
  });

  it('apply: its state write failure is the same error, after the summary', async () => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST });
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd })).code).toBe(0);
    await writeFile(path.join(cwd, 'voxform.yaml'), MANIFEST.replace('Hello one', 'Hello two'));
    stateWritesFailWith = 'ENOSPC';
    const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd });
    expect(applied.code).toBe(1);
    expect(applied.stderr).toContain(
      'error[state_write_failed]: Cannot write the state file .voxform/state.json: the disk is full; the state file stays as it was before this write.\n  hint: Free space on the disk of the state file, then run the command again; --state (or VOXFORM_STATE) names the state file.\n',
    );
    expect(applied.stderr).not.toContain('this is a bug');
  });

  it('apply with nothing to apply: the state error alone, no counts of changes and no "Stopping" line', async () => {
    const cwd = await tempDir({ 'voxform.yaml': MANIFEST });
    expect((await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd })).code).toBe(0);
    stateWritesFailWith = 'ENOSPC';
    const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd });
    expect(applied.code).toBe(1);
    expect(applied.stdout).toContain('Plan: 0 to create, 0 to update, 1 unchanged');
    expect(applied.stdout).not.toMatch(/Apply finished|Nothing to apply|State saved/);
    expect(applied.stderr).toBe(
      'error[state_write_failed]: Cannot write the state file .voxform/state.json: the disk is full; the state file stays as it was before this write.\n  hint: Free space on the disk of the state file, then run the command again; --state (or VOXFORM_STATE) names the state file.\n',
    );
  });
});
