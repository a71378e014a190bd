/**
 * The manifest's `policy:` section → levels, team rules and waivers, each with where it is written.
 * The loader has checked its shape against the manifest schema; what the schema cannot know (rule
 * ids, regular expressions, team schemas) is checked here and reported as findings of the
 * `policy-invalid` rule, which no level or waiver turns off.
 */
import type { SourceLocation } from '../errors.js';
import { spanAt, type PathPart } from '../manifest/positions.js';
import { locationOf } from '../manifest/source.js';
import { didYouMean } from '../util/did-you-mean.js';
import { isPlainObject } from '../util/json-object.js';
import { POLICY_LEVELS, type PolicyLevel, type RuleHit } from './types.js';

export const POLICY_INVALID = 'policy-invalid';
export const WAIVER_EXPIRED = 'policy-waiver-expired';
export const WAIVER_UNUSED = 'policy-waiver-unused';
/** Team rules ran out of the checks of a run (check-budget.ts), so some values went unchecked. */
export const CHECK_BUDGET = 'policy-check-budget';
/** Rules of the policy section itself: always on, never waived. */
export const SECTION_RULE_IDS: readonly string[] = [POLICY_INVALID, WAIVER_EXPIRED, WAIVER_UNUSED, CHECK_BUDGET];

interface LevelSetting {
  level: PolicyLevel;
  location: SourceLocation;
}

export interface CustomRuleSpec {
  id: string;
  level: PolicyLevel;
  description: string | undefined;
  hint: string | undefined;
  resources: 'agents' | 'phones' | 'campaigns' | 'knowledge';
  path: string;
  pattern: string | undefined;
  not_pattern: string | undefined;
  max_length: number | undefined;
  max_tokens: number | undefined;
  required: boolean;
  one_of: Array<string | number | boolean> | undefined;
  schema: Record<string, unknown> | undefined;
  location: SourceLocation;
  /**
   * Where a part of the rule is written, for problems with it: a check's value (`['pattern']`), or
   * the key of a schema keyword (`['schema', 'properties', 'x', 'minimum']`, `which: 'key'`); else
   * the nearest part written above it.
   */
  at(path: readonly PathPart[], which?: 'key' | 'value'): SourceLocation;
}

export interface WaiverSpec {
  rule: string;
  resource: string;
  reason: string;
  expires: string;
  location: SourceLocation;
}

export interface PolicySection {
  levels: Map<string, LevelSetting>;
  custom: CustomRuleSpec[];
  waivers: WaiverSpec[];
  /** Where the section is (problems of the section as a whole), or undefined without one. */
  location: SourceLocation | undefined;
}

function locate(section: unknown, path: readonly PathPart[], fallback: SourceLocation, which: 'key' | 'value' = 'value'): SourceLocation {
  const span = spanAt(section, path, which);
  return span ? locationOf(span) : fallback;
}

const optionalString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const optionalNumber = (value: unknown): number | undefined => (typeof value === 'number' ? value : undefined);

