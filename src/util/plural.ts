/**
 * Counted nouns, said one way everywhere: "1 agent", "2 agents", "1,000 calls". Irregular plurals
 * are given (`plural(n, 'reply', 'replies')`); never write "(s)".
 */

/**
 * A count as people read it: "1,000". Whole numbers are grouped by hand, because the first
 * `toLocaleString` of a process loads the locale data, which a rule or a summary should not pay
 * for; fractions still go through the locale.
 */
export function formatCount(count: number): string {
  return Number.isInteger(count) ? String(count).replace(/\B(?=(\d{3})+$)/g, ',') : count.toLocaleString('en-US');
}

/** The noun alone, in the number `count` asks for. */
export function pluralNoun(count: number, one: string, many = `${one}s`): string {
  return count === 1 ? one : many;
}

/** The count and its noun: "1 agent", "2 agents", "1,000 calls". */
export function plural(count: number, one: string, many = `${one}s`): string {
  return `${formatCount(count)} ${pluralNoun(count, one, many)}`;
}

/** "a phone number", "an e-mail address", "3 phone numbers": an article for one, where the count reads as prose. */
export function pluralWithArticle(count: number, one: string, many = `${one}s`): string {
  return count === 1 ? `a${/^[aeiou]/.test(one) ? 'n' : ''} ${one}` : plural(count, one, many);
}

/** `a`, `a or b`, `a, b or c` (with `and`: `a, b and c`). */
export function wordList(items: readonly string[], conjunction: 'or' | 'and'): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} ${conjunction} ${items[items.length - 1]}`;
}

/**
 * The first `shown` of `items` and how many more: `a, b, c and 4 more`; all of them when they are
 * few. Items that may hold commas themselves (sentences) are set apart by `'; '`; items on lines of
 * their own (a separator starting with a line break) get the count on a line of its own, `…and 4 more`.
 */
export function someOf(items: readonly string[], shown: number, separator = ', '): string {
  const rest = items.length - shown;
  if (rest <= 0) return items.join(separator);
  const more = separator.startsWith('\n') ? `${separator}…and` : ' and';
  return `${items.slice(0, shown).join(separator)}${more} ${formatCount(rest)} more`;
}
