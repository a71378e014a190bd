/**
 * The parts of a pull-request comment that may be shortened to fit the host's size limit, and the
 * fitting every comment shares: what sums it up is kept whole; each list keeps whole items in order
 * while they fit, then a line counting the rest, so a cut never falls inside a table row or a block.
 * Every comment is measured in UTF-8 bytes: never fewer than the UTF-16 characters GitHub counts, and
 * what a host that counts bytes sees.
 * What is measured is what is posted: `fitBlocks` hides the run's secrets before it measures, since
 * a scrub after the cut lengthens the text (a 6-character secret becomes `(sensitive)`) past the limit.
 */
import { formatCount, pluralNoun } from './plural.js';

/** GitHub refuses a comment longer than this many characters (GitLab's notes allow more). */
export const HOST_COMMENT_LIMIT = 65_536;

/** The largest comment voxform writes, in UTF-8 bytes: below the host's limit, with room for what CI wraps around it. */
export const COMMENT_SIZE_LIMIT = 60_000;

/**
 * A list the comment may shorten: `head`, its items (at most `most`; an item may span lines), `foot`;
 * `more(n)` is the line standing for n left out.
 */
export interface CommentList {
  head: string[];
  items: string[];
  foot: string[];
  most: number;
  more: (omitted: number) => string;
  /**
   * The most of the room left to it the list takes (a fraction), so the blocks after it keep room to
   * show something. By default an equal part with the lists after it: the first of three a third.
   */
  share?: number;
}

/** Lines kept whole or left out, or a list. */
export type CommentBlock = string[] | CommentList;

/** A line's size in UTF-8 bytes: at least its UTF-16 length, which GitHub counts, so a comment within a byte budget is within it for GitHub too. */
export function byteLength(line: string): number {
  return Buffer.byteLength(line, 'utf8');
}

/** The size in UTF-8 bytes of lines joined with newlines, with a newline at the end. */
export function linesSize(lines: readonly string[]): number {
  let total = 0;
  for (const line of lines) total += byteLength(line) + 1;
  return total;
}

/** Whole items in order while they fit `budget`, then `more(left out)` when any are left out and it fits. */
export function fitItems(items: readonly string[][], budget: number, more: (omitted: number) => string[]): string[] {
  const out: string[] = [];
  let used = 0;
  // Counts in the note take at most as many digits as the total.
  const reserve = linesSize(more(items.length));
  for (const [index, item] of items.entries()) {
    const size = linesSize(item);
    if (used + size + (index < items.length - 1 ? reserve : 0) > budget) {
      const note = more(items.length - index);
      return linesSize(note) + used <= budget ? [...out, ...note] : out;
    }
    out.push(...item);
    used += size;
  }
  return out;
}

/** The list within `budget`: its items in order while they fit, then the line counting the rest; nothing when not even that fits. */
export function fitList(list: CommentList, budget: number): string[] {
  const whole = [...list.head, ...list.items, ...list.foot];
  if (list.items.length <= list.most && linesSize(whole) <= budget) return whole;
  // The count line takes at most as many digits as the total.
  let left = budget - linesSize([...list.head, ...list.foot, list.more(list.items.length)]);
  if (left < 0) return [];
  const kept: string[] = [];
  for (const item of list.items.slice(0, list.most)) {
    const size = byteLength(item) + 1;
    if (size > left) break;
    kept.push(item);
    left -= size;
  }
  return [...list.head, ...kept, list.more(list.items.length - kept.length), ...list.foot];
}

/** The least a block takes: fixed lines whole, a list its frame and count line (an empty list its frame). */
function leastSize(block: CommentBlock): number {
  if (Array.isArray(block)) return linesSize(block);
  return linesSize([...block.head, ...block.foot, ...(block.items.length > 0 ? [block.more(block.items.length)] : [])]);
}

/** Every line of the blocks, none left out. */
export function wholeLines(blocks: readonly CommentBlock[]): string[] {
  return blocks.flatMap((block) => (Array.isArray(block) ? block : [...block.head, ...block.items, ...block.foot]));
}

function listsWithItems(blocks: readonly CommentBlock[]): number {
  return blocks.filter((block) => !Array.isArray(block) && block.items.length > 0).length;
}

/** The room a list may take of `room`: its share (else an equal part with the `lists` from it on), or all the later blocks leave whole when that is more. */
function listRoom(list: CommentList, room: number, leftWhole: number, lists: number): number {
  const share = list.share ?? 1 / Math.max(lists, 1);
  return Math.min(room, Math.max(Math.floor(room * share), leftWhole));
}

/** The block with `redact` applied to each of its lines and items (an item may span lines: a secret across them is found too). */
function scrubbed(block: CommentBlock, redact: (text: string) => string): CommentBlock {
  const scrub = (lines: readonly string[]) => lines.map((line) => redact(line));
  if (Array.isArray(block)) return scrub(block);
  return { ...block, head: scrub(block.head), items: scrub(block.items), foot: scrub(block.foot) };
}

/**
 * The blocks within `budget`, in order, `redact` (the run's secrets) applied before anything is
 * measured, so that the budget holds for the text as posted: fixed lines whole (a summary is never
 * the part cut), each list to what fits of its share of the room left (all it needs when the later
 * blocks fit whole beside it), the later blocks keeping room for their least. A long list early on
 * thus never leaves the lists after it only their count lines: what one leaves of its share goes to the next.
 */
export function fitBlocks(given: readonly CommentBlock[], budget: number, redact: (text: string) => string): string[] {
  const blocks = given.map((block) => scrubbed(block, redact));
  const out: string[] = [];
  let left = budget;
  blocks.forEach((block, index) => {
    const later = blocks.slice(index + 1);
    const room = Math.max(left - later.reduce((total, next) => total + leastSize(next), 0), 0);
    const leftWhole = left - linesSize(wholeLines(later));
    const lines = Array.isArray(block) ? (linesSize(block) <= room ? block : []) : fitList(block, listRoom(block, room, leftWhole, listsWithItems(blocks.slice(index))));
    out.push(...lines);
    left -= linesSize(lines);
  });
  return out;
}

/** Where every row of a cut table is, by default: the command's JSON output. */
export const JSON_OUTPUT_HAS_ALL = '`--format json`';

/**
 * The row standing for `omitted` rows a table of `columns` columns left out (a line of text under a
 * table would be read as one of its rows); `whole` names what lists every one.
 */
export function moreTableRow(omitted: number, noun: string, columns: number, whole = JSON_OUTPUT_HAS_ALL): string {
  return `| …and ${formatCount(omitted)} more ${pluralNoun(omitted, noun)} (${whole} lists every one) |${' |'.repeat(columns - 1)}`;
}
