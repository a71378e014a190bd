/**
 * How diagnostics name places and values: inside an agent's config as the config path
 * (`flow.interruption`), as users write it; elsewhere by resource (`agent "front-desk"`).
 */
import { formatIndexed } from '../util/field-path.js';
import type { PathPart, ValuePath } from './positions.js';
import { wordList } from '../util/plural.js';
import { shorten } from '../util/shorten.js';

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

const TYPE_PHRASES: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  integer: 'a whole number',
  boolean: 'a boolean (true or false)',
  object: 'an object (key: value pairs)',
  array: 'a list',
  null: 'null',
};

/** "a string", "a string or an object (key: value pairs)". */
export function describeExpected(types: readonly string[]): string {
  const phrases = [...new Set(types.map((t) => TYPE_PHRASES[t.startsWith('an object with') ? 'object' : t] ?? t))];
  return phrases.length === 0 ? 'something else' : wordList(phrases, 'or');
}

/**
 * How a message names a value found where another belongs. `shows` is what of it the message may show:
 * - 'value': "a string ("fast")", "a number (3)", "a list";
 * - 'kind', for a secret: "a string", "a number", never the value;
 * - 'all but text', for a file voxform wrote, whose strings may be secrets: "a string", "the number 3",
 *   "true", and "missing" for an absent field.
 */
export function describeFound(value: unknown, shows: 'value' | 'kind' | 'all but text'): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'a list';
  switch (typeof value) {
    case 'string':
      return shows === 'value' ? `a string (${quote(value)})` : 'a string';
    case 'number':
      return shows === 'value' ? `a number (${value})` : shows === 'kind' ? 'a number' : `the number ${value}`;
    case 'boolean':
      return shows === 'value' ? `a boolean (${value})` : shows === 'kind' ? 'a boolean' : String(value);
    case 'object':
      return 'an object';
    case 'undefined':
      return shows === 'all but text' ? 'missing' : 'undefined';
    default:
      return shows === 'all but text' ? String(value) : typeof value;
  }
}

/**
 * `is the number 3, where a string belongs`: the rest of a sentence that starts with the place of a
 * value in a file voxform wrote (the state, the emulator's data file), its strings never shown.
 */
export function foundInsteadOf(found: unknown, expected: string): string {
  return `is ${describeFound(found, 'all but text')}, where ${expected} belongs`;
}

/** A value quoted for a message, values over 40 characters shortened. */
export function quote(value: string): string {
  return JSON.stringify(shorten(value, 40));
}
