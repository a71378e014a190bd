/**
 * Every whole-number flag (`--parallelism`, `--limit`, `--lock-timeout`, `--port`, …) is read here,
 * one way: decimal digits only, within the flag's bounds, or `invalid_option` naming the flag and
 * the form it takes, never the value typed (docs/security.md §5: it may be a secret typed in the wrong place).
 */
import { VoxformError } from '../errors.js';
import { formatCount } from '../util/plural.js';

interface WholeNumberBounds {
  min: number;
  max: number;
  /** What the error's hint says; default `For example: NAME 4.` */
  hint?: string;
}

/**
 * `value` as a whole number from `min` to `max`: `0x10`, `1e3`, ` 5 ` and `1.5`, which a number
 * parser reads, are refused, and so is a number past `max` (twenty nines would be read rounded).
 */
export function wholeNumber(name: string, value: string, bounds: WholeNumberBounds): number {
  const n = /^\d{1,16}$/.test(value) ? Number(value) : Number.NaN;
  if (!(n >= bounds.min && n <= bounds.max)) {
    throw new VoxformError('invalid_option', `The value given to ${name} is not a whole number from ${formatCount(bounds.min)} to ${formatCount(bounds.max)}.`, {
      hint: bounds.hint ?? `For example: ${name} 4.`,
    });
  }
  return n;
}

/** The argument parser's reader of a whole-number flag. */
export function wholeNumberOption(name: string, bounds: WholeNumberBounds): (value: string) => number {
  return (value) => wholeNumber(name, value, bounds);
}

/** A port to listen on (`emulator --port`, `webhook serve --port`). */
export const LISTEN_PORT: WholeNumberBounds = { min: 0, max: 65_535, hint: 'Give --port 0 to let the system pick a free port.' };
