/**
 * The only module that touches the process: parses arguments with the command tree (program.ts),
 * builds the command context, runs one command (loaded lazily, so `voxform --version` stays fast)
 * and maps its outcome to an exit code.
 */
import { CommanderError } from 'commander';
import { registerCiTokens } from '../ci/runner-env.js';
import { SecretRegistry } from '../secrets/redact.js';
import { printableKeepingLines } from '../util/printable.js';
import { isVoxformError, VoxformError } from '../errors.js';
import { EXIT_INTERRUPTED, streamPrinter, type CommandContext, type ManifestAgentsById, type Output } from './context.js';
import { trapSignals, WritesInFlight } from './signal-trap.js';
import { clearProgressLines } from './progress.js';
import { askYesNo } from './confirm.js';
import { errorJson, errorText } from './error-text.js';
import { formatAskedFor } from './format-asked-for.js';
import { tooManyOpenFilesError } from './open-files.js';
import { buildProgram } from './program.js';
import { colorOn } from '../util/terminal-colors.js';
import { errorMessage, errorStack } from '../secrets/error-message.js';
import type { CiRunCommandOptions } from './commands/ci.js';

/** How long cleanups may take after an error thrown outside the command's awaited chain. */
const STRAY_ERROR_CLEANUP_MS = 2000;

/** A command; commander's choices, defaults and mandatory options guarantee its options' shape. */
type CommandModule = { run(options: never, ctx: CommandContext): Promise<number> };
type ParsedOptions = Record<string, unknown>;

const loaders: Record<string, () => Promise<CommandModule>> = {
  validate: () => import('./commands/validate.js'),
  plan: () => import('./commands/plan.js'),
  'plan-show': () => import('./commands/plan-show.js'),
  apply: () => import('./commands/apply.js'),
  export: () => import('./commands/export.js'),
  rollback: () => import('./commands/rollback.js'),
  history: () => import('./commands/history.js'),
  drift: () => import('./commands/drift.js'),
  promote: () => import('./commands/promote.js'),
  diff: () => import('./commands/diff.js'),
  init: () => import('./commands/init.js'),
  templates: () => import('./commands/templates.js'),
  fmt: () => import('./commands/fmt.js'),
  emulator: () => import('./commands/emulator.js'),
  'emulator-traffic': () => import('./commands/emulator-traffic.js'),
  logs: () => import('./commands/logs.js'),
  report: () => import('./commands/report.js'),
  'keys-create': () => import('./commands/keys.js'),
  chat: () => import('./commands/chat.js'),
  schema: () => import('./commands/schema.js'),
  status: () => import('./commands/status.js'),
  test: () => import('./commands/test.js'),
  'test-capture': async () => ({ run: (await import('./commands/test.js')).capture }),
  'state-list': async () => ({ run: (await import('./commands/state.js')).list }),
  'state-show': async () => ({ run: (await import('./commands/state.js')).show }),
  'state-rm': async () => ({ run: (await import('./commands/state.js')).remove }),
  'state-unlock': async () => ({ run: (await import('./commands/state.js')).unlock }),
  'state-migrate': async () => ({ run: (await import('./commands/state.js')).migrate }),
  'state-upgrade': async () => ({ run: (await import('./commands/state.js')).upgrade }),
  'webhook-send': () => import('./commands/webhook-send.js'),
  'webhook-serve': () => import('./commands/webhook-serve.js'),
  get: () => import('./commands/get.js'),
  completion: () => import('./commands/completion.js'),
  // `ci run` runs another command line inside its own: it is handed the function that does.
  'ci-run': async () => {
    const ci = await import('./commands/ci.js');
    return { run: (options: CiRunCommandOptions, ctx: CommandContext) => ci.run(options, ctx, runCommandLine) };
  },
  'policy-list': () => import('./commands/policy.js'),
};

/**
 * The commands whose first step loads the manifests for their --env (load-manifests.ts), which
 * refuses an environment the manifests do not define, so they need no check before they run;
 * validate and ci run must also say it inside their own account of a failed run (a SARIF log; the
 * review's report). Every other command is checked before it runs, so a new one is by default; its
 * first load resolves from the project read for the check, so the YAML is parsed once.
 * test/cli/environment-flag.test.ts holds every command that takes --env to the refusal.
 */
const LOADS_MANIFESTS_FIRST = new Set(['validate', 'ci-run', 'plan', 'apply', 'diff', 'test', 'promote']);

