/**
 * Manifest diagnostics as every command prints them: `file:line:col  error[CODE]: message` (or
 * `warning[CODE]`), then the code frame. The code is the one docs/errors.md lists, as on a thrown error.
 */
import { terminalColors, type Colors } from '../util/terminal-colors.js';
import { MAX_DIAGNOSTICS_SHOWN } from '../project-files/limits.js';
import type { Diagnostic } from '../manifest/types.js';
import { codeLead, formatSourceLocation } from '../errors.js';
import { printable } from '../util/printable.js';
import { formatCount, plural } from '../util/plural.js';

interface DiagnosticFormat {
  color: boolean;
  /** Problems the loader counted but did not keep (LoadResult.omitted). */
  omitted?: { errors: number; warnings: number; stopped?: boolean };
}

/** The first MAX_DIAGNOSTICS_SHOWN diagnostics, then one line for the rest: thousands of frames help no one. */
export function formatDiagnostics(diagnostics: readonly Diagnostic[], format: DiagnosticFormat): string {
  const shown = diagnostics.slice(0, MAX_DIAGNOSTICS_SHOWN);
  const text = shown.map((d) => `${formatDiagnostic(d, format)}\n\n`).join('');
  const hidden = diagnostics.length - shown.length + (format.omitted?.errors ?? 0) + (format.omitted?.warnings ?? 0);
  if (hidden === 0) return text;
  const stopped = format.omitted?.stopped ? ', and checking stopped there' : '';
  return `${text}…and ${formatCount(hidden)} more${stopped} (only the first ${MAX_DIAGNOSTICS_SHOWN} are shown; fix these and run again)\n\n`;
}

export function formatDiagnostic(diagnostic: Diagnostic, { color }: DiagnosticFormat): string {
  const c = terminalColors(color);
  const where = c.bold(printable(formatSourceLocation(diagnostic)));
  // Messages quote what the file says (a misspelt name): shown escaped, like the frame's lines.
  const said = printable(diagnostic.message);
  const accent = diagnostic.severity === 'warning' ? c.yellow : c.red;
  const head = `${where}  ${accent(`${codeLead(diagnostic.severity, diagnostic.code)}:`)} ${said}`;
  if (!diagnostic.frame) return head;
  const frame = color ? colorFrame(diagnostic.frame, c, diagnostic.severity) : diagnostic.frame;
  return `${head}\n${frame}`;
}

function colorFrame(frame: string, c: Colors, severity: Diagnostic['severity']): string {
  const accent = severity === 'warning' ? c.yellow : c.red;
  return frame
    .split('\n')
    .map((line) => {
      const bar = line.indexOf('|');
      if (bar < 0) return line;
      const gutter = line.slice(0, bar + 1);
      const rest = line.slice(bar + 1);
      if (gutter.startsWith('>')) return `${accent('>')}${c.dim(gutter.slice(1))}${rest}`;
      if (/^\s*\^$/.test(rest)) return `${c.dim(gutter)}${accent(rest)}`;
      return `${c.dim(gutter)}${rest}`;
    })
    .join('\n');
}

/** "2 errors, 1 warning" (`omitted`: problems counted but not kept, see LoadResult). */
export function countProblems(diagnostics: readonly Diagnostic[], omitted = { errors: 0, warnings: 0 }): { errors: number; warnings: number; text: string } {
  const errors = diagnostics.filter((d) => d.severity === 'error').length + omitted.errors;
  const warnings = diagnostics.length + omitted.errors + omitted.warnings - errors;
  const parts = [];
  if (errors > 0 || warnings === 0) parts.push(plural(errors, 'error'));
  if (warnings > 0) parts.push(plural(warnings, 'warning'));
  return { errors, warnings, text: parts.join(', ') };
}
