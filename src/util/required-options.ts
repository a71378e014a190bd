/**
 * What a library call's types require of its options, checked when it is called: a caller in plain
 * JavaScript (no type check) is told which option is missing, as `invalid_option`, before anything
 * is read, instead of meeting a TypeError deep inside or planning against a workspace named
 * `default@undefined`.
 */
import { VoxformError } from '../errors.js';
import { formatCount } from './plural.js';
import { LONGEST_TIMER_MS } from './sleep.js';

/**
 * A form an entry declares of its own where the named kinds say too little: a count with an upper
 * bound, an object the call will call methods of, one of a few words. `described` is what an error
 * says the option must be.
 */
export interface Shape {
  readonly described: string;
  readonly fits: (value: unknown) => boolean;
}
type Required = 'text' | 'object' | 'list' | 'names' | 'function' | 'boolean' | 'count' | Shape;
/** What an option that may be left out must be when given: a number of a kind, an array, a callback, a signal… */
export type Optional = 'positive' | 'timer' | 'whole' | 'count' | 'page' | 'names' | 'string' | 'header' | 'object' | 'function' | 'boolean' | 'signal' | Shape;
type Named = Exclude<Required | Optional, Shape>;

/** A whole number from 1 to `most`: a count past it would exhaust the host (workers, timers) before anything is sent. */
export function countUpTo(most: number): Shape {
  return { described: `a whole number from 1 to ${formatCount(most)}`, fits: (value) => Number.isInteger(value) && (value as number) >= 1 && (value as number) <= most };
}

/**
 * An object whose `methods` are functions (its own or inherited): what the call will call. Checked
 * up front, as one that lacks them would fail only once the call is under way (a lock held, writes sent).
 */
export function withMethods(what: string, methods: readonly string[]): Shape {
  const fits = (value: unknown) => typeof value === 'object' && value !== null && methods.every((method) => typeof (value as Record<string, unknown>)[method] === 'function');
  return { described: `${what}: an object with the ${methods.length === 1 ? 'method' : 'methods'} ${methods.join(', ')}`, fits };
}

/** A non-empty array of `choices`, each at most once: a word misspelled is not taken for another. */
export function distinctChoices(choices: readonly string[]): Shape {
  const fits = (value: unknown) => Array.isArray(value) && value.length > 0 && new Set(value).size === value.length && value.every((item) => choices.includes(item as string));
  return { described: `a non-empty array of ${choices.map((choice) => `'${choice}'`).join(' or ')}, each at most once`, fits };
}

/** The manifests as `loadManifests` gives them: its result's `state`, not the result, a likely slip. */
export const DESIRED_STATE: Shape = {
  described: 'the manifests\' DesiredState: `loaded.state`, the `state` of what loadManifests resolves to',
  fits: (value) => typeof value === 'object' && value !== null && ['agents', 'phones', 'campaigns', 'knowledge', 'credentials'].every((map) => (value as Record<string, unknown>)[map] instanceof Map),
};

/** The most records a page of the service's lists holds (its `limit`'s maximum). */
const LARGEST_PAGE = 100;