/** Loads the named command and runs it; given an --env it cannot use, it is stopped first, before it does anything. */
async function runCommand(name: string, options: ParsedOptions, ctx: CommandContext): Promise<number> {
  const loader = loaders[name];
  if (!loader) throw new Error(`no command module for ${name}`);
  const manifestAgents: ManifestAgentsById = new Map();
  const withAgents = { ...ctx, manifestAgents };
  const checked = options.env !== undefined && !LOADS_MANIFESTS_FIRST.has(name) ? await (await import('./load-manifests.js')).refuseUnknownEnvironment(options as { file?: string[]; env: string | string[] }, withAgents) : withAgents;
  const mod = await loader();
  try {
    return await (mod.run as (options: ParsedOptions, ctx: CommandContext) => Promise<number>)(options, checked);
  } catch (error) {
    // The embedded emulator is an account of its own: an agent it lacks is said so, whichever command met it.
    const hinted = options.local === true ? (await import('./connection.js')).withLocalAgentHint(error) : error;
    // An agent of the manifests the service does not have: named, with where the manifests define it.
    throw manifestAgents.size > 0 ? (await import('./manifest-agent-missing.js')).namingManifestAgent(hinted, manifestAgents) : hinted;
  }
}

/**
 * Runs one command line inside a running command (`voxform ci run`), with that command's context:
 * its output, secrets, cleanups and signals. An error is reported as the CLI reports it; the exit
 * code is returned, never thrown. `errorsAsText`: an error is reported as text whatever `--format`
 * the command line asks for (there, for a report written to a file): a job log and a review quote
 * it for people, each diagnostic at its `file:line:col` with its frame, never as a JSON envelope.
 */
export async function runCommandLine(argv: string[], ctx: CommandContext, { errorsAsText = false } = {}): Promise<number> {
  let exitCode = 0;
  let format: unknown;
  let parallelism = false;
  const stdout = trackingWrites(ctx.stdout);
  const commandCtx: CommandContext = { ...ctx, stdout };
  const program = buildProgram(async (name, options) => {
    format = options.format;
    parallelism = 'parallelism' in options;
    exitCode = await runCommand(name, options, commandCtx);
  }, commandCtx, ctx.cwd);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    clearProgressLines();
    const json = !errorsAsText && (format ?? formatAskedFor(argv)) === 'json';
    exitCode = reportError(error, { stdout, stderr: ctx.stderr, debug: ctx.env.VOXFORM_DEBUG === '1', json, parallelism, stdoutWritten: stdout.written });
  }
  return exitCode;
}

/**
 * Output streams that failed: written to no more (one entry per stream: main may run more than once).
 * `lost`: why, when the reason was not a reader going away (a full disk): then the output the user
 * asked for is incomplete, and the run fails.
 */
const failedStreams = new WeakMap<NodeJS.WriteStream, StreamStatus>();

interface StreamStatus {
  failed: boolean;
  lost?: string;
}

/**
 * `output`, and whether any text was written through it: whether stdout holds output yet, which
 * decides where an error goes (`printsAsJson`), in a process (main) and in a command line run inside
 * another (runCommandLine) alike.
 */
function trackingWrites(output: Output): Output & { written: () => boolean } {
  let written = false;
  return {
    ...output,
    write: (text) => {
      if (text !== '') written = true;
      output.write(text);
    },
    written: () => written,
  };
}

/** `silenced`: once it says so, nothing more is written (a run stopped by a signal has said its last line). */
function makeOutput(stream: NodeJS.WriteStream, secrets: SecretRegistry, silenced: () => boolean): Output {
  // A closed pipe (`voxform schema | head -1`) does not cut an apply short: the rest of that output
  // is dropped. Unwatched, the stream's error would end the process with Node's trace.
  const status = failedStreams.get(stream) ?? watchForFailure(stream);
  const printed = streamPrinter(secrets, stream, process.env);
  return {
    write: (text: string) => {
      if (!status.failed && !stream.destroyed && !silenced()) stream.write(printed(text));
    },
    drained: async () => {
      if (status.failed || stream.destroyed || !stream.writableNeedDrain) return;
      // A stream that fails or closes instead drains no more: the rest of its output is dropped anyway.
      await new Promise<void>((resolve) => {
        const settle = () => {
          for (const event of ['drain', 'error', 'close']) stream.off(event, settle);
          resolve();
        };
        for (const event of ['drain', 'error', 'close']) stream.on(event, settle);
      });
    },
    isTTY: Boolean(stream.isTTY),
    columns: stream.isTTY ? stream.columns : undefined,
  };
}

