/**
 * `voxform validate`: every problem of the manifests and every policy finding, or what they define;
 * never contacts the service. Exit 1 on an error or a mandatory policy violation.
 */
import path from 'node:path';
import { terminalColors } from '../../util/terminal-colors.js';
import { toJsonText } from '../../util/printable.js';
import type { ProjectManifests } from '../../manifest/index.js';
import type { DesiredState, Diagnostic, LoadResult } from '../../manifest/types.js';
import { POLICY_PACKS_VARIABLE } from '../../policy/operator-packs.js';
import { isPlainObject } from '../../util/json-object.js';
import { policyReportJson, policySummaryLine, renderFindingsText } from '../../policy/render.js';
import { renderSarif, renderSarifFailure, sarifSourceRoot, type SarifFailure } from '../../policy/sarif.js';
import type { PolicyReport } from '../../policy/types.js';
import type { CommandContext } from '../context.js';
import { loadAsValidateChecks, loadCommandManifests, readCommandProject } from '../load-manifests.js';
import { countProblems, formatDiagnostics } from '../diagnostics.js';
import { plural } from '../../util/plural.js';
import { checkPolicy } from '../policy-check.js';
import { INTERNAL_ERROR_LEAD, reportable } from '../report-error.js';
import { voxformVersion } from '../../util/version.js';
import { mergeEnvironmentReports } from '../../policy/environments.js';
import { RegexTimeBudget } from '../../util/safe-regex.js';
import { RuleCheckBudget } from '../../policy/check-budget.js';

interface ValidateOptions {
  file?: string[];
  env?: string;
  format?: 'text' | 'json' | 'sarif';
}

interface ValidateReport {
  /** No manifest error and no mandatory policy violation. */
  valid: boolean;
  diagnostics: Diagnostic[];
  /** The policy's findings; undefined when the manifests have errors (policy checks only what loads). */
  policy: PolicyReport | undefined;
  summary: {
    /** Every problem found, also those past the listed ones (`omitted`). */
    errors: number;
    warnings: number;
    /** Problems counted but not listed in `diagnostics` (a load keeps at most 1,000). */
    omitted: number;
    /** Whether checking stopped at 1,000 problems (then there may be more than counted). */
    stopped: boolean;
    /** How many files hold a problem, those of the problems past the listed ones too. */
    problemFiles: number;
    /** Manifest files read, relative to the working directory. */
    files: string[];
    environment: string | null;
    /** What the manifests define; null when they are not valid. */
    resources: { agents: number; phones: number; campaigns: number; knowledge: number; credentials: number } | null;
  };
}

export async function run(options: ValidateOptions, ctx: CommandContext): Promise<number> {
  let report: ValidateReport;
  try {
    report = await validate(options, ctx);
  } catch (error) {
    // A SARIF step's output is uploaded whatever the exit: it gets a log saying the check failed (the error still goes to stderr).
    if (options.format === 'sarif') ctx.stdout.write(`${toJsonText(renderSarifFailure(sarifFailureOf(error), voxformVersion()), 2)}\n`);
    throw error;
  }
  if (options.format === 'json') {
    const { policy, ...rest } = report;
    ctx.stdout.write(`${toJsonText({ ...rest, policy: policy ? policyReportJson(policy) : null }, 2)}\n`);
  } else if (options.format === 'sarif') {
    ctx.stdout.write(`${toJsonText(renderSarif({ report: report.policy, diagnostics: report.diagnostics, version: voxformVersion(), sourceRoot: await sarifSourceRoot(ctx.cwd, report.summary.files[0]) }), 2)}\n`);
  } else {
    const omitted = { errors: report.summary.errors, warnings: report.summary.warnings, stopped: report.summary.stopped };
    for (const d of report.diagnostics) omitted[d.severity === 'error' ? 'errors' : 'warnings']--;
    if (report.diagnostics.length > 0) ctx.stderr.write(formatDiagnostics(report.diagnostics, { color: ctx.color, omitted }));
    if (report.policy) {
      const findings = renderFindingsText(report.policy, { color: ctx.color });
      if (findings) ctx.stderr.write(`${findings}\n`);
    }
    const line = summaryLine(report, ctx.color);
    if (report.valid) ctx.stdout.write(`${line}\n`);
    else ctx.stderr.write(`${line}\n`);
  }
  return report.valid ? 0 : 1;
}

/** The failure as the error report says it (report-error.ts), a bug's own message left to standard error. */
function sarifFailureOf(error: unknown): SarifFailure {
  const reported = reportable(error, false);
  if (reported) return { code: reported.code, message: reported.message, hint: reported.hint };
  return { code: 'internal_error', message: `${INTERNAL_ERROR_LEAD}: its standard error says more.`, hint: undefined };
}

/** What every policy check of one run shares. */
interface RunBudgets {
  regexBudget: RegexTimeBudget;
  checkBudget: RuleCheckBudget;
}

/**
 * Loads the manifests and builds the report; secrets met are registered for redaction first. The files are read once, whatever the environments checked.
 * `budgets`: the time team rules' regular expressions may take in this run and the checks team rules
 * may make, every environment's together (a test gives its own clock, or a small count).
 */
