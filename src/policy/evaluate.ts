/**
 * `evaluatePolicy`: the desired state → findings. Rules come from the built-in pack, the operator's
 * packs and the manifest's team rules; the manifest sets their levels, but only raises an operator's
 * rule; waivers in force silence one rule for one resource (never a finding of an operator's
 * mandatory rule), and an expired waiver is a violation of its own. Time comes from `now`,
 * so a test fixes the day.
 */
import { LONGEST_TIMER_MS } from '../util/sleep.js';
import { VoxformError, type SourceLocation } from '../errors.js';
import type { DesiredState } from '../manifest/types.js';
import { SecretRegistry } from '../secrets/redact.js';
import { RegexTimeBudget } from '../util/safe-regex.js';
import { RuleCheckBudget } from './check-budget.js';
import { compileCustomRule, type TeamRule } from './custom-rules.js';
import { operatorRules, type OperatorPack } from './operator-packs.js';
import { BUILT_IN_RULES } from './rules/index.js';
import { CHECK_BUDGET, checkSectionRules, POLICY_INVALID, readPolicySection, WAIVER_EXPIRED, WAIVER_UNUSED, type PolicySection, type SectionProblem, type WaiverSpec } from './section.js';
import { createTokenCounter } from './tokens.js';
import { afterPendingSignals } from '../util/sync-slices.js';
import { withheldState } from './withheld-state.js';
import { KeptFindings } from './kept-findings.js';
import { formatCount, plural, someOf } from '../util/plural.js';
import { LEVEL_RANK, type Finding, type PolicyReport, type PolicyRule, type RuleHit, type RuleStatus, type TokenCounter, type WaiverStatus } from './types.js';
import { DESIRED_STATE, requireArgument, requireOptions } from '../util/required-options.js';
import { byCodeUnits } from '../util/compare.js';

export interface PolicyOptions {
  /** Today, as the waivers' expiry dates are read (UTC). */
  now: () => Date;
  /** Rule packs: those VOXFORM_POLICY_PACKS names (operator-packs.ts), or a library caller's own. */
  packs?: readonly OperatorPack[];
  tokens?: TokenCounter;
  /**
   * The time team rules' regular expressions may take: the run's, shared by every evaluation of one
   * command (`validate` checks each environment), so more environments never mean more time. Default: a budget of its own.
   */
  regexBudget?: RegexTimeBudget | undefined;
  /** The checks team rules may make (check-budget.ts): the run's, shared as `regexBudget` is. Default: a budget of its own. */
  checkBudget?: RuleCheckBudget | undefined;
  /** How long one check of a pack's rule may take, ms. Default: PACK_CHECK_TIME_LIMIT_MS. */
  packCheckLimitMs?: number | undefined;
}

/** The rules of the policy section itself: always on, at these levels. */
export const SECTION_RULES: readonly RuleStatus[] = [
  { id: POLICY_INVALID, summary: 'The policy section names rules that exist, its team rules compile, and it lowers no operator\'s rule.', hint: 'Fix the policy section: voxform policy list shows every rule id.', level: 'mandatory' },
  { id: WAIVER_EXPIRED, summary: 'No waiver past its expiry date.', hint: 'Fix what the waiver excused, or renew it with a new date and reason in review.', level: 'mandatory' },
  { id: WAIVER_UNUSED, summary: 'Every waiver silences a finding.', hint: 'Remove the waiver: the rule finds nothing for that resource (or the resource is misspelled).', level: 'advisory' },
  { id: CHECK_BUDGET, summary: 'Team rules are checked in full, within the checks of a run.', hint: 'Narrow the team rules\' paths: a "*" reaches every key or item, and each value a path reaches is one check (docs/policy.md).', level: 'mandatory' },
].map((rule) => ({ ...rule, area: 'policy', defaultLevel: rule.level, source: { kind: 'fixed' }, origin: { kind: 'fixed' } }) as RuleStatus);

const SECTION_HINTS: Record<string, string> = Object.fromEntries(SECTION_RULES.map((rule) => [rule.id, rule.hint]));

/**
 * The rule set and each rule's level, with where it was set; problems of the section (team rules
 * that do not compile, unknown ids, an attempt to lower an operator's rule) as hits. The manifest is
 * the pull request's and an operator's pack the operator's (docs/security.md): a level that would
 * lower a pack rule's, and a waiver of a pack rule the pack makes mandatory, do not take effect
 * (the waiver is left out of the returned section's) and are problems. `desired.secrets`: hidden in what a pack's check throws.
 */
