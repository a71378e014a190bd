/**
 * How a message names a value and the kind of value that belongs in its place ("a string ("fast")",
 * "a whole number"): one wording for the manifest's, the tests', the state's, the emulator data
 * file's and the service's answers' diagnostics.
 */
import { wordList } from './plural.js';
import { shorten } from './shorten.js';

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
