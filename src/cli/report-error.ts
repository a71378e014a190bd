/** How the CLI reports what went wrong, and the exit code it gives: one way for every command. */
import { CommanderError } from 'commander';
import { isVoxformError, openFileLimitHint, rateLimitedHint, VoxformError } from '../errors.js';
import { errorMessage, errorStack } from '../secrets/error-message.js';
import { FileWriteError } from '../util/atomic-write.js';
import { EXIT_INTERRUPTED, type Output, type StopAtOnce } from './context.js';
import { errorBody, errorJson, errorText } from './error-text.js';
import { formatAskedFor } from './format-asked-for.js';
import { missingModuleError, tooManyOpenFilesError } from './open-files.js';
import type { TrackedOutput } from './output-streams.js';

/**
 * Where an error is reported, and how; `parallelism`: whether the command has --parallelism;
 * `stdoutWritten`: whether stdout holds output already.
 */
export interface ErrorOutput {
  stdout: Output;
  stderr: Output;
  debug: boolean;
  json: boolean;
  parallelism: boolean;
  stdoutWritten: () => boolean;
}

/**
 * Where and how the error of one command line is reported (main.ts's, and each `ci run` runs inside
 * it): once the parser has the command's options (`parsed`), as they ask; before, as its words ask
 * (a usage mistake, a module that does not load).
 */
export function errorReporting(argv: readonly string[], outputs: { stdout: TrackedOutput; stderr: Output; env: Readonly<Record<string, string | undefined>> }): { parsed(options: Readonly<Record<string, unknown>>): void; errorOutput(): ErrorOutput } {
  let options: Readonly<Record<string, unknown>> | undefined;
  return {
    parsed: (parsedOptions) => void (options = parsedOptions),
    errorOutput: () => ({
      stdout: outputs.stdout,
      stderr: outputs.stderr,
      debug: outputs.env.VOXFORM_DEBUG === '1',
      json: (options?.format ?? formatAskedFor(argv)) === 'json',
      // The hint for running out of open files names --parallelism where the command has it.
      parallelism: options !== undefined && 'parallelism' in options,
      stdoutWritten: outputs.stdout.written,
    }),
  };
}

/**
 * Whether an error is printed as the JSON envelope on stdout: with a JSON format, unless the command
 * has printed on stdout already (a drift report before its heal fails, a watch's lines, part of a
 * report before an interrupt): glued to that output, it would make stdout no document a script can
 * read, so it comes on stderr as in text, and the exit code says the run did not finish.
 */
export function printsAsJson(out: ErrorOutput): boolean {
  return out.json && !out.stdoutWritten();
}

/** How an error only a bug explains (internal_error) begins, wherever it is said. */
export const INTERNAL_ERROR_LEAD = 'voxform hit an unexpected problem (this is a bug; please report it)';

/** Prints what went wrong (through the redacting streams) and returns the exit code; never throws. */
export function reportError(error: unknown, out: ErrorOutput): number {
  try {
    return describeError(error, out);
  } catch {
    out.stderr.write(`error: ${INTERNAL_ERROR_LEAD}, and could not describe it.\n`);
    return 1;
  }
}

function describeError(error: unknown, out: ErrorOutput): number {
  if (error instanceof CommanderError) {
    // Help and --version arrive here as "errors" with exit code 0; usage mistakes are exit 1.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') return 0;
    return 1;
  }
  const reported = reportable(error, out.parallelism) ?? internalError(error, out.debug);
  if (printsAsJson(out)) out.stdout.write(errorJson(reported));
  else out.stderr.write(errorText(reported));
  if (out.debug) out.stderr.write(`${errorStack(error)}\n`);
  return reported.code === 'interrupted' ? EXIT_INTERRUPTED : 1;
}

/** What only a bug explains, said with a code as every error is (a script reading the JSON envelope gets one too). */
function internalError(error: unknown, debug: boolean): VoxformError {
  return new VoxformError('internal_error', `${INTERNAL_ERROR_LEAD}: ${errorMessage(error)}`, {
    hint: debug ? 'Report it with the command you ran and the stack trace printed on standard error.' : 'Run again with VOXFORM_DEBUG=1 to see the details.',
  });
}

