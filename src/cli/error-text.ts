/**
 * How the CLI shows an error it stops on, for every command: in text `error[CODE]: file:line:col: sentence`
 * and the hint on its own line; in JSON one envelope. The code is the one docs/errors.md explains, so a
 * user can look it up and a script can match on it.
 */
import { codeLead, formatSourceLocation, type VoxformError } from '../errors.js';
import { printableKeepingLines } from '../util/printable.js';

/** The first line's lead-in, `error[CODE]`: also what usage mistakes found by the argument parser begin with. */
export function errorLead(code: string): string {
  return codeLead('error', code);
}

/** The error as text lines (ending in a newline); messages quote what voxform did not write, so control characters are shown escaped. */
export function errorText(error: VoxformError): string {
  const where = error.location ? `${printableKeepingLines(formatSourceLocation(error.location))}: ` : '';
  const hint = error.hint ? `  hint: ${printableKeepingLines(error.hint)}\n` : '';
  return `${errorLead(error.code)}: ${where}${printableKeepingLines(error.message)}\n${hint}`;
}

/** The error as `--format json` prints it: `{"error": {"code", "message", "hint", "location", "details"}}`. */
export function errorJson(error: VoxformError): string {
  const body = { error: { code: error.code, message: error.message, hint: error.hint, location: error.location, details: error.details } };
  return `${JSON.stringify(body, null, 2)}\n`;
}