/** `options` is an object holding each of `required` (none: an object at all), or the call is refused naming what is missing. */
export function requireOptions(call: string, options: unknown, required: Readonly<Record<string, Required>>): void {
  const isObject = isKind(options, 'object');
  const given = isObject ? (options as Record<string, unknown>) : {};
  const missing = Object.entries(required).filter(([name, kind]) => !isKind(given[name], kind));
  if (isObject && missing.length === 0) return;
  const named = missing.length === 0 ? 'its options (an object)' : `${missing.map(([name, kind]) => `\`${name}\` (${describe(kind)})`).join(', ')} among its options`;
  throw new VoxformError('invalid_option', `${call}() needs ${named}.`, { hint: `Pass ${missing.length === 1 ? 'it' : 'them'} as docs/library.md shows ${call}() called.` });
}

const DESCRIBED: Record<Named, string> = {
  text: 'a non-empty string',
  object: 'an object',
  list: 'an array',
  function: 'a function',
  boolean: 'true or false',
  count: 'a whole number of at least 1',
  positive: 'a number above 0',
  timer: `a number of milliseconds above 0, at most ${formatCount(LONGEST_TIMER_MS)} (the longest a timer waits)`,
  whole: 'a whole number of at least 0',
  names: 'an array of strings',
  string: 'a string',
  header: 'a string a request header can carry (no line break or other control character, nothing beyond Latin-1)',
  page: `a whole number from 1 to ${LARGEST_PAGE}`,
  signal: 'an AbortSignal',
};

function describe(kind: Required | Optional): string {
  return typeof kind === 'object' ? kind.described : DESCRIBED[kind];
}

/**
 * Refuses an option of `kinds` given (not undefined) but not of its kind, as `invalid_option` naming
 * it: a plain JavaScript caller's `parallelism: 'x'` or `targets: 'agent.a'` would otherwise meet a
 * RangeError deep inside, or be read letter by letter, and a callback or signal that is not one
 * would throw only once the call is under way (a lock held, writes sent). `within`: the option
 * that holds `options` (`backoff`), named with each of its own.
 */
export function checkOptionalOptions(call: string, options: object, kinds: Readonly<Record<string, Optional>>, within?: string): void {
  const given = options as Record<string, unknown>;
  for (const [name, kind] of Object.entries(kinds)) {
    const value = given[name];
    if (value === undefined || isKind(value, kind)) continue;
    const option = within === undefined ? name : `${within}.${name}`;
    throw new VoxformError('invalid_option', `${call}(): \`${option}\` must be ${describe(kind)}, not ${describeValue(value, kind)}.`, { hint: `Pass ${describe(kind)}, or leave \`${option}\` out, as docs/library.md describes ${call}().` });
  }
}

/** What was given, never quoted: an option may hold anything, a secret too. */
export function describeValue(value: unknown, kind: Required | Optional): string {
  if (kind === 'header' && typeof value === 'string') return 'one holding such a character';
  if (typeof value === 'number' || typeof value === 'boolean' || value === null || value === undefined) return String(value);
  if (value === '') return 'an empty string';
  if (Array.isArray(value)) return kind === 'names' ? 'an array holding other than strings' : 'another array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** `value`, an argument of `call` named `name`, is of `kind`, or the call is refused naming it, as an option would be. */
export function requireArgument(call: string, name: string, value: unknown, kind: Required): void {
  if (isKind(value, kind)) return;
  throw new VoxformError('invalid_option', `${call}() needs \`${name}\` (${describe(kind)}), not ${describeValue(value, kind)}.`, { hint: `Pass it as docs/library.md shows ${call}() called.` });
}

function isKind(value: unknown, kind: Required | Optional): boolean {
  if (typeof kind === 'object') return kind.fits(value);
  if (kind === 'count') return Number.isInteger(value) && (value as number) >= 1;
  if (kind === 'whole') return Number.isInteger(value) && (value as number) >= 0;
  if (kind === 'positive') return typeof value === 'number' && Number.isFinite(value) && value > 0;
  // A longer wait than a timer keeps fires at once: every request would time out.
  if (kind === 'timer') return typeof value === 'number' && value > 0 && value <= LONGEST_TIMER_MS;
  if (kind === 'names') return Array.isArray(value) && value.every((item) => typeof item === 'string');
  if (kind === 'list') return Array.isArray(value);
  if (kind === 'string') return typeof value === 'string';
  // What the HTTP library sends: one it refuses would read as the service being unreachable.
  if (kind === 'header') return typeof value === 'string' && !/[^\t\x20-\x7e\x80-\xff]/u.test(value);
  if (kind === 'page') return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= LARGEST_PAGE;
  if (kind === 'signal') return value instanceof AbortSignal;
  if (kind === 'text') return typeof value === 'string' && value !== '';
  if (kind === 'function') return typeof value === 'function';
  if (kind === 'boolean') return typeof value === 'boolean';
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
