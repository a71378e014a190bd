/**
 * Cuts a Markdown plan to what a pull-request comment may hold (a host refuses a longer one
 * outright), keeping in order: the heading and how to see the whole plan; the notes (the keys
 * renamed or swapped, the environment variables read), each whole or named in a line counting them;
 * the lists (the resources not managed any more, a quiet policy's token counts), each cut to what
 * fits with a line counting the rest; the table; then as many sections whole as fit, the next cut
 * with a marker, the rest counted.
 * The policy part above it is cut too: each of its lists (relaxations, findings, waivers) to what
 * fits, with a line counting the rest (`fitBlocks`).
 * Sizes are UTF-8 bytes, never fewer than the characters a host counts. A cut never falls inside a
 * code fence (`markdownFence`), a secret marker or a character.
 */
import { REDACTED, type Redact } from '../secrets/redact.js';
import { UNKNOWN_AFTER_APPLY } from './types.js';
import { markdownFence } from '../util/markdown-escape.js';
import { formatCount, pluralNoun } from '../util/plural.js';
import { byteLength, fitBlocks, fitItems, linesSize, type CommentBlock } from '../util/comment-blocks.js';
import { boundaryWithin } from '../util/shorten.js';

/** Placeholders that stand for a secret or a value known only at apply: never cut in two. */
const SECRET_MARKERS = ['(sensitive value changed)', '(sensitive value cleared)', '(sensitive value)', REDACTED, UNKNOWN_AFTER_APPLY];

/** A line is cut in two only to show at least this many of its characters (a long prompt paragraph). */
const MIN_PARTIAL_LINE = 40;

/**
 * One resource's collapsible section: a heading (HTML, inside `<summary>`) and its diff lines. The
 * lines are made when the section is shown, and only its size is kept: a plan of many changed
 * prompts shows few of them, and their diffs held at once would be several times the plan.
 */
export interface CommentSection {
  summary: string;
  /** The bytes of the section shown whole (`sectionSize`). */
  size: number;
  diff(): string[];
}


/** A Markdown plan in parts, as `renderPlanMarkdown` assembles it. */
export interface CommentParts {
  /** The heading and the blank line after it. */
  head: string[];
  /** The table's two header lines; `rows` one line per changed resource. */
  tableHeader: string[];
  rows: string[];
  sections: CommentSection[];
  /** The notes after the sections (the keys renamed or swapped, the environment variables read), each kept or left out whole. */
  tail: CommentNote[];
  /** After them, the lists cut by `fitBlocks`: the resources not managed any more, and a quiet policy's token counts. */
  lists: CommentBlock[];
  /** The run's secrets, hidden in the lists before `fitBlocks` measures them (the diff lines hide them as they are made). */
  redact: Redact;
}

/** A note of the comment: its lines, and what it is about, named when it is left out. */
interface CommentNote {
  about: string;
  lines: string[];
}

/** The lines of a section shown whole; `diff`: its diff lines when already made. */
export function wholeSection(section: Pick<CommentSection, 'summary' | 'diff'>, diff = section.diff()): string[] {
  return [`<details><summary>${section.summary}</summary>`, '', ...markdownFence(diff, 'diff'), '', '</details>', ''];
}

/** The bytes of a section with these diff lines shown whole. */
export function sectionSize(summary: string, diff: string[]): number {
  return linesSize(wholeSection({ summary, diff: () => diff }, diff));
}

function cutMarker(shown: number, total: number): string {
  return `⋯ cut to fit the comment: ${shown} of ${total} ${pluralNoun(total, 'line')} shown whole`;
}

function cutSection(summary: string, diff: readonly string[], kept: string[], shown: number): string[] {
  const block = markdownFence([...kept, cutMarker(shown, diff.length)], 'diff', { sizedFor: diff });
  return [`<details><summary>${summary} (cut)</summary>`, '', ...block, '', '</details>', ''];
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
  // Between characters as a reader sees them, as shorten cuts: no half of an emoji or a flag.
  const cut = safeCutIndex(line, boundaryWithin(line, bytes - byteLength(' ⋯'), 'bytes'));
  return cut > MIN_PARTIAL_LINE ? `${line.slice(0, cut)} ⋯` : undefined;
}

/** The section cut to at most `budget` bytes; undefined when not one line of its diff would show. */
function sectionWithin(section: CommentSection, budget: number): string[] | undefined {
  const { summary } = section;
  const diff = section.diff();
  const kept: string[] = [];
  // Counts in the marker take at most as many digits as the total.
  let left = budget - linesSize(cutSection(summary, diff, [], diff.length));
  for (const line of diff) {
    if (byteLength(line) + 1 > left) {
      const partial = cutLine(line, left - 1);
      const shown = kept.length;
      if (partial !== undefined) kept.push(partial);
      return kept.length > 0 ? cutSection(summary, diff, kept, shown) : undefined;
    }
    kept.push(line);
    left -= byteLength(line) + 1;
  }
  return kept.length > 0 ? cutSection(summary, diff, kept, kept.length) : undefined;
}

/**
 * The sections within `budget`: whole, in plan order, each that fits; the first that does not cut
 * inside its diff to the room left; the rest counted in one line (the table names them).
 */
function fitSections(sections: readonly CommentSection[], budget: number): string[] {
  if (sections.reduce((total, section) => total + section.size, 0) <= budget) return sections.flatMap((section) => wholeSection(section));
  const more = (omitted: number) => [`_…and ${formatCount(omitted)} more changed ${pluralNoun(omitted, 'resource')}, not shown here._`, ''];
  // The count takes at most as many digits as the total; it is not needed when only the cut one is not whole.
  const reserve = linesSize(more(sections.length));
  let room = budget - reserve;
  const fits = sections.map((section) => {
    if (section.size > room) return false;
    room -= section.size;
    return true;
  });
  const first = fits.indexOf(false);
  const alone = fits.lastIndexOf(false) === first;
  const cut = first === -1 ? undefined : sectionWithin(sections[first]!, alone ? room + reserve : room);
  const chosen = sections.map((section, index) => (index === first ? cut : fits[index] ? wholeSection(section) : undefined));
  const omitted = chosen.filter((lines) => lines === undefined).length;
  return [...chosen.flatMap((lines) => lines ?? []), ...(omitted > 0 ? more(omitted) : [])];
}

/** The comment's lines within `limit` bytes, ending with `footer` (how to see the whole plan). */
export function fitComment(parts: CommentParts, footer: string, limit: number): string[] {
  let room = limit - linesSize(parts.head) - linesSize([footer]) - linesSize(parts.tableHeader) - linesSize(['']);
  const half = Math.floor(room / 2);
  // fitItems leaves out the last notes: `omitted` of them from the end.
  const notesLeftOut = (omitted: number) => parts.tail.slice(parts.tail.length - omitted).map((note) => note.about).join(', ');
  const notes = fitItems(
    parts.tail.map((note) => note.lines),
    half,
    (omitted) => [`_${omitted} more ${pluralNoun(omitted, 'note')} (${notesLeftOut(omitted)}) not shown here._`, ''],
  );
  const tail = [...notes, ...fitBlocks(parts.lists, half - linesSize(notes), parts.redact)];
  room -= linesSize(tail);
  const rows = fitItems(
    parts.rows.map((row) => [row]),
    Math.floor(room / 2),
    (omitted) => [`| ⋯ ${omitted} more changed ${pluralNoun(omitted, 'resource')}, not listed here | | |`],
  );
  room -= linesSize(rows);
  const sections = fitSections(parts.sections, room);
  return [...parts.head, ...parts.tableHeader, ...rows, '', ...sections, ...tail, footer];
}
