/**
 * Rule packs in JavaScript, from the operator only: VOXFORM_POLICY_PACKS names ES modules
 * (comma-separated paths, relative to the working directory) whose `rules` export is a list of
 * PolicyRule. The environment is the operator's, like every flag (docs/security.md); nothing in a
 * manifest can name a pack, so no code from the repository runs.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { VoxformError } from '../errors.js';
import { POLICY_LEVELS, type PolicyRule } from './types.js';

export const POLICY_PACKS_VARIABLE = 'VOXFORM_POLICY_PACKS';

export interface OperatorPack {
  /** The path as the operator wrote it. */
  name: string;
  rules: PolicyRule[];
}

const RULE_ID = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;

function refuse(pack: string, why: string): never {
  throw new VoxformError('policy_pack_invalid', `policy pack ${pack} (${POLICY_PACKS_VARIABLE}) ${why}.`, {
    hint: 'A pack is an ES module exporting `rules`: a list of { id, area, level, summary, hint, check(subject) } (docs/policy.md).',
  });
}

function asRule(pack: string, value: unknown, index: number): PolicyRule {
  const rule = value as Partial<PolicyRule> | null;
  if (!rule || typeof rule !== 'object') refuse(pack, `has rule ${index + 1} that is not an object`);
  if (typeof rule.id !== 'string' || !RULE_ID.test(rule.id)) refuse(pack, `has rule ${index + 1} without a valid id (lower-case words joined by "-")`);
  if (!POLICY_LEVELS.includes(rule.level as never)) refuse(pack, `has rule "${rule.id}" whose level is not mandatory, advisory or off`);
  if (typeof rule.check !== 'function') refuse(pack, `has rule "${rule.id}" without a check function`);
  return { id: rule.id, area: 'operator', level: rule.level as PolicyRule['level'], summary: String(rule.summary ?? rule.id), hint: String(rule.hint ?? ''), check: rule.check.bind(rule) };
}

/** The packs VOXFORM_POLICY_PACKS names, loaded; none when it is unset. */
export async function loadOperatorPacks(env: Readonly<Record<string, string | undefined>>, cwd: string): Promise<OperatorPack[]> {
  const names = (env[POLICY_PACKS_VARIABLE] ?? '').split(',').map((name) => name.trim()).filter((name) => name !== '');
  const packs: OperatorPack[] = [];
  for (const name of names) {
    let module: { rules?: unknown; default?: { rules?: unknown } };
    try {
      module = (await import(pathToFileURL(path.resolve(cwd, name)).href)) as typeof module;
    } catch (error) {
      refuse(name, `could not be loaded: ${(error as Error).message}`);
    }
    const rules = module.rules ?? module.default?.rules;
    if (!Array.isArray(rules)) refuse(name, 'exports no `rules` list');
    packs.push({ name, rules: rules.map((rule, index) => asRule(name, rule, index)) });
  }
  return packs;
}
