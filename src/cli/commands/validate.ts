/** `voxform validate`: every problem of the manifests, or what they define; never contacts the service. */
import path from 'node:path';
import picocolors from 'picocolors';
import type { DesiredState, Diagnostic } from '../../manifest/types.js';
import type { CommandContext } from '../context.js';
import { loadCommandManifests } from '../load-manifests.js';
import { countProblems, formatDiagnostics } from '../diagnostics.js';
import { plural } from '../../util/plural.js';

export interface ValidateOptions {
  file?: string[];
  env?: string;
  format?: 'text' | 'json';
}

export interface ValidateReport {
  valid: boolean;
  diagnostics: Diagnostic[];
  summary: {
    /** Every problem found, also those past the listed ones (`omitted`). */
    errors: number;
    warnings: number;
    /** Problems counted but not listed in `diagnostics` (a load keeps at most 1,000). */
    omitted: number;
    /** Whether checking stopped at 1,000 problems (then there may be more than counted). */
    stopped: boolean;
    /** Manifest files read, relative to the working directory. */
    files: string[];
    environment: string | null;
    /** What the manifests define; null when they are not valid. */
    resources: { agents: number; phones: number; campaigns: number; knowledge: number; credentials: number } | null;
  };
}

export async function run(options: ValidateOptions, ctx: CommandContext): Promise<number> {
  const report = await validate(options, ctx);
  if (options.format === 'json') {
    ctx.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } else {
    const omitted = { errors: report.summary.errors, warnings: report.summary.warnings, stopped: report.summary.stopped };
    for (const d of report.diagnostics) omitted[d.severity === 'error' ? 'errors' : 'warnings']--;
    if (report.diagnostics.length > 0) ctx.stderr.write(formatDiagnostics(report.diagnostics, { color: ctx.color, omitted }));
    const line = summaryLine(report, ctx.color);
    if (report.valid) ctx.stdout.write(`${line}\n`);
    else ctx.stderr.write(`${line}\n`);
  }
  return report.valid ? 0 : 1;
}

/** Loads the manifests and builds the report; secrets met are registered for redaction first. */
export async function validate(options: ValidateOptions, ctx: CommandContext): Promise<ValidateReport> {
  const result = await loadCommandManifests(options, ctx);
  const { errors, warnings } = countProblems(result.diagnostics, result.omitted);
  return {
    valid: errors === 0 && result.state !== undefined,
    diagnostics: result.diagnostics,
    summary: {
      errors,
      warnings,
      omitted: result.omitted.errors + result.omitted.warnings,
      stopped: result.omitted.stopped,
      files: result.files.map((file) => (path.relative(ctx.cwd, file) || path.basename(file)).split(path.sep).join('/')),
      environment: options.env ?? null,
      resources: result.state ? countResources(result.state) : null,
    },
  };
}

function countResources(state: DesiredState): NonNullable<ValidateReport['summary']['resources']> {
  return {
    agents: state.agents.size,
    phones: state.phones.size,
    campaigns: state.campaigns.size,
    knowledge: state.knowledge.size,
    credentials: state.credentials.size,
  };
}

function summaryLine(report: ValidateReport, color = false): string {
  const c = picocolors.createColors(color);
  const { summary } = report;
  const problems = countProblems([], { errors: summary.errors, warnings: summary.warnings });
  if (!report.valid) {
    const files = new Set(report.diagnostics.map((d) => d.file)).size;
    return `${problems.text} in ${plural(files, 'file')}`;
  }
  const what = summary.files.length === 1 ? `${summary.files[0]} is valid` : `${summary.files.length} files are valid`;
  const environment = summary.environment ? ` (environment ${summary.environment})` : '';
  const warned = summary.warnings > 0 ? `, with ${plural(summary.warnings, 'warning')}` : '';
  const r = summary.resources as NonNullable<ValidateReport['summary']['resources']>;
  const counts = [
    plural(r.agents, 'agent'),
    plural(r.phones, 'phone'),
    plural(r.campaigns, 'campaign'),
    plural(r.knowledge, 'knowledge file'),
    plural(r.credentials, 'credential'),
  ].join(', ');
  return `${c.green('✓')} ${what}${environment}${warned}: ${counts}`;
}
