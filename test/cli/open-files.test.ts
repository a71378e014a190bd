/**
 * Running out of open files (`ulimit -n`) is the limit's, never "an unexpected problem": while Node
 * loads the CLI itself, a command's modules (loaded lazily), or anywhere else, the error says what
 * happened and how to raise the limit, exit 1, without a trace unless VOXFORM_DEBUG=1.
 */
import { spawn } from 'node:child_process';
import { cp, realpath } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { tooManyOpenFilesError } from '../../src/cli/open-files.js';
import { repoRoot, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();
const bin = path.join(repoRoot, 'bin/voxform.cjs');
const failingLoad = path.join(repoRoot, 'test/helpers/emfile-on-load.mjs');

async function run(shellLine: string, options: { cwd: string; env?: Record<string, string> }): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('/bin/sh', ['-c', shellLine], { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  return { code, stdout, stderr };
}

const RAISE_HINT = '  hint: Raise the limit of open files (`ulimit -n`, e.g. `ulimit -n 4096`) and run the command again.\n';

describe('running out of open files while the CLI loads its modules', () => {
  it('names --parallelism too for a command that has it, in JSON when asked', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\nagents:\n  desk:\n    id: agent-1\n    name: Desk\n' });
    const line = `exec "${process.execPath}" --import "${failingLoad}" "${bin}" plan --format json`;
    const result = await run(line, { cwd: dir, env: { VOXFORM_TEST_EMFILE_ON: 'dist/cli-bundle/cli-commands-plan.cjs' } });
    const body = JSON.parse(result.stdout) as { error: { code: string; hint: string } };
    expect(body.error.code).toBe('too_many_open_files');
    expect(body.error.hint).toBe('Raise the limit of open files (`ulimit -n`, e.g. `ulimit -n 4096`) and run the command again, or lower --parallelism (each request in flight holds a connection, an open file).');
    expect(result.stderr).toBe('');
    expect(result.code).toBe(1);
  });

  it('a command\'s chunk, loaded lazily: the same error; VOXFORM_DEBUG=1 adds the trace', async () => {
    const failing = 'dist/cli-bundle/cli-commands-validate.cjs';
    const dir = await tempDir({});
    const line = `exec "${process.execPath}" --import "${failingLoad}" "${bin}" validate`;
    const env = { VOXFORM_TEST_EMFILE_ON: failing };
    const result = await run(line, { cwd: dir, env });
    expect(result.stderr).toBe(`error[too_many_open_files]: voxform could not open ${path.join(repoRoot, failing)}: this process has as many files open as the system lets it (EMFILE).\n${RAISE_HINT}`);
    expect(result.code).toBe(1);
    const debug = await run(line, { cwd: dir, env: { ...env, VOXFORM_DEBUG: '1' } });
    expect(debug.stderr).toContain(RAISE_HINT);
    expect(debug.stderr).toMatch(/\n {4}at /);
    expect(debug.code).toBe(1);
  });
});

describe('running out of open files while a command works', () => {
  it('validate --format sarif: the log names the error stderr names, not a bug', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'version: 1\nagents:\n  desk:\n    id: agent-1\n    name: Desk\n' });
    const line = `exec "${process.execPath}" --import "${failingLoad}" "${bin}" validate --format sarif`;
    const result = await run(line, { cwd: dir, env: { VOXFORM_TEST_EMFILE_ON: 'schemas/manifest.schema.json' } });
    const sarif = JSON.parse(result.stdout) as { runs: Array<{ invocations: Array<{ toolExecutionNotifications: Array<{ descriptor: { id: string }; message: { text: string } }> }> }> };
    const [notification] = sarif.runs[0]?.invocations[0]?.toolExecutionNotifications ?? [];
    expect(notification?.descriptor.id).toBe('too_many_open_files');
    expect(notification?.message.text).toContain('(EMFILE). Raise the limit of open files');
    expect(result.stderr).toMatch(/^error\[too_many_open_files\]: /);
    expect(result.code).toBe(1);
  });
});

describe('running out of open files while the parser is built', () => {
  it('reading the version for --version: the same error, not Node\'s trace', async () => {
    const dir = await tempDir({});
    const result = await run(`exec "${process.execPath}" --import "${failingLoad}" "${bin}" --version`, { cwd: dir, env: { VOXFORM_TEST_EMFILE_ON: `${path.sep}package.json` } });
    expect(result.stderr).toBe(`error[too_many_open_files]: voxform could not open ${path.join(repoRoot, 'package.json')}: this process has as many files open as the system lets it (EMFILE).\n${RAISE_HINT}`);
    expect(result.stdout).toBe('');
    expect(result.code).toBe(1);
  });
});

