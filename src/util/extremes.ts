/**
 * The greatest and the least of a list of numbers, as Math.max and Math.min give them (NaN in, NaN
 * out). Spread into those, a list is one argument per item: past about 125,000 items (the rows of a
 * planted ledger, the backtick runs of a pull request's text) the call overflows the stack.
 */

/** Math.max(`start`, ...`values`), without the spread. */
export function greatest(values: Iterable<number>, start = -Infinity): number {
  let found = start;
  for (const value of values) found = Math.max(found, value);
  return found;
}

/** Math.min(`start`, ...`values`), without the spread. */
export function least(values: Iterable<number>, start = Infinity): number {
  let found = start;
  for (const value of values) found = Math.min(found, value);
  return found;
}
