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

/** A long text remembered, with what was computed from it. */
interface Remembered<T> {
  readonly text: string;
  readonly value: T;
}

/** Long texts of one length parted by their character at `at`: `code` (`next[0]`) or another (`next[1]`). */
interface Fork<T> {
  readonly at: number;
  readonly code: number;
  readonly next: [Remembered<T> | Fork<T>, Remembered<T> | Fork<T>];
}

/**
 * `compute`, remembered per text for as long as the returned function lives. A text longer than
 * FULLY_HASHED_LENGTH is looked up by its length, then by its characters where the texts remembered
 * before it first differ, to the one text it can be, which is compared with it whole. A text shared
 * by many places is the same string at each, and a string compared with itself reads no characters:
 * a look-up reads at most one character per text of its length remembered (each 16 KiB or more of
 * what the pull request gave), and a new text is read at most twice more than computing it does. A
 * copy of a remembered text (written again, another file of the same bytes) is another string, read
 * whole at each look-up: JavaScript tells two strings apart by their characters only.
 */
export function perDistinctText<T>(compute: (text: string) => T): (text: string) => T {
  const short = new Map<string, T>();
  const long = new Map<number, Remembered<T> | Fork<T>>();
  return (text) => {
    if (text.length <= FULLY_HASHED_LENGTH) {
      if (short.has(text)) return short.get(text) as T;
      const value = compute(text);
      short.set(text, value);
      return value;
    }
    let found = long.get(text.length);
    let parent: Fork<T> | undefined;
    let side: 0 | 1 = 0;
    while (found !== undefined && 'at' in found) {
      parent = found;
      side = text.charCodeAt(found.at) === found.code ? 0 : 1;
      found = found.next[side];
    }
    if (found !== undefined && found.text === text) return found.value;
    const remembered = { text, value: compute(text) };
    const grown = found === undefined ? remembered : parted(remembered, found);
    if (parent === undefined) long.set(text.length, grown);
    else parent.next[side] = grown;
    return remembered.value;
  };
}

/** A fork between a text to remember and the different one of its length that the look-up found. */
function parted<T>(added: Remembered<T>, found: Remembered<T>): Fork<T> {
  const [one, other] = [added.text, found.text];
  let at = 0;
  while (one.charCodeAt(at) === other.charCodeAt(at)) at++;
  return { at, code: one.charCodeAt(at), next: [added, found] };
}
