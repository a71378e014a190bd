/**
 * What a library call's types require of its options, checked when it is called: a caller in plain
 * JavaScript (no type check) is told which option is missing, as `invalid_option`, before anything
 * is read, instead of meeting a TypeError deep inside or planning against a workspace named
 * `default@undefined`.
 */
import { VoxformError } from '../errors.js';

type Required = 'text' | 'object' | 'list';

export function requireOptions(call: string, options: unknown, required: Readonly<Record<string, Required>>): void {
  const given = typeof options === 'object' && options !== null ? (options as Record<string, unknown>) : {};
  const missing = Object.entries(required).filter(([name, kind]) => !isKind(given[name], kind));
  if (missing.length === 0) return;
  const named = missing.map(([name, kind]) => `\`${name}\` (${DESCRIBED[kind]})`).join(', ');
  throw new VoxformError('invalid_option', `${call}() needs ${named} among its options.`, { hint: `Pass ${missing.length === 1 ? 'it' : 'each'} as docs/library.md shows ${call}() called.` });
}

const DESCRIBED: Record<Required, string> = { text: 'a non-empty string', object: 'an object', list: 'an array' };

function isKind(value: unknown, kind: Required): boolean {
  if (kind === 'text') return typeof value === 'string' && value !== '';
  if (kind === 'list') return Array.isArray(value);
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
