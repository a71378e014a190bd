/**
 * The operator's time-out: `--timeout` / `VOXFORM_TIMEOUT` reach the client of every command that
 * talks to the service, a service that never answers ends in one clear error naming the flag, and
 * a TLS failure is reported as such — never as a bug in voxform.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_TIMEOUT_MS, parseTimeout, resolveTimeoutMs } from '../../src/cli/timeout.js';
import { formatTimeout } from '../../src/api/errors.js';
import { repoRoot, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { startEmulator } from '../../src/emulator/index.js';
import { fakeServer } from './helpers.js';

const KEY = 'vx-test-key-0123456789abcdef';
const tempDir = useTempDirs();
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** A service that takes every request and never answers. */
async function silentService(): Promise<string> {
  const fake = await fakeServer(() => undefined);
  cleanups.push(() => fake.close());
  return fake.url;
}

describe('--timeout and VOXFORM_TIMEOUT', () => {
  it.each([
    ['45', 45_000],
    ['2.5s', 2_500],
    ['500ms', 500],
    ['2m', 120_000],
    ['1h', 3_600_000],
    [' 30s ', 30_000],
  ])('reads %j as %i ms', (text, ms) => {
    expect(parseTimeout(text, '--timeout')).toBe(ms);
  });

  it.each(['0', '0s', '-5', 'soon', '5 min', '25h', ''])('refuses %j with a sentence saying how to write it', (text) => {
    expect(() => parseTimeout(text, '--timeout')).toThrow(expect.objectContaining({
      message: `The value given to --timeout is not a time from 1 ms to 24 h.`,
      hint: 'Write it as 30s, 2m or 500ms (a bare number is seconds).',
    }));
  });

  it('the flag beats the environment, which beats the default', () => {
    expect(resolveTimeoutMs('10s', { VOXFORM_TIMEOUT: '1m' })).toBe(10_000);
    expect(resolveTimeoutMs(undefined, { VOXFORM_TIMEOUT: '1m' })).toBe(60_000);
    expect(resolveTimeoutMs(undefined, { VOXFORM_TIMEOUT: '  ' })).toBe(DEFAULT_TIMEOUT_MS);
    expect(() => resolveTimeoutMs(undefined, { VOXFORM_TIMEOUT: 'never' })).toThrow(/^The value of VOXFORM_TIMEOUT is not a time/);
  });

  it('a service that never answers: one clear error naming the flag, after --timeout', async () => {
    const url = await silentService();
    const result = await runCliInProcess(['logs', '--base-url', url, '--timeout', '1s'], { env: { VOXFORM_API_KEY: KEY } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error\[api_timeout\]: GET \/call-logs failed: the service at http:\/\/127\.0\.0\.1:\d+ did not answer within 1 s\.\n {2}hint: .*give it longer with --timeout \(or VOXFORM_TIMEOUT\), e\.g\. --timeout 2s\.\n$/);
  });

  it.each([
    ['1ms', '1 ms'],
    ['0.5ms', '1 ms'],
    ['250ms', '250 ms'],
    ['200ms', '0.2 s'],
    ['1.5s', '1.5 s'],
    ['2m', '120 s'],
  ])('a time-out of %j is named %j in messages, never 0.0 s', (text, named) => {
    expect(formatTimeout(parseTimeout(text, '--timeout'))).toBe(named);
  });

  it('a time-out of a few ms is named in ms when the service does not answer', async () => {
    const url = await silentService();
    const result = await runCliInProcess(['logs', '--base-url', url, '--timeout', '1ms'], { env: { VOXFORM_API_KEY: KEY } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/did not answer within 1 ms\./);
  });

  it('VOXFORM_TIMEOUT sets it when the flag is absent (plan, through the project connection)', async () => {
    const url = await silentService();
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\nagents:\n  desk:\n    id: agent-1\n    name: Desk\n' });
    const result = await runCliInProcess(['plan', '--base-url', url], { cwd: dir, env: { VOXFORM_API_KEY: KEY, VOXFORM_TIMEOUT: '500ms' } });
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('did not answer within 0.5 s.');
  });

  it('an unusable --timeout stops before anything is sent', async () => {
    const result = await runCliInProcess(['logs', '--base-url', 'http://127.0.0.1:9', '--timeout', 'forever'], { env: { VOXFORM_API_KEY: KEY } });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error[invalid_option]: The value given to --timeout is not a time from 1 ms to 24 h.\n  hint: Write it as 30s, 2m or 500ms (a bare number is seconds).\n');
  });
});

describe('TLS failures on the command line', () => {
  it('are a network error naming the cause, not "an unexpected problem"', async () => {
    const fake = await fakeServer((_req, res) => void res.end('[]'));
    cleanups.push(() => fake.close());
    const result = await runCliInProcess(['logs', '--base-url', fake.url.replace('http://', 'https://')], { env: { VOXFORM_API_KEY: KEY } });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error\[api_tls\]: GET \/call-logs failed: the secure \(TLS\) connection to https:\/\/127\.0\.0\.1:\d+ failed: the server did not answer in TLS/);
    expect(result.stderr).not.toContain('unexpected problem');
  });
});

describe('more connections than the process may open', () => {
  it('is a clear error naming --parallelism and `ulimit -n`, not "an unexpected problem"', async () => {
    const agents = Array.from({ length: 300 }, (_, i) => ({ id: `-OKmany${String(i).padStart(13, '0')}`, name: `Agent ${i}`, created_at: 1_700_000_000, config: { prompt: 'Old.' } }));
    const emulator = await startEmulator({ port: 0, quiet: true, seed: { keys: [{ type: 'private', key: KEY }], agents } });
    cleanups.push(() => emulator.close());
    const manifest = ['version: 1', 'agents:', ...agents.map((agent, i) => `  agent-${i}: { id: "${agent.id}", config: { prompt: New. } }`)].join('\n');
    const dir = await tempDir({ 'voxform.yaml': `${manifest}\n` });
    // Few open files and many requests at once: sockets run out, whatever the machine. Enough for
    // loading the modules (the loader opens a level of them at once; at 64 it could run out there first).
    const child = spawn('/bin/sh', ['-c', `ulimit -n 128 && exec "${process.execPath}" "${path.join(repoRoot, 'bin/voxform.cjs')}" plan --parallelism 200`], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', VOXFORM_API_KEY: KEY, VOXFORM_BASE_URL: emulator.url },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(code).toBe(1);
    expect(stderr).toMatch(/^error\[api_too_many_open_files\]: GET \/agents\/-OKmany\d+ failed: no connection to http:\/\/127\.0\.0\.1:\d+ could be opened: this process has as many files open as the system lets it \(EMFILE\)\.\n/);
    expect(stderr).toContain('hint: Raise the limit of open files (`ulimit -n`, e.g. `ulimit -n 4096`) and run the command again, or lower --parallelism (each request in flight holds a connection, an open file).');
    expect(stderr).not.toContain('unexpected problem');
  });
});

describe('a signal while a request is in flight', () => {
  it.each(['SIGTERM', 'SIGINT'] as const)('%s stops it at once: exit 130, without waiting for the service', async (signal) => {
    let arrived!: () => void;
    const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
    const fake = await fakeServer(() => arrived()); // takes the request, never answers
    cleanups.push(() => fake.close());
    const child = spawn(process.execPath, [path.join(repoRoot, 'bin/voxform.cjs'), 'logs', '--base-url', fake.url, '--timeout', '1h'], {
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', VOXFORM_API_KEY: KEY },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
    await requestArrived;
    child.kill(signal);
    expect(await exited).toBe(130);
    expect(stderr).toContain('error[interrupted]: voxform stopped at your request.\n  hint: Run the command again to finish its work.\n');
    expect(stderr).not.toContain('unexpected problem');
  });
});
