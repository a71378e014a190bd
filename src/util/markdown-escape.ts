/**
 * The one Markdown escaper: every text voxform did not write that goes into Markdown (the plan
 * comment, the test report, the call report) passes one of these, so a name, a reply or a value
 * cannot mention someone, open HTML, link, close a table cell or a code span, or start a heading or
 * a list — and carries no control character (the printing rule of `printable`). What voxform writes
 * around it (its own headings, tables, fences) is left to the renderer.
 */
import { printable } from './printable.js';

/** One line of printable text: line breaks fold into a space, other controls are escaped visibly. */
function oneLine(text: string): string {
  return printable(text.replace(/[\r\n]+/g, ' '));
}

/**
 * Bare web addresses, which GitHub makes links of: `://` and `www.` are written with entities, shown
 * the same but never linked.
 */
function unlinked(text: string): string {
  return text.replace(/:\/\//g, ':&#47;&#47;').replace(/\bwww\./gi, (www) => `${www.slice(0, 3)}&#46;`);
}

/**
 * A mention: `@` is followed by a zero-width space, so `@team` shows as written but notifies no one
 * (an entity alone would not do: the host decodes it before it looks for mentions).
 */
function unmentioned(text: string): string {
  return text.replace(/@/g, '@&#8203;');
}

/**
 * Text inside a Markdown line — a table cell, a heading, a list item, a paragraph: one line, with
 * every character that could start something active written literally (emphasis, code, links and
 * images, the cell separator, HTML, entities, mentions, bare addresses), and a line start that
 * could open a heading, a list or a quote escaped.
 */
export function markdownText(text: string): string {
  const escaped = oneLine(text)
    .replace(/&/g, '&amp;')
    .replace(/[\\`*_{}[\]|~]/g, (c) => `\\${c}`)
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/^(\s*)(?:([-+=#])|(\d+)(?=[.)]))/, (_, space: string, mark: string | undefined, number: string | undefined) => (mark ? `${space}\\${mark}` : `${space}${number}\\`));
  return unmentioned(unlinked(escaped));
}

/**
 * Text inside an HTML element of the Markdown (a `<summary>`), where the host shows backslash escapes
 * as they are but decodes entities: one line, HTML-escaped (`&`, `<`, `>`: it is element text, never an
 * attribute), mentions and bare addresses neutralised.
 */
export function markdownHtmlText(text: string): string {
  const escaped = oneLine(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return unmentioned(unlinked(escaped));
}

/**
 * A code span of any text: one line, delimited by a backtick run longer than any inside (padded when
 * the text starts or ends with a backtick), so the text cannot close it. Nothing inside a code span is
 * active; in a table cell (`inTable`) a `|` would still end the cell, so it is escaped there.
 */
export function markdownCode(text: string, options: { inTable?: boolean } = {}): string {
  let content = oneLine(text);
  if (options.inTable) content = content.replace(/\|/g, '\\|');
  const longest = Math.max(0, ...[...content.matchAll(/`+/g)].map((run) => run[0].length));
  const ticks = '`'.repeat(longest + 1);
  const pad = content.startsWith('`') || content.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${content}${pad}${ticks}`;
}

/**
 * A fenced code block of any lines: the fence is longer than any backtick run inside, so no line can
 * close it; each line is printable, line breaks aside.
 */
export function markdownFence(lines: readonly string[], info = ''): string[] {
  const shown = lines.map(printable);
  let longest = 2;
  for (const line of shown) for (const run of line.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${info}`, ...shown, fence];
}
