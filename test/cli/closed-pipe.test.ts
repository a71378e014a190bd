/**
 * `voxform schema | head -c 1`: the reader closes the pipe while voxform still writes. That is not the
 * command's failure, so no stack trace and no error: the rest of the output is dropped.
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
    const voxform = JSON.stringify(path.join(repoRoot, 'bin/voxform.js'));
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
