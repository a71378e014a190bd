/**
 * A code frame: the lines around a position with a line-number gutter and a caret under the column.
 * The lines are untrusted: control characters are shown escaped, so none can reach the terminal.
 * The caret is placed, and long lines are cut, by terminal cells (`displayWidth`): under CJK text,
 * emoji or combining accents it still sits under the value, and no character is cut in half.
 *
 *     11 |       flow:
 *   > 12 |         response_delay: fast
 *        |                         ^
 *     13 |       llm:
 */
import { printable } from '../util/printable.js';
import { displayWidth, graphemes, graphemeWidth } from '../util/display-width.js';
import { REDACTED } from '../secrets/redact.js';

export interface CodeFrameOptions {
  /** Lines shown before and after the one at fault. */
  context?: number;
  /** Lines wider than this many terminal cells are cut to a window around the column. */
  maxWidth?: number;
  /** Offsets where lines start (index 0: line 1), when known: the frame then starts there instead of scanning from the top. */
  lineStarts?: readonly number[];
  /** Lines (1-based) to show in place of the text's own: the text's secrets hidden (see secret-lines.ts). */
  shownLines?: ReadonlyMap<number, string>;
}

const TAB = '  ';

export function codeFrame(text: string, line: number, col: number, options: CodeFrameOptions = {}): string {
  const context = options.context ?? 2;
  const maxWidth = options.maxWidth ?? 120;
  const lines = linesAround(text, line, context, options.lineStarts).map(({ number, content }) => {
    const shown = options.shownLines?.get(number);
    return { number, content: shown ?? content, original: content, replaced: shown !== undefined };
  });
  if (lines.length === 0) return '';
  const gutterWidth = String(lines[lines.length - 1]?.number ?? line).length;
  const out: string[] = [];
  for (const { number, content, original, replaced } of lines) {
    const marker = number === line ? '>' : ' ';
    const gutter = `${marker} ${String(number).padStart(gutterWidth)} |`;
    if (number !== line) {
      out.push(trimEnd(`${gutter} ${fitWidth(shown(content), 0, maxWidth).text}`));
      continue;
    }
    const caretAt = Math.min(displayWidth(shown(original.slice(0, Math.max(0, col - 1)))), replaced ? caretLimit(shown(content)) : Infinity);
    const fitted = fitWidth(shown(content), caretAt, maxWidth);
    out.push(trimEnd(`${gutter} ${fitted.text}`));
    out.push(`  ${' '.repeat(gutterWidth)} | ${' '.repeat(fitted.caret)}^`);
  }
  return out.join('\n');
}

/**
 * Under a replaced line the caret goes no further than where a hidden part starts: a caret inside
 * or past it would tell where in a secret the problem is, or how long the secret is.
 */
function caretLimit(shown: string): number {
  const hidden = shown.indexOf(REDACTED);
  return displayWidth(hidden === -1 ? shown : shown.slice(0, hidden));
}

function linesAround(text: string, line: number, context: number, lineStarts?: readonly number[]): Array<{ number: number; content: string }> {
  const first = Math.max(1, line - context);
  const last = line + context;
  const found: Array<{ number: number; content: string }> = [];
  const known = lineStarts?.[first - 1];
  let number = known === undefined ? 1 : first;
  let start = known ?? 0;
  while (number <= last && start <= text.length) {
    const newline = text.indexOf('\n', start);
    const end = newline === -1 ? text.length : newline;
    if (number >= first) found.push({ number, content: text.slice(start, end).replace(/\r$/, '') });
    if (newline === -1) break;
    start = newline + 1;
    number++;
  }
  // The empty "line" after a final newline is shown only when the position is on it.
  const final = found[found.length - 1];
  if (final && final.number !== line && final.content === '' && text.endsWith('\n') && start === text.length) found.pop();
  return found;
}

/** A line as the frame shows it: tabs expanded, control characters escaped. */
function shown(text: string): string {
  return printable(text.replaceAll('\t', TAB));
}

/**
 * Cuts a line wider than `maxWidth` cells to a window of whole characters around the caret (a cell
 * count too), marking what was left out with "…".
 */
function fitWidth(text: string, caret: number, maxWidth: number): { text: string; caret: number } {
  const width = displayWidth(text);
  if (width <= maxWidth) return { text, caret };
  const start = Math.max(0, Math.min(caret - Math.floor(maxWidth / 2), width - maxWidth));
  const end = start + maxWidth;
  let kept = '';
  let keptFrom: number | undefined;
  let column = 0;
  for (const { segment } of graphemes(text)) {
    const next = column + graphemeWidth(segment);
    if (column >= start && next <= end) {
      keptFrom ??= column;
      kept += segment;
    }
    column = next;
  }
  const from = keptFrom ?? start;
  const prefix = from > 0 ? '…' : '';
  const suffix = from + displayWidth(kept) < width ? '…' : '';
  return { text: `${prefix}${kept}${suffix}`, caret: caret - from + prefix.length };
}

function trimEnd(text: string): string {
  return text.replace(/\s+$/, '');
}