export async function validate(options: ValidateOptions, ctx: CommandContext, budgets: Partial<RunBudgets> = {}): Promise<ValidateReport> {
  const run: RunBudgets = { regexBudget: budgets.regexBudget ?? new RegexTimeBudget(), checkBudget: budgets.checkBudget ?? new RuleCheckBudget() };
  const project = await readCommandProject(options, ctx);
  const loaded = await loadCommandManifests(options, ctx, project);
  // Manifests that leave ids to the environments are used only with --env: each is checked as that would.
  const checked = await loadAsValidateChecks(loaded, { project, options }, ctx);
  const { result } = checked;
  const { errors, warnings } = countProblems(result.diagnostics, result.omitted);
  const policy = checked.environments
    ? await eachEnvironmentPolicy({ result, environments: checked.environments }, ctx, run)
    : result.state
      ? await everyEnvironmentPolicy(result.state, { project, result, budgets: run }, options, ctx)
      : undefined;
  return {
    valid: errors === 0 && result.state !== undefined && (policy?.summary.mandatory ?? 0) === 0,
    diagnostics: result.diagnostics,
    policy,
    summary: {
      errors,
      warnings,
      omitted: result.omitted.errors + result.omitted.warnings,
      stopped: result.omitted.stopped,
      problemFiles: new Set(result.diagnostics.map((d) => d.file)).size + result.omitted.files,
      files: result.files.map((file) => (path.relative(ctx.cwd, file) || path.basename(file)).split(path.sep).join('/')),
      environment: options.env ?? null,
      resources: result.state ? countResources(result.state) : null,
    },
  };
}

/**
 * The policy of every environment `loadAsValidateChecks` loaded, when every one loads: each finding
 * naming the environments it occurs in (none belongs to the manifests without an environment).
 */
async function eachEnvironmentPolicy(checked: { result: LoadResult; environments: Map<string, DesiredState> }, ctx: CommandContext, budgets: RunBudgets): Promise<PolicyReport | undefined> {
  if (!checked.result.state) return undefined;
  const reports = new Map<string, PolicyReport>();
  for (const [environment, state] of checked.environments) reports.set(environment, await checkPolicy(state, ctx, budgets));
  const [first] = reports.values();
  return first ? mergeEnvironmentReports({ ...first, findings: [], waived: [], summary: { mandatory: 0, advisory: 0, waived: 0 } }, reports) : undefined;
}

/**
 * The policy of the manifests; without `--env`, of each environment's too (an overlay can bring a
 * finding: a phone number in its `first_message`), each finding once. An environment is checked as
 * `--env` loads it (resolved from the same read), unset variables read as withheld; one that does not
 * load alone is left to `--env`.
 * An overlay that changes only ids, region and base URL is not resolved: the manifests' findings
 * are its findings, unless a rule reads an id (a team rule's path, or an operator's pack, unseen here).
 * Every check spends the run's one regex budget and one check budget: thirty environments take no more than one.
 */
async function everyEnvironmentPolicy(
  state: DesiredState,
  { project, result, budgets }: { project: ProjectManifests; result: LoadResult; budgets: RunBudgets },
  options: ValidateOptions,
  ctx: CommandContext,
): Promise<PolicyReport> {
  const report = await checkPolicy(state, ctx, budgets);
  if (options.env !== undefined || !result.environments || result.environments.length === 0) return report;
  const idsRead = readsIds(state.policy) || Boolean(ctx.env[POLICY_PACKS_VARIABLE]?.trim());
  const overlays = new Map<string, PolicyReport>();
  for (const environment of result.environments) {
    if (!idsRead && result.placementOnlyEnvironments?.includes(environment)) continue;
    const loaded = await loadCommandManifests({ file: options.file, env: environment, withholdUnsetEnv: true }, ctx, project);
    if (loaded.state) overlays.set(environment, await checkPolicy(loaded.state, ctx, budgets));
  }
  return mergeEnvironmentReports(report, overlays);
}

/** Whether a team rule of the manifests' policy section may read a resource's `id` (its path, or a glob, starts there). */
function readsIds(policy: unknown): boolean {
  const custom = isPlainObject(policy) && Array.isArray(policy.custom) ? policy.custom : [];
  return custom.some((rule) => isPlainObject(rule) && typeof rule.path === 'string' && /^(id|\*)(\.|$)/.test(rule.path));
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
  const c = terminalColors(color);
  const { summary } = report;
  const problems = countProblems([], { errors: summary.errors, warnings: summary.warnings });
  // A clean policy says nothing: the line names findings only when there are some.
  const findings = report.policy ? report.policy.summary.mandatory + report.policy.summary.advisory + report.policy.summary.waived : 0;
  const policy = report.policy && findings > 0 ? `; ${policySummaryLine(report.policy)}` : '';
  if (summary.errors > 0 || !summary.resources) {
    return `${problems.text} in ${plural(summary.problemFiles, 'file')}`;
  }
  if (!report.valid) return `${c.red('✗')} policy violated${policy.replace(/^; policy/, '')}`;
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
  return `${c.green('✓')} ${what}${environment}${warned}: ${counts}${policy}`;
}
