/**
 * Strings in UTF-16 code unit order (what `<` compares, and `sort()` without a comparator): the same
 * on every machine, whatever its locale, where `localeCompare` is not.
 */
export function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
