import { spawn } from 'node:child_process';
import { cp, mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect } from 'vitest';
import { Readable } from 'node:stream';
import { streamPrinter, type CommandContext, type GracefulStop, type Output } from '../../src/cli/context.js';
import { operatorSecrets } from '../../src/cli/main.js';
import { runCommandLine } from '../../src/cli/run-command.js';
import { shellWord } from '../../src/util/shell-word.js';

export const repoRoot = fileURLToPath(new URL('../../', import.meta.url));

/**
 * The built CLI as a child process in `cwd`, with `PATH`, no colour and `env`; its output collected as it comes, for a
 * test that acts while it runs. `preload`: a module Node imports first (a helper that stalls some I/O); `stderrShows`
 * resolves once stderr holds a text.
 */
export function spawnCli(cwd: string, env: Record<string, string | undefined>, args: string[], options: { preload?: string } = {}) {
  const preload = options.preload === undefined ? [] : ['--import', options.preload];
  const child = spawn(process.execPath, [...preload, path.join(repoRoot, 'bin/voxform.cjs'), ...args], {
    cwd,
    env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const output = { stdout: '', stderr: '' };
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output.stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  const stderrShows = (text: string) =>
    new Promise<void>((resolve) => {
      const check = () => {
        if (!output.stderr.includes(text)) return;
        child.stderr.off('data', check);
        resolve();
      };
      child.stderr.on('data', check);
      check();
    });
  return { child, output, exited, stderrShows };
}
const binPath = path.join(repoRoot, 'bin/voxform.cjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * How `unprivileged` runs the CLI when the tests run as root, whom file permissions do not stop:
 * as root still, but without the capabilities that let root pass them (setpriv, from util-linux),
 * so a folder made read-only refuses it as it refuses any user. It stays the owner of the test's
 * files and can reach the clone wherever it is — also in a folder no other user may enter (a
 * home folder, `mktemp -d`), where the CLI run as another user could not load at all.
 */
const WITHOUT_PERMISSION_OVERRIDE = ['setpriv', '--bounding-set=-dac_override,-dac_read_search,-fowner', '--'];

/**
 * A warning of Node's (a deprecation, a listener leak): as Node prints it, `(node:4242) [DEP0040]
 * DeprecationWarning: …`, or as the CLI prints a warning of a kind (`warning: DeprecationWarning: …`,
 * src/cli/main.ts). A library's plain warning (`warning: SECURITY WARNING: …`) is the CLI's to print.
 */
const NODE_WARNING = /^(?:\(node:\d+\) (?:\[\w+\] )?\w*Warning|warning: \w+Warning): .*$/m;

/**
 * Runs the real, built CLI (`bin/voxform.cjs` over `dist/`) as a child process. `npm test` builds
 * first (the `pretest` script). The environment is minimal and explicit: no inherited API key. A run
that prints a warning of Node's own fails the test: the user would see it.
 * `unprivileged`: file permissions apply to the CLI even when the tests run as root (see
 * WITHOUT_PERMISSION_OVERRIDE).
 */
export function runCli(
  args: string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string; timeoutMs?: number; unprivileged?: boolean } = {},
): Promise<CliResult> {
  const command = [...(options.unprivileged && process.getuid?.() === 0 ? WITHOUT_PERMISSION_OVERRIDE : []), process.execPath, binPath, ...args];
  return runCommand(command, `voxform ${args[0] ?? ''}`, options);
}

/**
 * Runs the CLI's command line inside the test's own process, as `main` runs it in the real one: the
 * same parser, commands, context, secrets known from the start, redacted and escaped output, and
 * cleanups at the end; only the process around it is missing. A CLI process costs a third of a
 * second of CPU to start, which a suite of a thousand runs cannot afford where the process itself
 * is not under test. What a process alone shows (exit on a signal, Node's own warnings, file
 * permissions, the built `dist/`) is tested with `runCli`; so is the command each end-to-end test
 * is about, while the steps that only set its scene or read its result back may run here.
 */
export async function runCliInProcess(
  args: string[],
  options: {
    cwd?: string;
    env?: Record<string, string | undefined>;
    input?: string;
    /** Ctrl-C, for a command that stops gracefully: once it resolves. */
    interrupted?: Promise<void>;
    /** Where each graceful stop the command asks for is kept: what a second Ctrl-C would say. */
    stops?: Array<GracefulStop | undefined>;
    /** Output as a terminal gets it, with colour (`true`) or with `--no-color` (`'no-color'`). */
    terminal?: true | 'no-color';
    /** The terminal's width (with `terminal`); 80 unless given. */
    columns?: number;
  } = {},
): Promise<CliResult> {
  const env = cliEnvironment(options.env);
  const secrets = operatorSecrets(env);
  const captured = { stdout: '', stderr: '' };
  const output = (key: keyof typeof captured): Output => {
    const printed = streamPrinter(secrets, { isTTY: options.terminal !== undefined }, env);
    return { write: (text) => void (captured[key] += printed(text)), isTTY: options.terminal !== undefined, columns: options.terminal === undefined ? undefined : (options.columns ?? 80) };
  };
  const cleanups: Array<() => Promise<void> | void> = [];
  const ctx: CommandContext = {
    cwd: options.cwd ?? repoRoot,
    env,
    stdout: output('stdout'),
    stderr: output('stderr'),
    stdin: Readable.from([options.input ?? '']),
    color: options.terminal === true,
    secrets,
    confirm: undefined,
    onExit: (cleanup) => void cleanups.push(cleanup),
    interrupted: (stop) => {
      options.stops?.push(stop);
      return (options.interrupted ?? new Promise<never>(() => undefined)).then(() => 'Ctrl-C again' as const);
    },
    writeSent: () => () => undefined,
  };
  try {
    const code = await runCommandLine(args, ctx);
    return { code, ...captured };
  } finally {
    while (cleanups.length > 0) await cleanups.pop()?.();
  }
}

/** The environment a CLI run gets: minimal and explicit (no inherited API key), plus the test's own. */
function cliEnvironment(extra: Record<string, string | undefined> = {}): Record<string, string> {
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', NO_COLOR: '1', HOME: process.env.HOME ?? '/tmp' };
  for (const [key, value] of Object.entries(extra)) if (value !== undefined) env[key] = value;
  return env;
}

/**
 * Runs a command line voxform printed for the user to paste, as a POSIX shell reads it, with
 * `voxform` standing for the built CLI (as runCli runs it).
 */
export function runPrinted(commandLine: string, options: { cwd?: string; env?: Record<string, string | undefined> } = {}): Promise<CliResult> {
  const script = `voxform() { ${shellWord(process.execPath)} ${shellWord(binPath)} "$@"; }\n${commandLine}\n`;
  return runCommand(['sh', '-c', script], commandLine, options);
}

function runCommand(
  command: string[],
  label: string,
  options: { cwd?: string; env?: Record<string, string | undefined>; input?: string; timeoutMs?: number },
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command[0] as string, command.slice(1), { cwd: options.cwd ?? repoRoot, env: cliEnvironment(options.env), stdio: 'pipe' });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const warning = NODE_WARNING.exec(stderr);
      if (warning) reject(new Error(`${label} printed a warning of Node's own, which a user would see too: ${warning[0]}`));
      else resolve({ code: code ?? -1, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** A temporary folder filled from an object literal: `{ 'voxform.yaml': '…', 'prompts/a.md': '…' }`. */
export async function makeTree(files: Record<string, string | Uint8Array>): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'voxform-test-'));
  for (const [name, content] of Object.entries(files)) {
    const file = path.join(dir, name);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(file, content);
  }
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Temporary folders for the tests of one file, each removed after its test. Call it once at the
 * top level of a test file; the function it returns makes a folder from an object literal.
 */
export function useTempDirs(): (files?: Record<string, string | Uint8Array>) => Promise<string> {
  const cleanups: Array<() => Promise<void>> = [];
  afterEach(async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
  });
  return async (files = {}) => {
    const tree = await makeTree(files);
    cleanups.push(tree.cleanup);
    return tree.dir;
  };
}

/** `dir` with a copy of the repository's example project: agents.example.yaml (as `manifest`) and example/. */
export async function copyExampleProject(dir: string, manifest = 'agents.example.yaml'): Promise<string> {
  await cp(path.join(repoRoot, 'agents.example.yaml'), path.join(dir, manifest));
  await cp(path.join(repoRoot, 'example'), path.join(dir, 'example'), { recursive: true });
  return dir;
}

/** `result`, which must have exited with `code` (else the test fails, showing its output). */
export function expectCode(result: CliResult, code: number): CliResult {
  expect(result.code, `${result.stdout}\n${result.stderr}`).toBe(code);
  return result;
}
