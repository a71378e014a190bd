/**
 * The process's entry: parses arguments with the command tree (program.ts) and maps the outcome to
 * an exit code. It holds what parsing needs (the outputs that redact, output-streams.ts; the error
 * report) and says a signal, or an error thrown outside what runs, that falls while no command runs;
 * running the command it chose, with the rest of what touches the process (the command's signal
 * trap, stray errors, cleanups: run-command.ts), comes with the command, so `voxform --version` and
 * `--help` load the parser alone. Commands themselves never touch the process.
 */
import { registerCiTokens } from '../ci/runner-env.js';
import { SecretRegistry } from '../secrets/redact.js';
import { EXIT_INTERRUPTED } from './context.js';
import type { Output } from './context.js';
import { lostOutput, makeOutput, trackingWrites } from './output-streams.js';
import { buildProgram } from './program.js';
import { errorReporting, reportError, signalStopError } from './report-error.js';

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
 * Node's process warnings (a library's, such as the PostgreSQL driver's about `sslmode=require`, a
 * deprecation) as `warning:` lines of `stderr`, which redacts and escapes: Node's own printer, the
 * one listener it adds, writes them raw (`(node:PID) Warning: …`), past the printing rule every
 * write of every command passes (docs/security.md §8). A warning of a kind (a deprecation, a
 * listener leak: a defect of voxform's the suite and the benchmarks look for) says its kind. Each
 * text once: a driver warns at every connection it parses.
 */
function printNodeWarnings(stderr: Output, env: NodeJS.ProcessEnv): void {
  const said = new Set<string>();
  const silenced = silencedWarnings(env);
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: unknown }) => {
    if (silenced(warning)) return;
    const text = warning.name === 'Warning' ? warning.message : `${warning.name}: ${warning.message}`;
    if (said.has(text)) return;
    said.add(text);
    stderr.write(`warning: ${text}\n`);
  });
}

/**
 * Whether the operator told Node to keep a warning quiet, as Node's own printer honours it: every one
 * for `--no-warnings` (also in NODE_OPTIONS) or NODE_NO_WARNINGS=1, and those of a kind or code a
 * `--disable-warning` names. Node still hands them to a listener such as voxform's.
 */
function silencedWarnings(env: NodeJS.ProcessEnv): (warning: Error & { code?: unknown }) => boolean {
  if ((process as { noProcessWarnings?: boolean }).noProcessWarnings === true || env.NODE_NO_WARNINGS === '1') return () => true;
  // NODE_OPTIONS as Node reads it: words apart at spaces, a value in double quotes taken without them.
  const flags = [...process.execArgv, ...(env.NODE_OPTIONS ?? '').split(/\s+/).map((word) => word.replace(/"([^"]*)"/g, '$1'))];
  const disabled = new Set(flags.flatMap((flag, at) => (flag.startsWith('--disable-warning=') ? [flag.slice('--disable-warning='.length)] : flag === '--disable-warning' ? [flags[at + 1] ?? ''] : [])));
  return (warning) => disabled.has(warning.name) || (typeof warning.code === 'string' && disabled.has(warning.code));
}

/**
 * Runs the CLI with `argv` (without node and the script) and resolves to the exit code.
 * `ownsProcess`: the process is voxform's alone (bin/voxform.cjs): an error thrown outside what
 * runs is answered after this returns too (a timer of an operator's pack that fires once its command
 * ended); a caller inside another program gets its process back as it was.
 */
export async function main(argv: string[], { ownsProcess = false } = {}): Promise<number> {
  const secrets = operatorSecrets(process.env);
  let exitCode = 0;
  // Set once the run stopped at once (a signal, a stray error): the outputs write nothing more, and the run ends with this.
  let stoppedWith: number | undefined;
  const stderr = makeOutput(process.stderr, secrets, () => stoppedWith !== undefined);
  const stdout = trackingWrites(makeOutput(process.stdout, secrets, () => stoppedWith !== undefined));
  const errors = errorReporting(argv, { stdout, stderr, env: process.env });
  // A program that runs voxform inside its own process prints its warnings as it chose.
  if (ownsProcess) printNodeWarnings(stderr, process.env);
  // Ctrl-C or SIGTERM while no command's trap answers it (run-command.ts's): while the command line is
  // parsed and its command loaded, and once it ended while stdout still holds output its reader has
  // not taken (a pipe nobody reads). Node's own answer would end the process without a word; this one
  // says the stop as a command's trap says a first one, and exits 130. Nothing is left to clean up.
  // (While Node starts and loads the shell, before this runs, Node's own answer stands.)
  // So is an error thrown outside what runs then: said as every error is, through the outputs that
  // redact, where Node would print it raw with its trace. A run stopped already ends as it was stopping.
  let commandTrapsSignals = false;
  const stopOutside = (error: unknown, code: number) => {
    if (commandTrapsSignals) return;
    if (stoppedWith === undefined) {
      reportError(error, errors.errorOutput());
      stoppedWith = code;
    }
    process.exit(stoppedWith);
  };
  const onSignal = () => stopOutside(signalStopError(), EXIT_INTERRUPTED);
  const onStrayError = (error: unknown) => stopOutside(error, 1);
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  process.on('uncaughtException', onStrayError);
  process.on('unhandledRejection', onStrayError);

  try {
    // Inside: building the parser reads the package's version, which a run out of open files cannot.
    const program = buildProgram(async (name, options) => {
      errors.parsed(options);
      const { runInThisProcess } = await import('./run-command.js');
      // runInThisProcess traps the signals before it first awaits, and releases them as it returns:
      // a signal, answered between event loop turns, always finds one trap that answers it.
      commandTrapsSignals = true;
      try {
        exitCode = await runInThisProcess(name, options, { stdout, stderr, secrets, errorOutput: errors.errorOutput, onStop: (code) => (stoppedWith = code) });
      } finally {
        commandTrapsSignals = false;
      }
    }, { stdout, stderr });
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    // A usage mistake, help or --version, or the run's own machinery failing to load: the command ran not.
    exitCode = reportError(error, errors.errorOutput());
  }
  await stdout.drained?.();
  const lost = await lostOutput();
  if (lost) exitCode = reportError(lost, { ...errors.errorOutput(), json: false });
  process.off('SIGINT', onSignal);
  process.off('SIGTERM', onSignal);
  if (!ownsProcess) {
    process.off('uncaughtException', onStrayError);
    process.off('unhandledRejection', onStrayError);
  }
  return stoppedWith ?? exitCode;
}
