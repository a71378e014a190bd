/**
 * What a library call's types require of its options, checked when it is called: a caller in plain
 * JavaScript (no type check) is told which option is missing, as `invalid_option`, before anything
 * is read, instead of meeting a TypeError deep inside or planning against a workspace named
 * `default@undefined`.
 */
import { VoxformError } from '../errors.js';

type Required = 'text' | 'object' | 'list' | 'function' | 'boolean';

/** `options` is an object holding each of `required` (none: an object at all), or the call is refused naming what is missing. */
export function requireOptions(call: string, options: unknown, required: Readonly<Record<string, Required>>): void {
  const isObject = isKind(options, 'object');
  const given = isObject ? (options as Record<string, unknown>) : {};
  const missing = Object.entries(required).filter(([name, kind]) => !isKind(given[name], kind));
  if (isObject && missing.length === 0) return;
  const named = missing.length === 0 ? 'its options (an object)' : `${missing.map(([name, kind]) => `\`${name}\` (${DESCRIBED[kind]})`).join(', ')} among its options`;
  throw new VoxformError('invalid_option', `${call}() needs ${named}.`, { hint: `Pass ${missing.length === 1 ? 'it' : 'them'} as docs/library.md shows ${call}() called.` });
}

const DESCRIBED: Record<Required, string> = { text: 'a non-empty string', object: 'an object', list: 'an array', function: 'a function', boolean: 'true or false' };

function isKind(value: unknown, kind: Required): boolean {
  if (kind === 'text') return typeof value === 'string' && value !== '';
  if (kind === 'list') return Array.isArray(value);
  if (kind === 'function') return typeof value === 'function';
  if (kind === 'boolean') return typeof value === 'boolean';
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
