/**
 * A committed `.voxform/` is the pull request's: `.voxform/state.json` (the state) and
 * `.voxform/local.json` (the embedded emulator's data) are read under the guards of every project
 * file — a regular file, not linked out of its folder, within its size cap — and what fails to
 * parse is never quoted. Each case must end in exit 1 with a sentence naming the file (a hang would
 * end in the helper's kill, -1; memory spent on /dev/zero ended in "Invalid string length").
 */
import { execFileSync } from 'node:child_process';
import { mkdir, symlink, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MAX_KEPT_FILE_BYTES } from '../../src/project-files/limits.js';
import { runCli, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const PLANTED = 'AWS_SECRET_planted_4c8e2a';
const MANIFEST = 'version: 1\nagents:\n  desk:\n    id: "-OKdqbqetEcM4ak369ym"\n    config: { first_message: Hello }\n';

/** A project whose `.voxform/NAME` is made by `make`, and beside it (outside) a file holding a planted secret. */
async function project(name: string, make: (file: string, outside: string) => Promise<void>): Promise<string> {
  const base = await tempDir({ 'outside/secret.txt': `${PLANTED}=1\n`, 'project/voxform.yaml': MANIFEST });
  const dir = path.join(base, 'project');
  await mkdir(path.join(dir, '.voxform'));
  await make(path.join(dir, '.voxform', name), path.join(base, 'outside'));
  return dir;
}

const link = (target: string) => (file: string) => symlink(target, file);

const CASES: Array<[string, (file: string, outside: string) => Promise<void>, RegExp]> = [
  ['a link to /dev/zero', link('/dev/zero'), /is a symbolic link leading out of its folder\. It was not read\./],
  ['a link to /dev/urandom', link('/dev/urandom'), /is a symbolic link leading out of its folder\./],
  ['a link to a file outside', (file, outside) => symlink(path.join(outside, 'secret.txt'), file), /is a symbolic link leading out of its folder\./],
  ['a link to a FIFO outside', async (file, outside) => (execFileSync('mkfifo', [path.join(outside, 'pipe')]), symlink(path.join(outside, 'pipe'), file)), /is a symbolic link leading out of its folder\./],
  ['a FIFO', async (file) => void execFileSync('mkfifo', [file]), /is a FIFO \(named pipe\), not a regular file\./],
  ['a link to standard input', link('/dev/stdin'), /is a symbolic link (to nothing voxform can read|leading out of its folder)\./],
  ['over its size cap', async (file) => (await writeFile(file, ''), truncate(file, MAX_KEPT_FILE_BYTES + 1)), /is 268,435,457 bytes; the limit is 256 MiB \(268,435,456 bytes\)\. It was not read\./],
  ['text that is not JSON', async (file) => writeFile(file, `${PLANTED}=1\n`), /is not valid JSON\./],
];

describe.each([
  ['state.json', 'The state file'],
  ['local.json', 'The emulator data file'],
])('.voxform/%s from the repository', (name, noun) => {
  it.each(CASES)('%s: exit 1, a clear error, nothing of it shown', async (_case, make, problem) => {
    const dir = await project(name, make);
    const result = await runCli(['plan', '--local'], { cwd: dir });
    expect(result.stderr).toContain(`error: ${noun} `);
    expect(result.stderr).toMatch(problem);
    expect(result.stderr).not.toContain('Invalid string length');
    // Not even the start of it (the JSON parser's own message quotes the first ten characters).
    expect(`${result.stdout}${result.stderr}`).not.toContain(PLANTED.slice(0, 8));
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.code).toBe(1);
  });
});
