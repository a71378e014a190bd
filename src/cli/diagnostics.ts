/**
 * Printing manifest diagnostics: `file:line:col  message`, then the code frame. Shared by
 * `validate`, `plan` and `apply` so every command shows a manifest mistake the same way.
 */
import picocolors from 'picocolors';
import type { Diagnostic } from '../manifest/types.js';

export interface DiagnosticFormat {
  color: boolean;
}

/** Every diagnostic, each followed by a blank line. */
export function formatDiagnostics(diagnostics: readonly Diagnostic[], format: DiagnosticFormat): string {
  return diagnostics.map((d) => `${formatDiagnostic(d, format)}\n\n`).join('');
}

export function formatDiagnostic(diagnostic: Diagnostic, { color }: DiagnosticFormat): string {
  const c = picocolors.createColors(color);
  const where = c.bold(`${diagnostic.file}:${diagnostic.line}:${diagnostic.col}`);
  const message =
    diagnostic.severity === 'warning' ? `${c.yellow('warning:')} ${diagnostic.message}` : c.red(diagnostic.message);
  const head = `${where}  ${message}`;
  if (!diagnostic.frame) return head;
  const frame = color ? colorFrame(diagnostic.frame, c, diagnostic.severity) : diagnostic.frame;
  return `${head}\n${frame}`;
}

function colorFrame(frame: string, c: ReturnType<typeof picocolors.createColors>, severity: Diagnostic['severity']): string {
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

/** "2 errors, 1 warning" */
export function countProblems(diagnostics: readonly Diagnostic[]): { errors: number; warnings: number; text: string } {
  const errors = diagnostics.filter((d) => d.severity === 'error').length;
  const warnings = diagnostics.length - errors;
  const parts = [];
  if (errors > 0 || warnings === 0) parts.push(`${errors} error${errors === 1 ? '' : 's'}`);
  if (warnings > 0) parts.push(`${warnings} warning${warnings === 1 ? '' : 's'}`);
  return { errors, warnings, text: parts.join(', ') };
}
