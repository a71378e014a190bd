/**
 * How diagnostics name places: inside an agent's config as the config path (`flow.interruption`),
 * as users write it; elsewhere by resource (`agent "front-desk"`). Values: util/describe-value.ts.
 */
import { formatIndexed } from '../util/field-path.js';
import { pluralNoun } from '../util/plural.js';
import type { PathPart, ValuePath } from './positions.js';

/** What one resource of each section is called. */
export const SECTION_NOUN = { agents: 'agent', phones: 'phone', campaigns: 'campaign', knowledge: 'knowledge file' } as const;

/** The path of a value inside an agent config, when `fullPath` (from the manifest root) is in one. */
export function configPathOf(fullPath: ValuePath): PathPart[] | undefined {
  const path = withoutEnvironment(fullPath);
  if (path[0] === 'agents' && path.length >= 3 && path[2] === 'config') return path.slice(3);
  if (path[0] === 'defaults' && path[1] === 'config') return path.slice(2);
  return undefined;
}

function withoutEnvironment(fullPath: ValuePath): PathPart[] {
  return fullPath[0] === 'environments' && fullPath.length > 2 ? fullPath.slice(2) : [...fullPath];
}

/** A place in the manifest, for messages: "flow.response_delay", "agent "front-desk"", "id of campaign "spring"". */
export function describePlace(fullPath: ValuePath): string {
  const config = configPathOf(fullPath);
  if (config) return config.length === 0 ? 'config' : formatIndexed(config);
  if (fullPath[0] === 'environments' && fullPath.length === 2) return `environment "${String(fullPath[1])}"`;
  const path = withoutEnvironment(fullPath);
  const section = path[0];
  const resource =
    typeof section === 'string' && Object.hasOwn(SECTION_NOUN, section)
      ? `${SECTION_NOUN[section as keyof typeof SECTION_NOUN]} "${String(path[1])}"`
      : section === 'credentials' && `credential ${Number(path[1]) + 1}`;
  if (resource && path.length >= 2) return path.length === 2 ? resource : `${formatIndexed(path.slice(2))} of ${resource}`;
  return path.length === 0 ? 'the manifest' : formatIndexed(path);
}

/** "in flow.interruption", "in agent "front-desk"", "at the top level". */
export function describeContainer(fullPath: ValuePath): string {
  return fullPath.length === 0 ? 'at the top level' : `in ${describePlace(fullPath)}`;
}

/**
 * " (environment staging)": how a problem or a finding that only environments' overlays bring, where
 * each environment is checked (`validate` without `--env`), names them; nothing for none.
 */
export function inEnvironmentsNote(environments: readonly string[]): string {
  return environments.length === 0 ? '' : ` (${pluralNoun(environments.length, 'environment')} ${environments.join(', ')})`;
}