describe('a module Node reports as not found because the process ran out of open files', () => {
  const manifest = { 'voxform.yaml': 'version: 1\nagents:\n  desk:\n    id: agent-1\n    name: Desk\n' };

  it('is the same error, naming the module, not "an unexpected problem"', async () => {
    const dir = await tempDir(manifest);
    // A package the command imports (`plan --local` locks the emulator's data file) resolves, then
    // every descriptor is taken and Node's "Cannot find module" thrown.
    const line = `ulimit -n 256 && exec "${process.execPath}" --import "${failingLoad}" "${bin}" plan --local`;
    const result = await run(line, { cwd: dir, env: { VOXFORM_TEST_NOT_FOUND_OUT_OF_FILES: 'node_modules/proper-lockfile/index.js' } });
    const module = await realpath(path.join(repoRoot, 'node_modules/proper-lockfile/index.js'));
    expect(result.stderr).toBe(`error[too_many_open_files]: voxform could not open ${module}: this process has as many files open as the system lets it (EMFILE).\n${RAISE_HINT.replace('again.', 'again, or lower --parallelism (each request in flight holds a connection, an open file).')}`);
    expect(result.code).toBe(1);
  });

  it('a package\'s subpath Node could not resolve for want of descriptors (no file by that name): named by its package', async () => {
    const dir = await tempDir({});
    await cp(path.join(repoRoot, 'agents.example.yaml'), path.join(dir, 'agents.example.yaml'));
    await cp(path.join(repoRoot, 'example'), path.join(dir, 'example'), { recursive: true });
    // The plan counts the changed prompts' tokens: it imports the tokenizer's encoding by its subpath.
    const line = `ulimit -n 256 && exec "${process.execPath}" --import "${failingLoad}" "${bin}" plan -f agents.example.yaml --local`;
    const result = await run(line, { cwd: dir, env: { VOXFORM_TEST_NOT_FOUND_OUT_OF_FILES: 'gpt-tokenizer/encoding/o200k_base' } });
    const module = await realpath(path.join(repoRoot, 'node_modules/gpt-tokenizer'));
    expect(result.stderr).toContain(`error[too_many_open_files]: voxform could not open ${module}: this process has as many files open as the system lets it (EMFILE).\n`);
    expect(result.code).toBe(1);
  });

  it('a package a command\'s chunk requires by its name, which Node\'s `require` then says is not found: named by its package, not a broken install', async () => {
    const dir = await tempDir(manifest);
    // plan's chunks require the diff package as they load; every descriptor is gone by then.
    const line = `ulimit -n 256 && exec "${process.execPath}" --import "${failingLoad}" "${bin}" plan --local`;
    const result = await run(line, { cwd: dir, env: { VOXFORM_TEST_REQUIRE_OUT_OF_FILES: 'diff' } });
    const module = path.join(repoRoot, 'node_modules/diff');
    expect(result.stderr).toContain(`error[too_many_open_files]: voxform could not open ${module}: this process has as many files open as the system lets it (EMFILE).\n`);
    expect(result.stderr).not.toContain('install_incomplete');
    expect(result.code).toBe(1);
  });

  it('under a real `ulimit -n` that runs out while a command works: never "this is a bug"', async () => {
    const dir = await tempDir(manifest);
    const under = (limit: number, args: string) => run(`ulimit -n ${limit} && exec "${process.execPath}" "${bin}" ${args}`, { cwd: dir });
    // From the lowest limit this machine's Node runs voxform at: below it, Node fails before voxform's first line.
    let lowest = 16;
    while ((await under(lowest, '--version')).code !== 0) lowest++;
    // From there the limits where `plan --local` (its state, its emulator, its connections) runs out of open files.
    const outOfFiles: number[] = [];
    for (let limit = lowest; limit < lowest + 10; limit++) {
      const result = await under(limit, 'plan --local');
      expect(result.stderr, `ulimit -n ${limit}`).not.toMatch(/unexpected problem|\n {4}at /);
      if (/EMFILE|too_many_open_files/.test(result.stderr)) outOfFiles.push(limit);
    }
    expect(outOfFiles.length).toBeGreaterThan(0);
  }, 60_000);
});

describe('tooManyOpenFilesError', () => {
  const emfile = Object.assign(new Error('EMFILE: too many open files'), { code: 'EMFILE' });

  it('finds EMFILE on the error or among its causes', () => {
    expect(tooManyOpenFilesError(emfile, { parallelism: false })?.code).toBe('too_many_open_files');
    expect(tooManyOpenFilesError(new Error('wrapped', { cause: new Error('again', { cause: emfile }) }), { parallelism: false })?.code).toBe('too_many_open_files');
    expect(tooManyOpenFilesError(Object.assign(new Error('gone'), { code: 'ENOENT' }), { parallelism: true })).toBeUndefined();
    expect(tooManyOpenFilesError('EMFILE', { parallelism: true })).toBeUndefined();
  });

  it('takes a module not found for a bug while files still open, or when it is missing indeed', () => {
    const notFound = (named: string) => Object.assign(new Error(`Cannot find package '${named}' imported from ${path.join(repoRoot, 'dist/plan/field-lines.js')}`), { code: 'ERR_MODULE_NOT_FOUND' });
    expect(tooManyOpenFilesError(notFound(path.join(repoRoot, 'node_modules/diff/index.js')), { parallelism: false })).toBeUndefined();
    expect(tooManyOpenFilesError(notFound(path.join(repoRoot, 'node_modules/no-such-package/index.js')), { parallelism: false })).toBeUndefined();
  });

  it('says ENFILE is the system\'s limit, which `ulimit -n` does not raise', () => {
    const error = tooManyOpenFilesError(Object.assign(new Error('ENFILE'), { code: 'ENFILE', path: '/p/voxform.yaml' }), { parallelism: true });
    expect(error?.message).toBe('voxform could not open /p/voxform.yaml: the system has as many files open as it allows (ENFILE).');
    expect(error?.hint).toBe('Close programs that hold many files open, or raise the system-wide limit of open files; then run the command again.');
  });
});
