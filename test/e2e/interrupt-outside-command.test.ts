/**
 * Ctrl-C and SIGTERM are said the same way wherever they fall, also outside a command's own trap
 * (src/cli/signal-trap.ts): while the command line is parsed and its command loaded, and once the
 * command ended while stdout still holds output nobody reads. Before, Node's own answer ended the
 * process there without a word (exit 143 for SIGTERM). The process signals
 * itself at that point (test/helpers/act-on-self.cjs), so the signal always falls there. An error
 * thrown from a timer outside a command's run, there or once the command line ended, is said as
 * every error is, where Node printed it raw, a secret in its message and its trace.
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const STOPPED = 'error[interrupted]: voxform stopped at your request.\n  hint: Run the command again to finish its work.\n';

const PLANTED_KEY = 'sk_planted_Zq81LateTimer';

/**
 * Runs the built CLI, which does `act` to itself at `at` (test/helpers/act-on-self.cjs: sends
 * itself the signal, or throws from a timer an error holding VOXFORM_API_KEY's value); resolves to
 * how it ended and what it printed.
 */
async function actedAt(at: 'command-load' | 'stdout-full' | 'after-main', act: NodeJS.Signals | 'throw', args: string[], stdout: 'pipe' | number = 'pipe') {
  const child = spawn(process.execPath, ['--require', path.join(repoRoot, 'test/helpers/act-on-self.cjs'), path.join(repoRoot, 'bin/voxform.cjs'), ...args], {
    cwd: await tempDir({}),
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', VOXFORM_API_KEY: PLANTED_KEY, VOXFORM_TEST_ACT: act, VOXFORM_TEST_AT: at },
    stdio: ['ignore', stdout, 'pipe'],
  });
  const printed = { stdout: '', stderr: '' };
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (printed.stdout += chunk));
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (printed.stderr += chunk));
  const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, by) => resolve({ code, signal: by })));
  return { ...ended, ...printed };
}

/** voxform's stdout: a named pipe held open and never read (a pipe of Node's own, a socket pair, would take all of schema's output at once). */
async function withUnreadStdout(run: (unread: number) => Promise<void>): Promise<void> {
  const fifo = path.join(await tempDir({}), 'stdout');
  expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
  const unread = openSync(fifo, 'r+');
  try {
    await run(unread);
  } finally {
    closeSync(unread);
  }
}

describe('a signal outside a command\'s run', () => {
  it('SIGTERM as the command loads: the interrupted error, exit 130', async () => {
    expect(await actedAt('command-load', 'SIGTERM', ['validate'])).toEqual({ code: 130, signal: null, stdout: '', stderr: STOPPED });
  });

  it('Ctrl-C as the command loads, with --format json: the envelope alone on stdout', async () => {
    const result = await actedAt('command-load', 'SIGINT', ['validate', '--format', 'json']);
    expect(result).toMatchObject({ code: 130, signal: null, stderr: '' });
    expect(JSON.parse(result.stdout)).toEqual({ error: { code: 'interrupted', message: 'voxform stopped at your request.', hint: 'Run the command again to finish its work.' } });
  });

  it('Ctrl-C once the command ended, its output waiting in a pipe nobody reads: the interrupted error on stderr, exit 130', async () => {
    await withUnreadStdout(async (unread) => {
      expect(await actedAt('stdout-full', 'SIGINT', ['schema'], unread)).toEqual({ code: 130, signal: null, stdout: '', stderr: STOPPED });
    });
  });
});

/** What Node would print raw: the message with the key, and the trace. */
const SAID = 'error[internal_error]: voxform hit an unexpected problem (this is a bug; please report it): a timer fired late with (sensitive)\n  hint: Run again with VOXFORM_DEBUG=1 to see the details.\n';

describe('an error thrown outside a command\'s run (a timer that fires late)', () => {
  it('once the command line ended: said as every error is, the key hidden and no trace, exit 1', async () => {
    const result = await actedAt('after-main', 'throw', ['--version']);
    expect(result).toEqual({ code: 1, signal: null, stdout: expect.stringMatching(/^0\.1\.0 /), stderr: SAID });
  });

  it('once the command ended, its output waiting in a pipe nobody reads: the same', async () => {
    await withUnreadStdout(async (unread) => {
      expect(await actedAt('stdout-full', 'throw', ['schema'], unread)).toEqual({ code: 1, signal: null, stdout: '', stderr: SAID });
    });
  });
});