function watchForFailure(stream: NodeJS.WriteStream): StreamStatus {
  const status: StreamStatus = { failed: false };
  stream.on('error', (error: NodeJS.ErrnoException) => {
    status.failed = true;
    // EPIPE: the reader went away (`voxform schema | head -1`), which is no failure of the command.
    if (error.code !== 'EPIPE') status.lost ??= error.code ?? error.message;
  });
  failedStreams.set(stream, status);
  return status;
}

/**
 * The error for standard output that could not be written (a full disk behind `> plan.md`), once
 * the errors of the writes made have arrived; undefined when it took all it was given.
 */
async function lostOutput(): Promise<VoxformError | undefined> {
  await new Promise((resolve) => setImmediate(resolve));
  const lost = failedStreams.get(process.stdout)?.lost;
  if (lost === undefined) return undefined;
  return new VoxformError('output_failed', `voxform could not write to standard output (${printableKeepingLines(lost)}): what it printed there is incomplete.`, {
    hint: 'Make room where the output goes (a full disk), or send it somewhere that takes it; then run the command again.',
  });
}

function confirmOnTerminal(question: string, options: { signal?: AbortSignal | undefined } = {}): Promise<boolean> {
  return askYesNo(question, { input: process.stdin, output: process.stderr, terminal: true, signal: options.signal });
}

/**
 * The secrets a run knows before any command starts: the operator's API key, from the first line
 * printed, before any command connects; and the CI's tokens (`voxform ci run` sends them; no
 * command may print them).
 */
export function operatorSecrets(env: Readonly<Record<string, string | undefined>>): SecretRegistry {
  const secrets = new SecretRegistry();
  secrets.add(env.VOXFORM_API_KEY?.trim());
  registerCiTokens(env, secrets);
  return secrets;
}

/**
 * What would otherwise reach Node's own handlers, reported as every error is (`report`, which gives
 * the exit code): an error outside the awaited chain (a timer), which Node prints unredacted; and a
 * command left waiting on a promise nothing is left to settle (a pack module's top-level await on
 * nothing), where Node ends the process with exit 13 and not a word — a code a CI step reads as some
 * failure, with no SARIF log to upload. Cleanups get a little time, then the process exits. Returns
 * the release of the handlers.
 */
function trapStrayErrors(report: (error: unknown) => number, runCleanups: () => Promise<void>): () => void {
  let exitCode = 1;
  const onStrayError = (error: unknown) => {
    exitCode = report(error);
    // Cleanups may wait on the very thing that broke (a request never answered): not for long.
    const giveUp = new Promise<void>((resolve) => setTimeout(resolve, STRAY_ERROR_CLEANUP_MS).unref());
    void Promise.race([runCleanups(), giveUp]).finally(() => process.exit(exitCode));
  };
  const onStalled = () => {
    onStrayError(new VoxformError('command_stalled', 'voxform stopped: the command was left waiting for something that can never finish (nothing was left to run).', {
      hint: 'If VOXFORM_POLICY_PACKS names a pack, check that its module and its checks settle (a top-level await or a promise that nothing resolves); otherwise this is a bug of voxform: please report it, with the command you ran.',
    }));
    // Cleanups that wait on nothing either would let the loop end again: the exit code is said already.
    process.exitCode = exitCode;
  };
  process.on('uncaughtException', onStrayError);
  process.on('unhandledRejection', onStrayError);
  process.once('beforeExit', onStalled);
  return () => {
    process.off('uncaughtException', onStrayError);
    process.off('unhandledRejection', onStrayError);
    process.off('beforeExit', onStalled);
  };
}