/** The section as written (already schema-checked), with locations; `fallback` locates a section without spans. */
export function readPolicySection(section: unknown, fallback: SourceLocation): PolicySection {
  if (!isPlainObject(section)) return { levels: new Map(), custom: [], waivers: [], location: undefined };
  const location = locate(section, [], fallback);
  const levels = new Map<string, LevelSetting>();
  const rules = isPlainObject(section.rules) ? section.rules : {};
  for (const id of Object.keys(rules)) {
    const level = rules[id];
    if (typeof level === 'string' && (POLICY_LEVELS as readonly string[]).includes(level)) levels.set(id, { level: level as PolicyLevel, location: locate(section, ['rules', id], location) });
  }
  const custom = (Array.isArray(section.custom) ? section.custom : []).flatMap((entry, index): CustomRuleSpec[] => {
    if (!isPlainObject(entry) || typeof entry.id !== 'string' || typeof entry.path !== 'string') return [];
    const at = (path: readonly PathPart[], which: 'key' | 'value' = 'value') => locate(section, ['custom', index, ...path], location, which);
    return [
      {
        id: entry.id,
        level: (POLICY_LEVELS as readonly unknown[]).includes(entry.level) ? (entry.level as PolicyLevel) : 'mandatory',
        description: optionalString(entry.description),
        hint: optionalString(entry.hint),
        resources: entry.resources === 'phones' || entry.resources === 'campaigns' || entry.resources === 'knowledge' ? entry.resources : 'agents',
        path: entry.path,
        pattern: optionalString(entry.pattern),
        not_pattern: optionalString(entry.not_pattern),
        max_length: optionalNumber(entry.max_length),
        max_tokens: optionalNumber(entry.max_tokens),
        required: entry.required === true,
        one_of: Array.isArray(entry.one_of) ? (entry.one_of as Array<string | number | boolean>) : undefined,
        schema: isPlainObject(entry.schema) ? entry.schema : undefined,
        location: locate(section, ['custom', index, 'id'], location),
        at,
      },
    ];
  });
  const waivers = (Array.isArray(section.waivers) ? section.waivers : []).flatMap((entry, index): WaiverSpec[] => {
    if (!isPlainObject(entry)) return [];
    const { rule, resource, reason, expires } = entry;
    if (typeof rule !== 'string' || typeof resource !== 'string' || typeof reason !== 'string' || typeof expires !== 'string') return [];
    return [{ rule, resource, reason, expires, location: locate(section, ['waivers', index], location) }];
  });
  return { levels, custom, waivers, location };
}

/** A problem of the policy section: a `policy-invalid` finding, mandatory unless said otherwise, with its rule's hint unless it has its own. */
export interface SectionProblem extends RuleHit {
  level?: 'advisory';
  hint?: string;
}

/**
 * Problems the schema cannot see: unknown rule ids (with a likely meant one), rules that check the
 * policy section itself named by a level or a waiver, and a waiver whose reason is only blanks.
 * `packsLoaded`: whether any operator pack is loaded. Without one, an id no built-in or team rule
 * has may be a pack's that this machine does not load (a laptop, an editor), so naming it is
 * advisory; with packs loaded, an id none of them defines is a mistake.
 */
export function checkSectionRules(section: PolicySection, known: ReadonlySet<string>, packsLoaded: boolean): SectionProblem[] {
  const hits: SectionProblem[] = [];
  const unknown = (id: string, where: string, location: SourceLocation) => {
    const meant = didYouMean(id, known);
    const guess = meant ? `; did you mean "${meant}"?` : '';
    if (packsLoaded) {
      hits.push({ resource: 'policy', message: `${where} names rule "${id}", which does not exist${guess} (voxform policy list shows every rule)`, location });
      return;
    }
    hits.push({
      resource: 'policy',
      message: `${where} names rule "${id}", which is no built-in or team rule, and no pack loaded defines it${guess}`,
      location,
      level: 'advisory',
      hint: `An operator's pack (VOXFORM_POLICY_PACKS) may define it: where the pack is loaded, the entry is checked against it. Otherwise fix the id: voxform policy list shows every rule.`,
    });
  };
  for (const [id, setting] of section.levels) {
    if (SECTION_RULE_IDS.includes(id)) hits.push({ resource: 'policy', message: `policy.rules cannot set the level of "${id}": it checks the policy section itself and is always on`, location: setting.location });
    else if (!known.has(id)) unknown(id, 'policy.rules', setting.location);
  }
  for (const waiver of section.waivers) {
    if (SECTION_RULE_IDS.includes(waiver.rule)) hits.push({ resource: 'policy', message: `a waiver cannot name "${waiver.rule}": it checks the policy section itself and cannot be waived; fix what its finding says instead`, location: waiver.location });
    else if (!known.has(waiver.rule)) unknown(waiver.rule, 'a waiver', waiver.location);
    if (waiver.reason.trim() === '') hits.push({ resource: 'policy', message: `the waiver of "${waiver.rule}" for ${waiver.resource} gives no reason: say why the exception is allowed, and who approved it`, location: waiver.location });
  }
  return hits;
}