/**
 * The error to report: running out of open files, wherever (loading a command's modules, opening a
 * file), is the limit's, not a bug, also beneath an error a command raised about what it could not
 * do then (a lock not taken, a folder not listed), whose hint would send the user elsewhere; a module
 * that is not there is the installation's. Undefined for what only a bug explains.
 */
export function reportable(error: unknown, parallelism: boolean): VoxformError | undefined {
  if (isVoxformError(error) && error.code.endsWith('too_many_open_files')) return withCommandsHint(error, parallelism);
  return tooManyOpenFilesError(error, { parallelism }) ?? (isVoxformError(error) ? withCommandsHint(error, parallelism) : (fileWriteRefused(error) ?? missingModuleError(error)));
}

/**
 * A write the file system refused that no command said more of (a full disk, a read-only folder):
 * the machine's, not a bug. Each file voxform writes is replaced whole or not at all.
 */
function fileWriteRefused(error: unknown): VoxformError | undefined {
  if (!(error instanceof FileWriteError)) return undefined;
  return new VoxformError('file_unwritable', `${error.message.replace(/\.$/, '')}; it was left as it was.`, {
    hint: 'Free space on its disk, or make the file and its folder writable for this user, then run the command again.',
    cause: error,
  });
}

/**
 * `error`, its hint naming --parallelism only when the command has it: the client gives its advice
 * for too many requests at once as for the commands that have the option, and one without would refuse it.
 */
function withCommandsHint(error: VoxformError, parallelism: boolean): VoxformError {
  if (parallelism || !error.hint?.includes('--parallelism')) return error;
  if (error.code === 'api_rate_limited') return error.withHint(rateLimitedHint(false));
  if (error.code === 'api_too_many_open_files') return error.withHint(openFileLimitHint(false));
  return error;
}

/**
 * The error a run stopped at once ends with, wherever the signal falls (signal-trap.ts while a
 * command runs, main.ts before and after): a first signal's, or the stop that cut a graceful stop
 * short (`cutShort`: what began that stop, and what cut it short: a signal, an error thrown outside
 * the command's awaited chain, said above it, or the time it took), saying what that left undone
 * (`atOnce`). The requests that create something it cut short on the wire (`unknownOutcomes`) are
 * in `details.unknown_outcomes`; text prints each after it.
 */
export function signalStopError({ cutShort, atOnce, unknownOutcomes = [] }: { cutShort?: CutShort | undefined; atOnce?: StopAtOnce | undefined; unknownOutcomes?: readonly VoxformError[] } = {}): VoxformError {
  const details = unknownOutcomes.length > 0 ? { unknown_outcomes: unknownOutcomes.map(errorBody) } : undefined;
  const message = `${stoppedSaying(cutShort)}${atOnce ? `; ${atOnce.leftUndone}` : ''}.`;
  const checkFirst = 'Check what the service did with each request cut short (api_outcome_unknown) before you run the command again, or it may be done twice.';
  const hints = [unknownOutcomes.length > 0 ? checkFirst : undefined, atOnce?.hint].filter((hint) => hint !== undefined);
  return new VoxformError('interrupted', message, { hint: hints.join(' ') || 'Run the command again to finish its work.', details });
}

/** What began a graceful stop, and what cut it short. */
export interface CutShort {
  began: 'signal' | 'error';
  by: 'signal' | 'error' | 'time';
}

function stoppedSaying(cutShort: CutShort | undefined): string {
  if (cutShort === undefined) return 'voxform stopped at your request';
  const { began, by } = cutShort;
  if (began === 'signal' && by === 'signal') return 'voxform stopped at once, on the second signal';
  if (by === 'time') return 'voxform stopped at once: the stop the error above began had not ended in time';
  const on = by === 'signal' ? 'a signal' : began === 'error' ? 'a second error' : 'the error above';
  const starter = began === 'signal' ? 'a signal' : by === 'error' ? 'the first error' : 'the error above';
  return `voxform stopped at once, on ${on}, cutting short the stop ${starter} began`;
}
