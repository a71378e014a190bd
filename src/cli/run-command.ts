/**
 * Running one command the parser chose: loads its module (each command comes with its first run),
 * gives it its context, and while it runs answers Ctrl-C and SIGTERM, errors outside its awaited
 * chain, and a wait on nothing; its cleanups run once it ends, however it ends. main.ts loads this
 * module when a command runs: `voxform --version` and `--help` never need it.
 */
import { VoxformError } from '../errors.js';
import type { SecretRegistry } from '../secrets/redact.js';
import { placeNoMoreFiles } from '../util/atomic-write.js';
import { colorOn } from '../util/terminal-colors.js';
import { type CommandContext, type ManifestAgentsById, type Output } from './context.js';
import { askYesNo } from './confirm.js';
import { errorText } from './error-text.js';
import { trackingWrites, type TrackedOutput } from './output-streams.js';
import { buildProgram } from './program.js';
import { clearProgressLines } from './progress.js';
import { errorReporting, printsAsJson, reportError, type ErrorOutput } from './report-error.js';
import { trapSignals, WritesInFlight, type StopTrap } from './signal-trap.js';
import type { CiRunCommandOptions } from './commands/ci.js';

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
  const stdout = trackingWrites(ctx.stdout);
  const commandCtx: CommandContext = { ...ctx, stdout };
  const errors = errorReporting(argv, { stdout, stderr: ctx.stderr, env: ctx.env });
  const program = buildProgram(async (name, options) => {
    errors.parsed(options);
    exitCode = await runCommand(name, options, commandCtx);
  }, commandCtx, ctx.cwd);
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    clearProgressLines();
    const out = errors.errorOutput();
    exitCode = reportError(error, { ...out, json: out.json && !errorsAsText });
  }
  return exitCode;
}

function confirmOnTerminal(question: string, options: { signal?: AbortSignal | undefined } = {}): Promise<boolean> {
  return askYesNo(question, { input: process.stdin, output: process.stderr, terminal: true, signal: options.signal });
}

/**
 * What would otherwise reach Node's own handlers, handed to the run's stop trap (signal-trap.ts):
 * an error outside the awaited chain (a timer), which Node prints unredacted; and a command left
 * waiting on a promise nothing is left to settle (a pack module's top-level await on nothing), where
 * Node ends the process with exit 13 and not a word — a code a CI step reads as some failure, with
 * no SARIF log to upload; once the command returned (`endedWith`: its exit code), a cleanup left
 * waiting so ends the process with the run's code. Returns the release of the handlers.
 */
