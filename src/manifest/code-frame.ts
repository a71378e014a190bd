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
import { cellsWithin, displayWidth } from '../util/display-width.js';
import { codePointBoundary } from '../util/shorten.js';

interface CodeFrameOptions {
  /** Lines shown before and after the one at fault. */
  context?: number;
  /** Lines wider than this many terminal cells are cut to a window around the column. */
  maxWidth?: number;
  /** Offsets where lines start (index 0: line 1), when known: the frame then starts there instead of scanning from the top. */
  lineStarts?: readonly number[];
  /** Lines (1-based) to show in place of the text's own: the text's secrets hidden (see secret-lines.ts). */
  shownLines?: ReadonlyMap<number, ShownLine>;
}

/** A line shown in place of the one written. */
interface ShownLine {
  text: string;
  /** The unit of `text` the caret stands at for unit `offset` of the line as written (never inside a hidden part). */
  shownOffset(offset: number): number;
}

const TAB = '  ';

export function codeFrame(text: string, line: number, col: number, options: CodeFrameOptions = {}): string {
  const context = options.context ?? 2;
  const maxWidth = options.maxWidth ?? 120;
  const lines = linesAround(text, line, context, options.lineStarts).map(({ number, content }) => {
    const shownLine = options.shownLines?.get(number);
    return { number, content: shownLine?.text ?? content, shownLine };
  });
  if (lines.length === 0) return '';
  const gutterWidth = String(lines[lines.length - 1]?.number ?? line).length;
  const out: string[] = [];
  for (const { number, content, shownLine } of lines) {
    const marker = number === line ? '>' : ' ';
    const gutter = `${marker} ${String(number).padStart(gutterWidth)} |`;
    const written = number === line ? Math.max(0, col - 1) : 0;
    // The column of the line as shown: text hidden before it may be shorter or longer than what it hides.
    const at = shownLine ? shownLine.shownOffset(written) : written;
    const near = nearColumn(content.length, at, maxWidth);
    const part = { text: cutUnits(content, near.from, near.to), before: near.from > 0, after: near.to < content.length };
    const caretAt = number === line ? displayWidth(shown(cutUnits(content, near.from, at))) : 0;
    const fitted = fitWidth(shown(part.text), caretAt, maxWidth, part);
    out.push(trimEnd(`${gutter} ${fitted.text}`));
    if (number === line) out.push(`  ${' '.repeat(gutterWidth)} | ${' '.repeat(fitted.caret)}^`);
  }
  return out.join('\n');
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
 * The units of a line a frame may show: a few windows' worth either side of the column. Measuring a
 * megabyte line in terminal cells, once per problem on it, would take minutes; a frame shows at most
 * `maxWidth` cells of it.
 */
function nearColumn(length: number, at: number, maxWidth: number): { from: number; to: number } {
  const reach = maxWidth * 4;
  const from = Math.max(0, Math.min(at - reach, length - 2 * reach));
  return { from, to: from + 2 * reach };
}

/** `text` from unit `from` to `to`, never cutting a surrogate pair in half. */
function cutUnits(text: string, from: number, to: number): string {
  return text.slice(codePointBoundary(text, Math.max(0, from)), codePointBoundary(text, Math.min(to, text.length)));
}

/**
 * Cuts a line wider than `maxWidth` cells to a window of whole characters around the caret (a cell
 * count too), marking what was left out with "…", as what `cut` says was left out before and after it.
 */
function fitWidth(text: string, caret: number, maxWidth: number, cut: { before: boolean; after: boolean }): { text: string; caret: number } {
  const width = displayWidth(text);
  const before = cut.before ? '…' : '';
  const after = cut.after ? '…' : '';
  if (width <= maxWidth) return { text: `${before}${text}${after}`, caret: caret + before.length };
  const start = Math.max(0, Math.min(caret - Math.floor(maxWidth / 2), width - maxWidth));
  const end = start + maxWidth;
  const { text: kept, from: keptFrom } = cellsWithin(text, start, end);
  const from = keptFrom ?? start;
  const prefix = from > 0 || cut.before ? '…' : '';
  const suffix = from + displayWidth(kept) < width || cut.after ? '…' : '';
  return { text: `${prefix}${kept}${suffix}`, caret: caret - from + prefix.length };
}

function trimEnd(text: string): string {
  return text.replace(/\s+$/, '');
}
