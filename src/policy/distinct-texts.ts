/**
 * A function of a text, computed once per distinct text: an alias, a prompt file many agents name
 * or a default every agent inherits is one string at thousands of places, and what a rule finds in
 * a text, or how many tokens it has, depends on the text alone. So a pull request that repeats one
 * long text costs the work of that text once, not once per place (docs/security.md §4).
 */

/**
 * The longest string V8 hashes in full. A longer one is hashed by its length alone, so a Map of many
 * long strings of one length would compare them character by character on every lookup: a pull
 * request's thousands of near-equal long texts would cost their length times their number squared.
 */
const FULLY_HASHED_LENGTH = 16_383;

/**
 * `compute`, remembered per text for as long as the returned function lives. A text longer than
 * FULLY_HASHED_LENGTH is remembered one per length (the last one asked): a text shared by many places
 * is then found by comparing the string with itself, which reads no characters, and any other text
 * costs at most one comparison of its own length, less than computing it.
 */
export function perDistinctText<T>(compute: (text: string) => T): (text: string) => T {
  const short = new Map<string, T>();
  const long = new Map<number, { text: string; value: T }>();
  return (text) => {
    if (text.length <= FULLY_HASHED_LENGTH) {
      if (short.has(text)) return short.get(text) as T;
      const value = compute(text);
      short.set(text, value);
      return value;
    }
    const last = long.get(text.length);
    if (last !== undefined && last.text === text) return last.value;
    const value = compute(text);
    long.set(text.length, { text, value });
    return value;
  };
}
