/**
 * A key written twice in one object of a JSON text. JSON.parse keeps the last copy without a word,
 * while whoever reads the file sees the first: a file voxform wrote never holds one, so a reader that
 * must get what was reviewed refuses it. One pass over the text, with the keys of each open object in
 * a set.
 */
import { BACKSLASH, CLOSE_ARRAY, CLOSE_OBJECT, COMMA, OPEN_ARRAY, OPEN_OBJECT, QUOTE } from '../util/json-budget.js';

/** The index of the quote that closes the string opened at `start`. */
function endOfString(text: string, start: number): number {
  let at = start + 1;
  while (text.charCodeAt(at) !== QUOTE) at += text.charCodeAt(at) === BACKSLASH ? 2 : 1;
  return at;
}

/**
 * The first key that an object of `text` holds twice (escapes decoded: `"a"` and `"\u0061"` are one
 * key) and the index of its second copy; undefined when none. Only for text JSON.parse accepted: it
 * checks no syntax.
 */
export function firstDuplicateKey(text: string): { key: string; at: number } | undefined {
  // The keys met so far in each open container, innermost last; undefined for a list.
  const open: Array<Set<string> | undefined> = [];
  let expectKey = false;
  for (let at = 0; at < text.length; at++) {
    const char = text.charCodeAt(at);
    if (char === QUOTE) {
      const end = endOfString(text, at);
      if (expectKey) {
        const written = text.slice(at + 1, end);
        const key = written.includes('\\') ? (JSON.parse(`"${written}"`) as string) : written;
        const keys = open[open.length - 1] as Set<string>;
        if (keys.has(key)) return { key, at };
        keys.add(key);
        expectKey = false;
      }
      at = end;
    } else if (char === OPEN_OBJECT || char === OPEN_ARRAY) {
      open.push(char === OPEN_OBJECT ? new Set() : undefined);
      expectKey = char === OPEN_OBJECT;
    } else if (char === CLOSE_OBJECT || char === CLOSE_ARRAY) {
      open.pop();
    } else if (char === COMMA) {
      expectKey = open[open.length - 1] !== undefined;
    }
  }
  return undefined;
}
