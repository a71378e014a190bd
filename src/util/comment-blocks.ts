/**
 * The parts of a pull-request comment that may be shortened to fit the host's size limit, and the
 * fitting every comment shares: whole items while they fit, then a line counting the rest. A caller
 * says how it measures a line: UTF-8 bytes for a plan, characters for the other reports.
 */

/** GitHub refuses a comment longer than this many characters (GitLab's notes allow more). */
export const HOST_COMMENT_LIMIT = 65_536;

/** The largest comment voxform writes (in the unit its renderer measures): below the host's limit, with room for what CI wraps around it. */
export const COMMENT_SIZE_LIMIT = 60_000;

/** A list the comment may shorten: `head`, one line per item (at most `most`), `foot`; `more(n)` is the line standing for n left out. */
export interface CommentList {
  head: string[];
  items: string[];
  foot: string[];
  most: number;
  more: (omitted: number) => string;
}

/** Lines kept whole or left out, or a list. */
export type CommentBlock = string[] | CommentList;

/** The size of one line, without its newline. */
export type Measure = (line: string) => number;

/** A line's size as the host counts it: UTF-16 code units. */
export const characterLength: Measure = (line) => line.length;

/** The size of lines joined with newlines, with a newline at the end. */
export function linesSize(lines: readonly string[], measure: Measure): number {
  let total = 0;
  for (const line of lines) total += measure(line) + 1;
  return total;
}

/** Whole items in order while they fit `budget`, then `more(left out)` when any are left out and it fits. */
export function fitItems(items: readonly string[][], budget: number, more: (omitted: number) => string[], measure: Measure): string[] {
  const out: string[] = [];
  let used = 0;
  // Counts in the note take at most as many digits as the total.
  const reserve = linesSize(more(items.length), measure);
  for (const [index, item] of items.entries()) {
    const size = linesSize(item, measure);
    if (used + size + (index < items.length - 1 ? reserve : 0) > budget) {
      const note = more(items.length - index);
      return linesSize(note, measure) + used <= budget ? [...out, ...note] : out;
    }
    out.push(...item);
    used += size;
  }
  return out;
}

/** The list within `budget`: its items in order while they fit, then the line counting the rest; nothing when not even that fits. */
export function fitList(list: CommentList, budget: number, measure: Measure): string[] {
  const whole = [...list.head, ...list.items, ...list.foot];
  if (list.items.length <= list.most && linesSize(whole, measure) <= budget) return whole;
  // The count line takes at most as many digits as the total.
  let left = budget - linesSize([...list.head, ...list.foot, list.more(list.items.length)], measure);
  if (left < 0) return [];
  const kept: string[] = [];
  for (const item of list.items.slice(0, list.most)) {
    const size = measure(item) + 1;
    if (size > left) break;
    kept.push(item);
    left -= size;
  }
  return [...list.head, ...kept, list.more(list.items.length - kept.length), ...list.foot];
}
