/**
 * How the CLI shows an error it stops on, for every command: in text `error[CODE]: file:line:col: sentence`
 * and the hint on its own line; in JSON one envelope. The code is the one docs/errors.md explains, so a
 * user can look it up and a script can match on it.
 */
import type { ErrorCode } from '../error-codes.js';
import { codeLead, formatSourceLocation, VoxformError } from '../errors.js';
import { printableKeepingLines, toJsonText } from '../util/printable.js';

/**
 * The error a command stops with on the problems it found (manifest or test-file diagnostics, policy
 * findings). They are shown as the error is: in text, `listing` (the problems as text) on stderr above
 * the sentence; with a JSON format, in `details[listedIn]` of the envelope, alone on stdout, and
 * nothing on stderr. The sentence says where they are for each output: `(listed above)` in text,
 * `(listed in details.diagnostics)` in JSON and for library callers.
 */
export class ListedProblemsError extends VoxformError {
  /** The sentence as the text output shows it, under the problems it printed. */
  readonly textMessage: string;
  /** The problems as text (frames, findings), printed above the sentence. */
  readonly listing: string;

  constructor(
    code: ErrorCode,
    sentence: { found: string; outcome: string },
    options: { hint: string; listedIn: 'diagnostics' | 'findings'; problems: readonly unknown[]; listing: string; details?: Record<string, unknown> },
  ) {
    super(code, `${sentence.found} (listed in details.${options.listedIn}); ${sentence.outcome}.`, {
      hint: options.hint,
      details: { [options.listedIn]: options.problems, ...options.details },
    });
    this.textMessage = `${sentence.found} (listed above); ${sentence.outcome}.`;
    this.listing = options.listing;
  }
}

/** The first line's lead-in, `error[CODE]`: also what usage mistakes found by the argument parser begin with. */
export function errorLead(code: string): string {
  return codeLead('error', code);
}

/** The error as text lines (ending in a newline), after the problems it lists; messages quote what voxform did not write, so control characters are shown escaped. */
export function errorText(error: VoxformError): string {
  const where = error.location ? `${printableKeepingLines(formatSourceLocation(error.location))}: ` : '';
  const hint = error.hint ? `  hint: ${printableKeepingLines(error.hint)}\n` : '';
  if (error instanceof ListedProblemsError) return `${error.listing}${errorLead(error.code)}: ${where}${printableKeepingLines(error.textMessage)}\n${hint}`;
  return `${errorLead(error.code)}: ${where}${printableKeepingLines(error.message)}\n${hint}`;
}

/**
 * The error as `--format json` prints it: `{"error": {"code", "message", "hint", "location", "details"}}`,
 * the last three only when the error has them (JSON leaves an undefined value out).
 */
export function errorJson(error: VoxformError): string {
  return `${toJsonText({ error: errorBody(error) }, 2)}\n`;
}

/** The envelope's object: also how an error listed in another's details is written. */
export function errorBody(error: VoxformError): { code: string; message: string; hint: string | undefined; location: VoxformError['location']; details: unknown } {
  return { code: error.code, message: error.message, hint: error.hint, location: error.location, details: error.details };
}
