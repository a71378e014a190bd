/**
 * `voxform schema | head -c 1`: the reader closes the pipe while voxform still writes. That is not the
 * command's failure, so no stack trace and no error: the rest of the output is dropped. Output that
 * cannot be written for another reason (a full disk) is: the user would otherwise take a truncated
 * file for the whole.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

describe('a reader that closes the pipe early', () => {
  it('ends the command quietly, with its own exit code', async () => {
    // Through a real pipe, as a shell makes one (a child's stdout here is a socket, which holds all
    // of it): the schema, about 125 KB, is more than a pipe holds, so voxform is still writing when
    // `head` leaves. With pipefail, the pipeline's status is voxform's.
    const voxform = JSON.stringify(path.join(repoRoot, 'bin/voxform.cjs'));
    const child = spawn('bash', ['-c', `set -o pipefail; ${JSON.stringify(process.execPath)} ${voxform} schema | head -c 1 > /dev/null`], {
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toBe('');
    expect(code).toBe(0);
  });
});

describe('standard output that cannot be written', () => {
  it.each([['schema'], ['validate', '--format', 'sarif', '-f', 'agents.example.yaml']])('a full disk fails the run: %s', async (...args) => {
    const voxform = JSON.stringify(path.join(repoRoot, 'bin/voxform.cjs'));
    const words = args.map((arg) => JSON.stringify(arg)).join(' ');
    const child = spawn('bash', ['-c', `${JSON.stringify(process.execPath)} ${voxform} ${words} > /dev/full`], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'pipe'],
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1' },
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(stderr).toContain('error[output_failed]: voxform could not write to standard output (ENOSPC): what it printed there is incomplete.\n');
    expect(stderr).not.toMatch(/\n\s+at /);
    expect(code).toBe(1);
  });
});