export async function resolveRules(
  desired: Pick<DesiredState, 'policy' | 'files'> & { secrets?: readonly string[] },
  options: { packs?: readonly OperatorPack[] | undefined; fallback: SourceLocation; regexBudget?: RegexTimeBudget | undefined; checkBudget?: RuleCheckBudget | undefined; packCheckLimitMs?: number | undefined },
): Promise<{ section: PolicySection; rules: Array<{ rule: PolicyRule; status: RuleStatus }>; problems: SectionProblem[] }> {
  const section = readPolicySection(desired.policy, options.fallback);
  const problems: SectionProblem[] = [];
  const rules: Array<{ rule: PolicyRule; source: RuleStatus['source'] }> = BUILT_IN_RULES.map((rule) => ({ rule, source: { kind: 'default' } }));
  const taken = new Set(rules.map(({ rule }) => rule.id));
  const secrets = new SecretRegistry();
  for (const value of desired.secrets ?? []) secrets.add(value);
  const packRules = operatorRules(options.packs ?? [], taken, (text) => secrets.redact(text), options.packCheckLimitMs);
  for (const { pack, rule } of packRules) rules.push({ rule, source: { kind: 'operator', pack } });
  const regexBudget = options.regexBudget ?? new RegexTimeBudget();
  const checkBudget = options.checkBudget ?? new RuleCheckBudget();
  for (const spec of section.custom) {
    if (taken.has(spec.id)) {
      problems.push({ resource: 'policy', message: `team rule "${spec.id}" has the id of another rule; choose another id`, location: spec.location });
      continue;
    }
    taken.add(spec.id);
    const compiled = await compileCustomRule(spec, { regexBudget, checkBudget });
    if ('problems' in compiled) problems.push(...compiled.problems);
    else rules.push({ rule: compiled.rule, source: { kind: 'manifest', location: spec.location } });
  }
  problems.push(...checkSectionRules(section, taken, (options.packs ?? []).length > 0));
  const lowered = new Set<string>();
  for (const { rule, source } of rules) {
    const setting = section.levels.get(rule.id);
    if (source.kind !== 'operator' || !setting || LEVEL_RANK[setting.level] >= LEVEL_RANK[rule.level]) continue;
    lowered.add(rule.id);
    problems.push({
      resource: 'policy',
      message: `policy.rules.${rule.id} cannot lower the operator's rule ${rule.id} (${rule.level})`,
      location: setting.location,
      hint: `Remove the entry: the operator sets ${rule.id}'s level in policy pack ${source.pack}, and the manifest may only raise it; ask the operator to change the pack.`,
    });
  }
  const operatorMandatory = new Map(packRules.filter(({ rule }) => rule.level === 'mandatory').map(({ pack, rule }) => [rule.id, pack]));
  const waivers = section.waivers.filter((waiver) => {
    const pack = operatorMandatory.get(waiver.rule);
    if (pack === undefined) return true;
    problems.push({
      resource: 'policy',
      message: `a waiver cannot silence the operator's rule ${waiver.rule} (mandatory) for ${waiver.resource}`,
      location: waiver.location,
      hint: `Remove the waiver and fix what the finding says: the operator makes ${waiver.rule} mandatory in policy pack ${pack}, so only the operator can make an exception.`,
    });
    return false;
  });
  return {
    section: { ...section, waivers },
    problems,
    rules: rules.map(({ rule, source }) => {
      const setting = lowered.has(rule.id) ? undefined : section.levels.get(rule.id);
      const status: RuleStatus = {
        id: rule.id,
        area: rule.area,
        level: setting?.level ?? rule.level,
        defaultLevel: rule.level,
        source: setting ? { kind: 'manifest', location: setting.location } : source,
        origin: source,
        summary: rule.summary,
        hint: rule.hint,
      };
      return { rule, status };
    }),
  };
}

/**
 * The order findings are listed in: a run that ran out of checks first (it says what the counts
 * leave unchecked, so it is kept and shown whatever else was found), then by file and position.
 */
export function listingOrder(a: Finding, b: Finding): number {
  return Number(b.rule === CHECK_BUDGET) - Number(a.rule === CHECK_BUDGET) || byCodeUnits(a.location.file, b.location.file) || a.location.line - b.location.line || a.location.col - b.location.col || byCodeUnits(a.rule, b.rule);
}

/** `YYYY-MM-DD` of a date, in UTC. */
function dayOf(date: Date): string {
  return date.toISOString().slice(0, 10);
}

function waiverKey(rule: string, resource: string): string {
  return `${rule}\0${resource}`;
}

