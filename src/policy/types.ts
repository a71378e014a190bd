/**
 * Policy as code: rules a reviewer would enforce, checked on every validate and plan. A rule looks
 * at the checked desired state (with the source positions the manifest loader kept) and reports
 * hits; levels, waivers and the team's own rules come from the manifest's `policy:` section, and
 * extra rule packs from the operator only (docs/policy.md).
 */
import type { SourceLocation } from '../errors.js';
import type { DesiredState } from '../manifest/types.js';

/** `mandatory` fails validate and plan (exit 1), `advisory` is shown and does not, `off` is not checked. */
export type PolicyLevel = 'mandatory' | 'advisory' | 'off';
export const POLICY_LEVELS: readonly PolicyLevel[] = ['mandatory', 'advisory', 'off'];

/** How strict a level is: a relaxation lowers it. */
export const LEVEL_RANK: Record<PolicyLevel, number> = { off: 0, advisory: 1, mandatory: 2 };

export type PolicyArea = 'personal-data' | 'speech' | 'security' | 'behaviour' | 'campaigns' | 'cost' | 'team' | 'operator' | 'policy';

/** One thing a rule found, before levels and waivers apply. Never holds a secret or a personal datum. */
export interface RuleHit {
  /** The resource's address: `agent.front-desk`, `campaign.recall`, … (what a waiver names). */
  resource: string;
  /** One sentence: what is wrong, where in the resource. */
  message: string;
  location: SourceLocation;
}

/** What a rule is given: the desired state with its secrets withheld (withheld-state.ts), and a token counter that loads the tokenizer only when asked. */
export interface PolicySubject {
  desired: DesiredState;
  tokens: TokenCounter;
}

export interface TokenCounter {
  /** The tokenizer's name, as output names it (`o200k_base`). */
  readonly encoding: string;
  /** The token count of `text` when it is over `limit`, else undefined (a short text never loads the tokenizer). */
  over(text: string, limit: number): Promise<number | undefined>;
  count(text: string): Promise<number>;
}

export interface PolicyRule {
  /** Stable id, lower-case words joined by `-`: what `policy.rules`, waivers and SARIF name. */
  id: string;
  area: PolicyArea;
  /** The level when nothing sets another. */
  level: PolicyLevel;
  /** One sentence: what the rule checks. */
  summary: string;
  /** How to fix a finding. */
  hint: string;
  check(subject: PolicySubject): RuleHit[] | Promise<RuleHit[]>;
}

/** Where a rule's level was decided (`fixed`: a rule of the policy section itself, always on). */
export type LevelSource = { kind: 'default' } | { kind: 'fixed' } | { kind: 'manifest'; location: SourceLocation } | { kind: 'operator'; pack: string };

export interface RuleStatus {
  id: string;
  area: PolicyArea;
  level: PolicyLevel;
  /** The rule's own level, before the manifest. */
  defaultLevel: PolicyLevel;
  source: LevelSource;
  /** Where the rule itself comes from, whatever set its level: built in (`default`, `fixed`), a team rule's `id` in the manifest, an operator pack. */
  origin: LevelSource;
  summary: string;
  hint: string;
}

export interface Finding extends RuleHit {
  rule: string;
  level: Exclude<PolicyLevel, 'off'>;
  hint: string;
  /** Set when only environment overlays bring it (`validate` without `--env`): those environments. */
  environments?: string[];
}

export interface WaiverStatus {
  rule: string;
  resource: string;
  reason: string;
  /** YYYY-MM-DD: the last day it holds. */
  expires: string;
  location: SourceLocation;
  /** `in-force`: silences its findings; `expired`: a violation itself; `unused`: matched no finding. */
  state: 'in-force' | 'expired' | 'unused';
}

export interface PolicyReport {
  /** The tokenizer token counts are made with. */
  tokenizer: string;
  rules: RuleStatus[];
  /** Findings no waiver silences, sorted by file and position. */
  findings: Finding[];
  /** Findings a waiver in force silences. */
  waived: Finding[];
  waivers: WaiverStatus[];
  summary: { mandatory: number; advisory: number; waived: number };
}
