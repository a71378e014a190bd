/**
 * The process's entry: parses arguments with the command tree (program.ts) and maps the outcome to
 * an exit code. It holds what parsing needs (the outputs that redact, output-streams.ts; the error
 * report); running the command it chose, with the rest of what touches the process (signals, stray
 * errors, cleanups: run-command.ts), comes with the command, so `voxform --version` and `--help`
 * load the parser alone. Commands themselves never touch the process.
 */
import { registerCiTokens } from '../ci/runner-env.js';
import { SecretRegistry } from '../secrets/redact.js';
import { EXIT_INTERRUPTED } from './context.js';
import { lostOutput, makeOutput, trackingWrites } from './output-streams.js';
import { buildProgram } from './program.js';
import { errorReporting, reportError } from './report-error.js';

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

/** Runs the CLI with `argv` (without node and the script) and resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  const secrets = operatorSecrets(process.env);
  let exitCode = 0;
  let stoppedBySignal = false;
  const stderr = makeOutput(process.stderr, secrets, () => stoppedBySignal);
  const stdout = trackingWrites(makeOutput(process.stdout, secrets, () => stoppedBySignal));
  const errors = errorReporting(argv, { stdout, stderr, env: process.env });

  try {
    // Inside: building the parser reads the package's version, which a run out of open files cannot.
    const program = buildProgram(async (name, options) => {
      errors.parsed(options);
      const { runInThisProcess } = await import('./run-command.js');
      exitCode = await runInThisProcess(name, options, { stdout, stderr, secrets, errorOutput: errors.errorOutput, onStop: () => (stoppedBySignal = true) });
    }, { stdout, stderr });
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    // A usage mistake, help or --version, or the run's own machinery failing to load: the command ran not.
    exitCode = reportError(error, errors.errorOutput());
  }
  const lost = await lostOutput();
  if (lost) exitCode = reportError(lost, { ...errors.errorOutput(), json: false });
  return stoppedBySignal ? EXIT_INTERRUPTED : exitCode;
}