export async function evaluatePolicy(desired: DesiredState, options: PolicyOptions): Promise<PolicyReport> {
  requireArgument('evaluatePolicy', 'desired', desired, DESIRED_STATE);
  requireOptions('evaluatePolicy', options, { now: 'function' });
  // A longer limit than a timer keeps would fire at once, blaming a pack that settles in time.
  const limit = options.packCheckLimitMs;
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= LONGEST_TIMER_MS)) {
    throw new VoxformError('invalid_option', `evaluatePolicy()'s packCheckLimitMs must be a whole number of milliseconds from 1 to ${formatCount(LONGEST_TIMER_MS)}.`, {
      hint: 'Leave it out for the default (60,000), or pass how long one check of a pack may take.',
    });
  }
  const tokens = options.tokens ?? createTokenCounter();
  const fallback = [...desired.agents.values(), ...desired.phones.values()][0]?.source ?? { file: desired.files[0] ?? 'voxform.yaml', line: 1, col: 1 };
  const checkBudget = options.checkBudget ?? new RuleCheckBudget();
  const { section, rules, problems } = await resolveRules(desired, { packs: options.packs, fallback, regexBudget: options.regexBudget, checkBudget, packCheckLimitMs: options.packCheckLimitMs });
  // Every rule reads the state with its secrets withheld: the one view of docs/security.md §11.
  const subject = { desired: withheldState(desired), tokens };
  const sectionFinding = (rule: string, level: Finding['level'], hit: RuleHit): Finding => ({ resource: hit.resource, message: hit.message, location: hit.location, rule, level, hint: SECTION_HINTS[rule] as string });

  const today = dayOf(options.now());
  const inForce = new Map<string, WaiverSpec>();
  const waivers: WaiverStatus[] = [];
  const active = new KeptFindings();
  for (const problem of problems) active.add({ ...sectionFinding(POLICY_INVALID, problem.level ?? 'mandatory', problem), ...(problem.hint ? { hint: problem.hint } : {}) });
  for (const waiver of section.waivers) {
    const state = waiver.expires < today ? 'expired' : 'in-force';
    if (state === 'expired') {
      active.add(sectionFinding(WAIVER_EXPIRED, 'mandatory', { resource: 'policy', message: `the waiver of ${waiver.rule} for ${waiver.resource} expired on ${waiver.expires}`, location: waiver.location }));
    } else {
      inForce.set(waiverKey(waiver.rule, waiver.resource), waiver);
    }
    waivers.push({ rule: waiver.rule, resource: waiver.resource, reason: waiver.reason, expires: waiver.expires, location: waiver.location, state });
  }
  // Each finding is sorted into waived or not as it comes, and only the first ones kept (kept-findings.ts): the rest are counted.
  const waived = new KeptFindings();
  const used = new Set<string>();
  const notInFull: string[] = [];
  for (const { rule, status } of rules) {
    const level = status.level;
    if (level === 'off') continue;
    const found = (resource: string, build: () => RuleHit) => {
      const key = waiverKey(rule.id, resource);
      const finding = (): Finding => ({ ...build(), rule: rule.id, level, hint: rule.hint });
      if (inForce.has(key)) {
        used.add(key);
        waived.offer(level, finding);
      } else {
        active.offer(level, finding);
      }
    };
    if (isTeamRule(rule)) {
      if (!(await rule.checkEach(subject, found))) notInFull.push(rule.id);
    } else {
      for (const hit of await rule.check(subject)) found(hit.resource, () => hit);
    }
  }
  if (notInFull.length > 0) {
    const teamRules = rules.filter(({ rule, status }) => isTeamRule(rule) && status.level !== 'off').length;
    const location = section.custom.find((spec) => spec.id === notInFull[0])?.location ?? section.location ?? fallback;
    active.addAhead(sectionFinding(CHECK_BUDGET, 'mandatory', { resource: 'policy', message: checksRanOut(checkBudget, notInFull, teamRules), location }));
  }
  // A signal that came while a check held the thread (a team rule's pattern, an operator's check) stops the run before it reports.
  await afterPendingSignals();
  for (const waiver of waivers) {
    const key = waiverKey(waiver.rule, waiver.resource);
    if (waiver.state !== 'in-force' || used.has(key)) continue;
    waiver.state = 'unused';
    active.add(sectionFinding(WAIVER_UNUSED, 'advisory', { resource: 'policy', message: `the waiver of ${waiver.rule} for ${waiver.resource} matches no finding`, location: waiver.location }));
  }
  const waivedTotal = waived.total;
  return {
    tokenizer: tokens.encoding,
    rules: [...rules.map(({ status }) => status), ...SECTION_RULES],
    findings: active.kept().sort(listingOrder),
    waived: waived.kept().sort(listingOrder),
    waivers,
    summary: { ...active.total, waived: waivedTotal.mandatory + waivedTotal.advisory },
  };
}

function isTeamRule(rule: PolicyRule): rule is TeamRule {
  return 'checkEach' in rule;
}

/** What a run that ran out of checks left unchecked, and which rules made the most of them. */
function checksRanOut(budget: RuleCheckBudget, notInFull: readonly string[], teamRules: number): string {
  const quoted = (ids: readonly string[]) => ids.map((id) => `"${id}"`);
  const heaviest = quoted(budget.heaviestOwners(3));
  const madeBy = heaviest.length > 0 ? `; most checks were made by ${heaviest.join(', ')}` : '';
  return `team rules were not all checked: the ${formatCount(budget.total)} checks of a run (one per value a rule's path reaches) ran out, leaving ${formatCount(notInFull.length)} of ${plural(teamRules, 'team rule')} not checked in full (${someOf(quoted(notInFull), 3)})${madeBy}`;
}