function trapStrayErrors(trap: Pick<StopTrap, 'strayError'>, endedWith: () => number | undefined): () => void {
  const onStrayError = (error: unknown) => trap.strayError(error);
  const onStalled = () => {
    // The command returned, and a cleanup waits on nothing: the process ends as the run ended.
    const ended = endedWith();
    if (ended !== undefined) {
      process.exitCode = ended;
      return;
    }
    trap.strayError(
      new VoxformError('command_stalled', 'voxform stopped: the command was left waiting for something that can never finish (nothing was left to run).', {
        hint: 'If VOXFORM_POLICY_PACKS names a pack, check that its module and its checks settle (a top-level await or a promise that nothing resolves); otherwise this is a bug of voxform: please report it, with the command you ran.',
      }),
      { atOnce: true },
    );
    // Cleanups that wait on nothing either would let the loop end again: the exit code is said already
    // (a stop at once before this one set its own).
    process.exitCode ??= 1;
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

/**
 * A run's cleanups (`ctx.onExit`), the last added first. They run once, however many ask: a stop at
 * once during the last cleanups waits for the one under way (a lock being released) rather than
 * end the process midway through it.
 */
export function cleanupList(): { add(cleanup: () => Promise<void> | void): void; run(): Promise<void> } {
  const cleanups: Array<() => Promise<void> | void> = [];
  let running: Promise<void> | undefined;
  return {
    add: (cleanup) => void cleanups.push(cleanup),
    run: () =>
      (running ??= (async () => {
        while (cleanups.length > 0) await cleanups.pop()?.();
      })()),
  };
}

/** What the process's shell (main.ts) hands a command it runs: its outputs and secrets, and how it reports. */
interface ProcessShell {
  stdout: TrackedOutput;
  stderr: Output;
  secrets: SecretRegistry;
  /** Where and how an error is reported, as the command's options asked. */
  errorOutput(): ErrorOutput;
  /** Called once the run stops at once (a signal, a stray error), with its exit code: from then on the outputs write nothing. */
  onStop(exitCode: number): void;
}

/**
 * Runs the command in this process and resolves to its exit code, its error reported (130 once a
 * signal stopped it); its cleanups have run when it resolves.
 */
export async function runInThisProcess(name: string, options: ParsedOptions, shell: ProcessShell): Promise<number> {
  const cleanups = cleanupList();
  let exitCode = 0;
  // Set once the run stopped at once: what fails after is the fallout of the stop, not reported, and the run ends with this.
  let stoppedWith: number | undefined;
  const report = (error: unknown) => stoppedWith ?? reportError(error, shell.errorOutput());
  const reportStop = (stop: VoxformError, unknownOutcomes: readonly VoxformError[]) => {
    const out = shell.errorOutput();
    // Asked before the envelope is printed: once printed, stdout holds output.
    const inJson = printsAsJson(out);
    reportError(stop, out);
    // In JSON they are in the envelope's details; in text each follows as its own error.
    if (!inJson) for (const unknown of unknownOutcomes) shell.stderr.write(errorText(unknown));
  };
  const runCleanups = cleanups.run;
  const writes = new WritesInFlight();
  const stops = trapSignals({
    signals: process,
    now: () => performance.now(),
    exit: (code) => process.exit(code),
    runCleanups,
    reportStop,
    // Before the stop's own error, as text: the JSON document is the stop's, with the writes it leaves unknown.
    reportStray: (error, { beforeStop }) => void reportError(error, beforeStop ? { ...shell.errorOutput(), json: false } : shell.errorOutput()),
    announce: (line) => shell.stderr.write(line),
    writes,
    onStop: (code) => {
      stoppedWith = code;
      placeNoMoreFiles();
      // Should the loop empty before the cleanups end (one waits on nothing), the process ends with it.
      process.exitCode = code;
      shell.onStop(code);
    },
  });
  // The run's exit code once the command returned.
  let endedWith: number | undefined;
  const releaseStrayErrors = trapStrayErrors(stops, () => endedWith);
  const interactive = Boolean(process.stdin.isTTY && process.stderr.isTTY);
  const ctx: CommandContext = {
    cwd: process.cwd(),
    env: process.env,
    stdout: shell.stdout,
    stderr: shell.stderr,
    stdin: process.stdin,
    color: colorOn(shell.stdout, process.env, options.color !== false),
    secrets: shell.secrets,
    confirm: interactive ? confirmOnTerminal : undefined,
    onExit: cleanups.add,
    interrupted: stops.interrupted,
    stopLeaves: stops.stopLeaves,
    stopsAtOnceFromNow: stops.stopsAtOnceFromNow,
    writeSent: (ifInterrupted) => writes.add(ifInterrupted),
  };
  try {
    let failure: { error: unknown } | undefined;
    try {
      exitCode = await runCommand(name, options, ctx);
    } catch (error) {
      clearProgressLines();
      failure = { error };
    }
    // A stray error that stopped the command gracefully is the run's error: what the command threw
    // then is the fallout of the stop. From here, a signal or a stray error stops at once.
    failure = stops.ended() ?? failure;
    if (failure) exitCode = report(failure.error);
    endedWith = stoppedWith ?? exitCode;
  } finally {
    await runCleanups().catch((error: unknown) => {
      if (shell.errorOutput().debug) shell.stderr.write(`cleanup failed: ${String(error)}\n`);
    });
    stops.release();
    releaseStrayErrors();
  }
  return stoppedWith ?? exitCode;
}
