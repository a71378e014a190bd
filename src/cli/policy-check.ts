/**
 * Policy as validate and plan run it: the operator's packs (VOXFORM_POLICY_PACKS) loaded, the rules
 * evaluated on the checked desired state with today's date, and for plan the changed prompts'
 * token counts and what the change relaxes against the operator's base revision.
 */
import type { DesiredState } from '../manifest/types.js';
import type { Plan } from '../plan/types.js';
import { evaluatePolicy } from '../policy/evaluate.js';
import { loadOperatorPacks } from '../policy/operator-packs.js';
import { promptTokenChanges, type PlanPolicy } from '../policy/plan-policy.js';
import { createTokenCounter } from '../policy/tokens.js';
import { mandatoryOnly, policyReportJson, renderFindingsText } from '../policy/render.js';
import type { PolicyReport, TokenCounter } from '../policy/types.js';
import { findRelaxations } from '../review/relaxations.js';
import { readBaseManifests, readHeadManifests } from '../review/read-manifests.js';
import { baseRefOf } from '../project-files/base-revision.js';
import { plural } from '../util/plural.js';
import type { RegexTimeBudget } from '../util/safe-regex.js';
import type { RuleCheckBudget } from '../policy/check-budget.js';
import type { CommandContext } from './context.js';
import { ListedProblemsError } from './error-text.js';

/** `how.regexBudget`, `how.checkBudget`: the command's, when it checks more than once (validate's environments); else the check's own. */
export async function checkPolicy(desired: DesiredState, ctx: CommandContext, how: { tokens?: TokenCounter; regexBudget?: RegexTimeBudget; checkBudget?: RuleCheckBudget } = {}): Promise<PolicyReport> {
  const packs = await loadOperatorPacks(ctx.env, ctx.cwd, desired.files);
  return evaluatePolicy(desired, { now: () => new Date(), packs, ...how });
}

/**
 * Stops a deploy of manifests that break a mandatory rule before anything is locked or sent: the
 * error lists the findings as validate prints them, and says nothing was applied.
 */
export async function refuseMandatoryViolations(desired: DesiredState, ctx: CommandContext): Promise<void> {
  const report = await checkPolicy(desired, ctx);
  if (report.summary.mandatory === 0) return;
  const mandatory = mandatoryOnly(report);
  throw new ListedProblemsError('policy_violated', { found: `The manifests fail the policy with ${plural(report.summary.mandatory, 'mandatory finding')}`, outcome: 'nothing was applied' }, {
    hint: 'Fix what each finding says, or waive it in the manifest\'s policy section with a reason and an expiry (docs/policy.md); `voxform validate` lists the findings.',
    listedIn: 'findings',
    problems: policyReportJson(mandatory).findings,
    listing: `${renderFindingsText(mandatory, { color: ctx.color })}\n`,
  });
}

/** The plan's policy block; `base`: the `--base` flag (else VOXFORM_BASE_REF); `paths`: the `-f` paths the manifests were found with. */
export async function planPolicy(plan: Plan, desired: DesiredState, ctx: CommandContext, review: { base: string | undefined; paths: readonly string[] }): Promise<PlanPolicy> {
  const tokens = createTokenCounter();
  const report = await checkPolicy(desired, ctx, { tokens });
  const promptTokens = await promptTokenChanges(plan.changes.filter((change) => change.action !== 'no-op'), desired, { tokens, secrets: ctx.secrets });
  const ref = baseRefOf(review.base, ctx.env);
  if (ref === undefined) return { report, promptTokens, base: undefined, relaxations: [] };
  const [baseManifests, headManifests] = await Promise.all([readBaseManifests(ref, review.paths, ctx.cwd, ctx.env), readHeadManifests(desired.files, ctx.cwd, ctx.env)]);
  const defaultLevels = new Map(report.rules.filter((rule) => rule.area !== 'team').map((rule) => [rule.id, rule.defaultLevel]));
  return { report, promptTokens, base: ref, relaxations: findRelaxations({ base: baseManifests, head: headManifests, defaultLevels }) };
}
