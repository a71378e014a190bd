/**
 * Collects the problems of one load. Every problem is kept (one run reports every mistake), each
 * at most once per place (defaults merged into a thousand agents report their mistake once), and
 * they come out sorted by file and position, each with its code frame.
 */
import type { Diagnostic } from './types.js';
import { codeFrame } from './code-frame.js';
import { MAX_DIAGNOSTICS_KEPT } from './limits.js';
import { positionOf, type Span } from './source.js';

/** Every code a manifest diagnostic can have (docs/manifest.md explains each; a test keeps both in step). */
export const DIAGNOSTIC_CODES = [
  'yaml_syntax',
  'yaml_tab_indent',
  'yaml_warning',
  'yaml_complex_key',
  'yaml_merge',
  'yaml_alias_limit',
  'yaml_alias_cycle',
  'yaml_too_deep',
  'yaml_too_large',
  'yaml_indentation',
  'duplicate_key',
  'file_not_utf8',
  'empty_file',
  'not_a_mapping',
  'unknown_field',
  'missing_field',
  'type_mismatch',
  'invalid_value',
  'duplicate_item',
  'read_only_field',
  'invalid_name',
  'duplicate_resource',
  'too_many_resources',
  'duplicate_setting',
  'duplicate_id',
  'missing_id',
  'reference_missing',
  'env_missing',
  'env_syntax',
  'env_not_allowed',
  'env_forbidden',
  'env_value_short',
  'base_url_invalid',
  'base_url_untrusted',
  'environment_unknown',
  'environment_unknown_resource',
  'file_missing',
  'file_unreadable',
  'file_outside_project',
  'file_not_regular',
  'file_too_large',
  'knowledge_type_unknown',
  'secret_in_manifest',
  'template_unknown',
  'template_invalid',
  'template_var_missing',
  'template_var_unknown',
  'template_var_undeclared',
  'vars_without_template',
] as const;

export type DiagnosticCode = (typeof DIAGNOSTIC_CODES)[number];

interface Pending {
  severity: Diagnostic['severity'];
  code: DiagnosticCode;
  message: string;
  span: Span;
}

export class DiagnosticList {
  private readonly pending: Pending[] = [];
  private readonly seen = new Set<string>();
  private errorCount = 0;
  /**
   * Problems found past MAX_DIAGNOSTICS_KEPT: counted, not kept (a hostile manifest can make
   * millions); `stopped` once the loader stopped looking for more (see `full`).
   */
  readonly omitted = { errors: 0, warnings: 0, stopped: false };

  error(code: DiagnosticCode, message: string, span: Span): void {
    this.add({ severity: 'error', code, message, span });
  }

  warning(code: DiagnosticCode, message: string, span: Span): void {
    this.add({ severity: 'warning', code, message, span });
  }

  get hasErrors(): boolean {
    return this.errorCount > 0;
  }

  /** Whether MAX_DIAGNOSTICS_KEPT problems were kept: further checking would only be counted, so the loader stops. */
  get full(): boolean {
    return this.pending.length >= MAX_DIAGNOSTICS_KEPT;
  }

  /** How many errors so far: lets a step tell whether it added any. */
  get errors(): number {
    return this.errorCount;
  }

  private add(item: Pending): void {
    if (this.pending.length >= MAX_DIAGNOSTICS_KEPT) {
      if (item.severity === 'error') this.errorCount++;
      this.omitted[item.severity === 'error' ? 'errors' : 'warnings']++;
      return;
    }
    const key = `${item.span.source.path}\0${item.span.start}\0${item.code}`;
    if (this.seen.has(key)) return;
    this.seen.add(key);
    if (item.severity === 'error') this.errorCount++;
    this.pending.push(item);
  }

  /** The diagnostics in file order, then by position, with code frames. */
  toList(): Diagnostic[] {
    return [...this.pending]
      .sort((a, b) => a.span.source.order - b.span.source.order || a.span.start - b.span.start)
      .map(({ severity, code, message, span }) => {
        const { line, col } = positionOf(span.source, span.start);
        const frame = codeFrame(span.source.text, line, col, { lineStarts: span.source.lines.lineStarts });
        return { severity, code, message, file: span.source.display, line, col, frame };
      });
  }
}
