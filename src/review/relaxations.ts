/**
 * What a pull request relaxes, found by comparing the manifests at the base revision with the
 * pull request's. Each detector is a pure function of the two; a reviewer sees their findings at
 * the top of the plan ("policy relaxed"). A new kind of relaxation is one more detector in
 * RELAXATION_DETECTORS.
 */
import type { SourceLocation } from '../errors.js';
import { relaxationPlace, type Relaxation } from '../policy/plan-policy.js';
import { readPolicySection, type PolicySection } from '../policy/section.js';
import { LEVEL_RANK, type PolicyLevel } from '../policy/types.js';
import { promotionsOfDocuments } from '../manifest/promotion.js';
import { gateRelaxations } from '../promote/relaxations.js';
import { isPlainObject } from '../util/json-object.js';
import { jsonEqual } from '../util/json-equal.js';

export type { Relaxation } from '../policy/plan-policy.js';

/** One manifest file's YAML documents, parsed: at the base revision (values only) or in the pull request (spans attached). */
export interface ManifestDocuments {
  /** The file as output shows it (relative to the working directory). */
  file: string;
  documents: Array<Record<string, unknown>>;
}

interface ReviewInput {
  /** The manifests at the base revision: what the same `-f` paths find there (renamed, moved or deleted files included). */
  base: readonly ManifestDocuments[];
  /** The manifests of the pull request. */
  head: readonly ManifestDocuments[];
  /** The level each rule has when no manifest sets one (built-in and operator rules), by id. */
  defaultLevels: ReadonlyMap<string, PolicyLevel>;
}

type RelaxationDetector = (input: ReviewInput) => Relaxation[];

const NOWHERE: SourceLocation = { file: '', line: 0, col: 0 };

/** The `policy:` section of a set of manifests (a manifest has at most one; the loader refuses two). */
function policyOf(files: readonly ManifestDocuments[]): PolicySection {
  for (const file of files) {
    for (const document of file.documents) {
      if (isPlainObject(document.policy)) return readPolicySection(document.policy, { ...NOWHERE, file: file.file, line: 1, col: 1 });
    }
  }
  return readPolicySection(undefined, NOWHERE);
}

/** Every rule's level, built-in and team, as a policy section sets it (with where). */
function levelsOf(section: PolicySection, defaults: ReadonlyMap<string, PolicyLevel>): Map<string, { level: PolicyLevel; location: SourceLocation | undefined }> {
  const levels = new Map<string, { level: PolicyLevel; location: SourceLocation | undefined }>();
  for (const [id, level] of defaults) levels.set(id, { level, location: undefined });
  for (const rule of section.custom) levels.set(rule.id, { level: rule.level, location: rule.location });
  for (const [id, setting] of section.levels) levels.set(id, { level: setting.level, location: setting.location });
  return levels;
}

/** A rule whose level the pull request lowers (mandatory → advisory, anything → off), or a team rule it removes. */
const levelsLowered: RelaxationDetector = ({ base, head, defaultLevels }) => {
  const before = levelsOf(policyOf(base), defaultLevels);
  const after = levelsOf(policyOf(head), defaultLevels);
  const out: Relaxation[] = [];
  for (const [id, was] of before) {
    const now = after.get(id);
    if (!now) {
      out.push({ kind: 'team-rule-removed', message: `team rule ${id} (${was.level}) is removed` });
    } else if (LEVEL_RANK[now.level] < LEVEL_RANK[was.level]) {
      out.push({ kind: 'level-lowered', message: `rule ${id} is lowered from ${was.level} to ${now.level}`, ...relaxationPlace(now.location) });
    }
  }
  return out;
};

/** A waiver the pull request adds, or one whose expiry it moves later. */
const waiversAdded: RelaxationDetector = ({ base, head }) => {
  const before = new Map(policyOf(base).waivers.map((w) => [`${w.rule}\0${w.resource}`, w]));
  const out: Relaxation[] = [];
  for (const waiver of policyOf(head).waivers) {
    const was = before.get(`${waiver.rule}\0${waiver.resource}`);
    if (!was) {
      out.push({ kind: 'waiver-added', message: `a waiver of ${waiver.rule} for ${waiver.resource} is added, until ${waiver.expires}: "${waiver.reason}"`, ...relaxationPlace(waiver.location) });
    } else if (waiver.expires > was.expires) {
      out.push({ kind: 'waiver-extended', message: `the waiver of ${waiver.rule} for ${waiver.resource} is extended from ${was.expires} to ${waiver.expires}`, ...relaxationPlace(waiver.location) });
    }
  }
  return out;
};

/**
 * A team rule the pull request keeps but makes check less: a check removed, a limit raised, the
 * value no longer required, or what it reads or matches changed (a pattern `.*`, or a path that
 * names nothing, disables a rule as surely as removing it, and which way a changed pattern goes
 * is the reviewer's call). A limit lowered or a check added is left alone: it checks more.
 */
const teamRulesLoosened: RelaxationDetector = ({ base, head }) => {
  const after = new Map(policyOf(head).custom.map((rule) => [rule.id, rule]));
  const out: Relaxation[] = [];
  for (const was of policyOf(base).custom) {
    const now = after.get(was.id);
    if (!now) continue; // removed: levelsLowered says so
    for (const field of RULE_CHECKS) {
      const change = loosened(field, was[field], now[field]);
      if (change) out.push({ kind: 'team-rule-loosened', message: `team rule ${was.id}: ${field} ${change}`, ...relaxationPlace(now[field] === undefined ? now.location : now.at([field])) });
    }
  }
  return out;
};

/** What a team rule reads and checks (src/policy/section.ts), in the order a rule is written. */
const RULE_CHECKS = ['resources', 'path', 'pattern', 'not_pattern', 'max_length', 'max_tokens', 'required', 'one_of', 'schema'] as const;

/** How a check got looser from `was` to `now`, as words after its name; undefined when it did not. */
function loosened(field: (typeof RULE_CHECKS)[number], was: unknown, now: unknown): string | undefined {
  if (jsonEqual(was, now) || was === undefined || was === false) return undefined;
  if (now === undefined || now === false) return `is no longer checked (was ${JSON.stringify(was)})`;
  if ((field === 'max_length' || field === 'max_tokens') && (now as number) < (was as number)) return undefined;
  const verb = field === 'max_length' || field === 'max_tokens' ? 'raised' : 'changed';
  return `${verb} from ${JSON.stringify(was)} to ${JSON.stringify(now)}`;
}

/** A promotion gate the pull request weakens or removes (src/promote/relaxations.ts). */
const gatesWeakened: RelaxationDetector = ({ base, head }) => {
  const promotionsOf = (files: readonly ManifestDocuments[]) => promotionsOfDocuments(files.flatMap((file) => file.documents));
  return gateRelaxations(promotionsOf(base), promotionsOf(head));
};

/** Every detector a plan runs; promotion gates and other reviews add theirs here. */
export const RELAXATION_DETECTORS: readonly RelaxationDetector[] = [levelsLowered, teamRulesLoosened, waiversAdded, gatesWeakened];

export function findRelaxations(input: ReviewInput, detectors: readonly RelaxationDetector[] = RELAXATION_DETECTORS): Relaxation[] {
  return detectors.flatMap((detect) => detect(input));
}