/** Runs the CLI with `argv` (without node and the script) and resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const secrets = operatorSecrets(process.env);
  const cleanups: Array<() => Promise<void> | void> = [];
  let exitCode = 0;
  let format: unknown;
  // Whether the command has --parallelism: the hint for running out of open files names it then.
  let parallelism = false;
  const debug = process.env.VOXFORM_DEBUG === '1';
  let stoppedBySignal = false;
  const stderr = makeOutput(process.stderr, secrets, () => stoppedBySignal);
  const stdout = trackingWrites(makeOutput(process.stdout, secrets, () => stoppedBySignal));
  const errorOutput = (): ErrorOutput => ({ stdout, stderr, debug, json: (format ?? formatAskedFor(argv)) === 'json', parallelism, stdoutWritten: stdout.written });
  // After a stop, what fails is the fallout of the stop itself: it is not reported, and the exit is 130.
  const report = (error: unknown) => (stoppedBySignal ? EXIT_INTERRUPTED : reportError(error, errorOutput()));
  const reportStop = (stop: VoxformError, unknownOutcomes: readonly VoxformError[]) => {
    const out = errorOutput();
    // Asked before the envelope is printed: once printed, stdout holds output.
    const inJson = printsAsJson(out);
    reportError(stop, out);
    // In JSON they are in the envelope's details; in text each follows as its own error.
    if (!inJson) for (const unknown of unknownOutcomes) stderr.write(errorText(unknown));
  };

  const runCleanups = async () => {
    while (cleanups.length > 0) await cleanups.pop()?.();
  };
  const writes = new WritesInFlight();
  const signals = trapSignals({
    signals: process,
    now: () => performance.now(),
    exit: (code) => process.exit(code),
    runCleanups,
    reportStop,
    announce: (line) => stderr.write(line),
    writes,
    onStop: () => (stoppedBySignal = true),
  });
  const releaseStrayErrors = trapStrayErrors((error) => (exitCode = report(error)), runCleanups);

  const program = buildProgram(async (name, options) => {
    format = options.format;
    parallelism = 'parallelism' in options;
    const color = colorOn(stdout, process.env, options.color !== false);
    const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
    const ctx: CommandContext = {
      cwd: process.cwd(),
      env: process.env,
      stdout,
      stderr,
      stdin: process.stdin,
      color,
      secrets,
      confirm: interactive ? confirmOnTerminal : undefined,
      onExit: (cleanup) => void cleanups.push(cleanup),
      interrupted: signals.interrupted,
      stopLeaves: signals.stopLeaves,
      writeSent: (ifInterrupted) => writes.add(ifInterrupted),
    };
    exitCode = await runCommand(name, options, ctx);
  }, { stdout, stderr });

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    clearProgressLines();
    exitCode = report(error);
  } finally {
    await runCleanups().catch((error: unknown) => {
      if (debug) stderr.write(`cleanup failed: ${String(error)}\n`);
    });
    const lost = await lostOutput();
    if (lost) exitCode = reportError(lost, { ...errorOutput(), json: false });
    signals.release();
    releaseStrayErrors();
  }
  return stoppedBySignal ? EXIT_INTERRUPTED : exitCode;
}

/**
 * Where an error is reported, and how; `parallelism`: whether the command has --parallelism;
 * `stdoutWritten`: whether stdout holds output already.
 */
interface ErrorOutput {
  stdout: Output;
  stderr: Output;
  debug: boolean;
  json: boolean;
  parallelism: boolean;
  stdoutWritten: () => boolean;
}

/**
 * Whether an error is printed as the JSON envelope on stdout: with a JSON format, unless the command
 * has printed on stdout already (a drift report before its heal fails, a watch's lines, part of a
 * report before an interrupt): glued to that output, it would make stdout no document a script can
 * read, so it comes on stderr as in text, and the exit code says the run did not finish.
 */
function printsAsJson(out: ErrorOutput): boolean {
  return out.json && !out.stdoutWritten();
}

/** Prints what went wrong (through the redacting streams) and returns the exit code; never throws. */
function reportError(error: unknown, out: ErrorOutput): number {
  try {
    return describeError(error, out);
  } catch {
    out.stderr.write('error: voxform hit an unexpected problem (this is a bug; please report it), and could not describe it.\n');
    return 1;
  }
}

function describeError(error: unknown, out: ErrorOutput): number {
  if (error instanceof CommanderError) {
    // Help and --version arrive here as "errors" with exit code 0; usage mistakes are exit 1.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    return 1;
  }
  // Out of open files, wherever (loading a command's modules, opening a file): the limit's, not a bug.
  const reported = isVoxformError(error) ? error : tooManyOpenFilesError(error, { parallelism: out.parallelism });
  if (reported) {
    if (printsAsJson(out)) out.stdout.write(errorJson(reported));
    else out.stderr.write(errorText(reported));
    if (out.debug) out.stderr.write(`${errorStack(error)}\n`);
    return reported.code === 'interrupted' ? EXIT_INTERRUPTED : 1;
  }
  out.stderr.write(`error: voxform hit an unexpected problem (this is a bug; please report it): ${printableKeepingLines(errorMessage(error))}\n`);
  if (out.debug) out.stderr.write(`${errorStack(error)}\n`);
  else out.stderr.write('  hint: run again with VOXFORM_DEBUG=1 to see the details.\n');
  return 1;
}
