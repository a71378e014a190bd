/**
 * Cuts a Markdown plan to what a pull-request comment may hold (a host refuses a longer one
 * outright), keeping in order: the heading and how to see the whole plan; the environment variables
 * read; the table; then as many sections whole as fit, the next cut with a marker, the rest as headings.
 * The policy part above it is cut too: each of its lists (relaxations, findings, waivers) to what
 * fits, with a line counting the rest (`fitBlocks`).
 * Sizes are UTF-8 bytes, never fewer than the characters a host counts. A cut never falls inside a
 * code fence (`markdownFence`), a secret marker or a character.
 */
import { REDACTED } from '../secrets/redact.js';
import { UNKNOWN_AFTER_APPLY } from './types.js';
import { markdownFence } from '../util/markdown-escape.js';
import { pluralNoun } from '../util/plural.js';
import { fitItems, fitList, linesSize, type CommentBlock } from '../util/comment-blocks.js';

/** Placeholders that stand for a secret or a value known only at apply: never cut in two. */
const SECRET_MARKERS = ['(sensitive value changed)', '(sensitive value cleared)', '(sensitive value)', REDACTED, UNKNOWN_AFTER_APPLY];

/** A line is cut in two only to show at least this many of its characters (a long prompt paragraph). */
const MIN_PARTIAL_LINE = 40;

/** One resource's collapsible section: a heading (HTML, inside `<summary>`) and its diff lines. */
export interface CommentSection {
  summary: string;
  diff: string[];
}


/** A Markdown plan in parts, as `renderPlanMarkdown` assembles it. */
export interface CommentParts {
  /** The heading and the blank line after it. */
  head: string[];
  /** The table's two header lines; `rows` one line per changed resource. */
  tableHeader: string[];
  rows: string[];
  sections: CommentSection[];
  /** The environment variables read: groups of lines, each kept or left out whole. */
  tail: string[][];
}

export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/** The size of lines joined with newlines, with a newline at the end. */
function cost(lines: readonly string[]): number {
  return linesSize(lines, byteLength);
}

export function wholeSection(section: CommentSection): string[] {
  return [`<details><summary>${section.summary}</summary>`, '', ...markdownFence(section.diff, 'diff'), '', '</details>', ''];
}

function cutMarker(shown: number, total: number): string {
  return `⋯ cut to fit the comment: ${shown} of ${total} ${pluralNoun(total, 'line')} shown whole`;
}

function cutSection(section: CommentSection, kept: string[], shown: number): string[] {
  const block = markdownFence([...kept, cutMarker(shown, section.diff.length)], 'diff', { sizedFor: section.diff });
  return [`<details><summary>${section.summary} (cut)</summary>`, '', ...block, '', '</details>', ''];
}

/** Where `line` may be cut at or before `index` (a character boundary): not inside a secret marker. */
function safeCutIndex(line: string, index: number): number {
  let cut = index;
  for (let moved = true; moved; ) {
    moved = false;
    for (const marker of SECRET_MARKERS) {
      for (let at = line.indexOf(marker); at !== -1 && at < cut; at = line.indexOf(marker, at + 1)) {
        if (cut < at + marker.length) {
          cut = at;
          moved = true;
        }
      }
    }
  }
  return cut;
}

/** The longest safe start of `line` within `bytes`, ending in `⋯`; undefined when too little of it would show. */
function cutLine(line: string, bytes: number): string | undefined {
  const room = bytes - byteLength(' ⋯');
  let index = 0;
  let used = 0;
  for (const char of line) {
    const size = byteLength(char);
    if (used + size > room) break;
    used += size;
    index += char.length;
  }
  const cut = safeCutIndex(line, index);
  return cut > MIN_PARTIAL_LINE ? `${line.slice(0, cut)} ⋯` : undefined;
}

/** The section cut to at most `budget` bytes (never below its cut-to-nothing size). */
function sectionWithin(section: CommentSection, budget: number): string[] {
  const kept: string[] = [];
  // Counts in the marker take at most as many digits as the total.
  let left = budget - cost(cutSection(section, [], section.diff.length));
  for (const line of section.diff) {
    if (byteLength(line) + 1 > left) {
      const partial = cutLine(line, left - 1);
      const shown = kept.length;
      if (partial !== undefined) kept.push(partial);
      return cutSection(section, kept, shown);
    }
    kept.push(line);
    left -= byteLength(line) + 1;
  }
  return cutSection(section, kept, kept.length);
}

/** Every section within `budget`: each reduced to its heading, then made whole in order while room allows, one cut. */
function fitSections(sections: readonly CommentSection[], budget: number): string[] {
  // A short diff costs less whole than its cut marker does.
  const minimal = sections.map((section) => {
    const [whole, cut] = [wholeSection(section), cutSection(section, [], 0)];
    return cost(whole) <= cost(cut) ? whole : cut;
  });
  const minimalCost = cost(minimal.flat());
  if (minimalCost > budget) {
    return fitItems(minimal, budget, (omitted) => [`_${omitted} more changed ${pluralNoun(omitted, 'resource')} not shown here._`, ''], byteLength);
  }
  let room = budget - minimalCost;
  const chosen = [...minimal];
  const whole = new Set<number>();
  sections.forEach((section, index) => {
    const extra = cost(wholeSection(section)) - cost(minimal[index]!);
    if (extra <= room) {
      chosen[index] = wholeSection(section);
      whole.add(index);
      room -= extra;
    }
  });
  const first = sections.findIndex((_, index) => !whole.has(index));
  if (first !== -1) chosen[first] = sectionWithin(sections[first]!, cost(minimal[first]!) + room);
  return chosen.flat();
}

/** The comment's lines within `limit` bytes, ending with `footer` (how to see the whole plan). */
export function fitComment(parts: CommentParts, footer: string, limit: number): string[] {
  let room = limit - cost(parts.head) - cost([footer]) - cost(parts.tableHeader) - cost(['']);
  const tail = fitItems(parts.tail, Math.floor(room / 2), (omitted) => [`_${omitted} more ${pluralNoun(omitted, 'note')} (the environment variables read) not shown here._`, ''], byteLength);
  room -= cost(tail);
  const rows = fitItems(
    parts.rows.map((row) => [row]),
    Math.floor(room / 2),
    (omitted) => [`| ⋯ ${omitted} more changed ${pluralNoun(omitted, 'resource')}, not listed here | | |`],
    byteLength,
  );
  room -= cost(rows);
  const sections = fitSections(parts.sections, room);
  return [...parts.head, ...parts.tableHeader, ...rows, '', ...sections, ...tail, footer];
}

/** The least a block takes: fixed lines whole, a list its frame and count line. */
function leastCost(block: CommentBlock): number {
  return Array.isArray(block) ? cost(block) : cost([...block.head, ...block.foot, block.more(block.items.length)]);
}

/** The blocks within `budget`, in order: the later ones keep room for their least, the first lists get the rest. */
export function fitBlocks(blocks: readonly CommentBlock[], budget: number): string[] {
  const out: string[] = [];
  let left = budget;
  blocks.forEach((block, index) => {
    const reserved = blocks.slice(index + 1).reduce((total, later) => total + leastCost(later), 0);
    const room = Math.max(left - reserved, 0);
    const lines = Array.isArray(block) ? (cost(block) <= room ? block : []) : fitList(block, room, byteLength);
    out.push(...lines);
    left -= cost(lines);
  });
  return out;
}
