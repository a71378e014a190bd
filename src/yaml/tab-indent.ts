/**
 * A tab in indentation leaves the general parser unsure where its line belongs: it reports errors
 * on the correct lines after it, often to the end of the document. Those lines are judged instead
 * in the text with each tab-indented line indented by spaces, where it most likely belongs: what is
 * still wrong there is a mistake of its own, and is reported; what is not was the tab's doing.
 */
import type { Document, YAMLError } from 'yaml';

/**
 * Replaces, in each document with a tab in indentation, the errors after its first tab-indented line
 * with those `reparse` finds there in the text re-indented (none on a tab-indented line itself but
 * the tab's own). `reparse` answers undefined when it cannot read the text.
 */
export function replaceTabFollowOns(documents: Document.Parsed[], text: string, reparse: (text: string) => Document.Parsed[] | undefined): void {
  const tabLineStarts = new Set<number>();
  for (const doc of documents) for (const error of doc.errors) if (error.code === 'TAB_AS_INDENT') tabLineStarts.add(lineStartAt(text, error.pos[0]));
  if (tabLineStarts.size === 0) return;
  const reindented = reindent(text, tabLineStarts);
  const reparsed = reparse(reindented.text);
  if (!reparsed) return;
  const later: YAMLError[] = [];
  for (const error of reparsed.flatMap((doc) => doc.errors)) {
    const start = reindented.toOriginal(error.pos[0]);
    if (start === undefined) continue;
    error.pos = [start, reindented.toOriginal(error.pos[1]) ?? start];
    later.push(error);
  }
  // Sorted, so each document takes its own by binary search: a file of many documents stays linear.
  later.sort((a, b) => a.pos[0] - b.pos[0]);
  const laterStarts = later.map((error) => error.pos[0]);
  for (const doc of documents) {
    const firstTab = doc.errors.find((error) => error.code === 'TAB_AS_INDENT');
    if (!firstTab) continue;
    const from = lineStartAt(text, firstTab.pos[0]);
    const end = doc.range[2];
    const before = doc.errors.filter((error) => error.pos[0] < from);
    const tabs = doc.errors.filter((error) => error.code === 'TAB_AS_INDENT');
    const after = later.slice(firstAtOrAfter(laterStarts, from), firstAtOrAfter(laterStarts, end + 1));
    doc.errors = [...before, ...tabs, ...after].sort((a, b) => a.pos[0] - b.pos[0]);
  }
}

/**
 * `text` with the indentation of the lines starting at `tabLineStarts` made of spaces: as deep as
 * the content of the line before (past a `- `), one step deeper when that line opens a block (ends
 * with `:` or a block scalar's `|` or `>`). Only those lines change, so every other line keeps its
 * number and its columns: `toOriginal` maps an offset on one of them back (undefined on a changed line).
 */
function reindent(text: string, tabLineStarts: ReadonlySet<number>): { text: string; toOriginal: (offset: number) => number | undefined } {
  const lines = text.split('\n');
  const originalStarts: number[] = [];
  const newStarts: number[] = [];
  const changed: boolean[] = [];
  let originalAt = 0;
  let newAt = 0;
  let previous: string | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    originalStarts.push(originalAt);
    newStarts.push(newAt);
    const isTabLine = tabLineStarts.has(originalAt);
    changed.push(isTabLine);
    originalAt += line.length + 1;
    if (isTabLine) lines[i] = ' '.repeat(previous === undefined ? 0 : indentAfter(previous)) + line.replace(/^[ \t]+/, '');
    const written = lines[i] as string;
    newAt += written.length + 1;
    if (!/^\s*(#|$)/.test(written)) previous = written;
  }
  const toOriginal = (offset: number): number | undefined => {
    const line = lastAtOrBefore(newStarts, offset);
    if (changed[line]) return undefined;
    return (originalStarts[line] as number) + offset - (newStarts[line] as number);
  };
  return { text: lines.join('\n'), toOriginal };
}

/** Where the content of a line after `line` most likely starts. */
export function indentAfter(line: string): number {
  const content = /^ *(?:- +)*/.exec(line)?.[0].length ?? 0;
  // A search for the comment's start, not a pattern from each blank on: a long run of blanks made that quadratic.
  const comment = line.search(/\s#/);
  const withoutComment = (comment === -1 ? line : line.slice(0, comment)).trimEnd();
  return /(:|[|>][-+]?)$/.test(withoutComment) ? content + 2 : content;
}

/** The index of the first of the ascending `starts` that is at least `offset` (their length if none is). */
function firstAtOrAfter(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if ((starts[middle] as number) < offset) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The index of the last of the ascending `starts` that is at most `offset`. */
function lastAtOrBefore(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const middle = (low + high + 1) >> 1;
    if ((starts[middle] as number) <= offset) low = middle;
    else high = middle - 1;
  }
  return low;
}

function lineStartAt(text: string, offset: number): number {
  return text.lastIndexOf('\n', offset - 1) + 1;
}
