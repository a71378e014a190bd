/**
 * The one Markdown escaper: text voxform did not write passes one of these, so it cannot mention
 * someone or an issue, open HTML, link, close a table cell or code span, or start a heading or list, and carries
 * no control character (`printable`). Its `[` is always `\[` and a leading `::` is `\::` (in HTML,
 * where a backslash shows: the `[` of `##[` is `&#91;` and a leading `:` of `::` is `&#58;`), so text
 * printed to a CI log forms no workflow command and renders as it reads (see `terminalText`, whose
 * own escape, `\u005b`, would show).
 */
import { printable } from './printable.js';
import { greatest } from './extremes.js';

/** One line of printable text: line breaks fold into a space, other controls are escaped visibly. */
function oneLine(text: string): string {
  return printable(text.replace(/[\r\n]+/g, ' '));
}

/**
 * Bare web addresses, which GitHub links: `://` and `www.` written with entities, shown the same. A
 * `www.` is linked after white space and after `_`, `*`, `~` or `(` (which `\b` does not see before a
 * letter, for `_`): every one not inside a word is written so.
 */
function unlinked(text: string): string {
  return text.replace(/:\/\//g, ':&#47;&#47;').replace(/(?<![a-z0-9])www\./gi, (www) => `${www.slice(0, 3)}&#46;`);
}

/**
 * `@` followed by a zero-width space notifies no one (the host decodes an entity before it looks for
 * mentions); so is an issue reference, `#12` or `GH-12` (also `owner/repo#12`), which would link that
 * issue and write a cross-reference into it.
 */
function unmentioned(text: string): string {
  // Not the `#` of an entity voxform wrote (`&#47;`): the author's `&` is `&amp;` by now.
  return text.replace(/@|(?<!&)#(?=\d)|\bGH-(?=\d)/gi, (mark) => `${mark}&#8203;`);
}

/** Text inside a Markdown line: one line, every character that could start something active written literally. */
export function markdownText(text: string): string {
  const escaped = oneLine(text)
    // One space, which still parts the text from what stands before it: four spaces or a tab at a line's start would open a code block, where every escape below shows.
    .replace(/^[ \t]+/, ' ')
    .replace(/&/g, '&amp;')
    .replace(/[\\`*_{}[\]|~]/g, (c) => `\\${c}`)
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/^(\s*)(?:([-+=#]|:(?=:))|(\d+)(?=[.)]))/, (_, space: string, mark: string | undefined, number: string | undefined) => (mark ? `${space}\\${mark}` : `${space}${number}\\`))
    // A run of `#` after a space that ends a heading's line is its closing sequence, which the heading drops.
    .replace(/(?<=[ \t])#(?=#*[ \t]*$)/, '\\#');
  return unmentioned(unlinked(escaped));
}

/**
 * Text inside an HTML element of the Markdown (a `<summary>`, where backslash escapes show as they
 * are): one line, HTML-escaped as element text, mentions and bare addresses neutralised, and
 * workflow commands written with an entity that renders as the character.
 */
export function markdownHtmlText(text: string): string {
  const escaped = oneLine(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/(?<=##)\[/g, '&#91;')
    .replace(/^(\s*):(?=:)/, '$1&#58;');
  return unmentioned(unlinked(escaped));
}

/**
 * A code span of any text: one line, delimited by a backtick run longer than any inside, so the text
 * cannot close it; in a table cell a `|` would still end the cell, so it is escaped there.
 */
export function markdownCode(text: string, options: { inTable?: boolean } = {}): string {
  let content = oneLine(text);
  if (options.inTable) content = content.replace(/\|/g, '\\|');
  const longest = greatest([...content.matchAll(/`+/g)].map((run) => run[0].length), 0);
  const ticks = '`'.repeat(longest + 1);
  const pad = content.startsWith('`') || content.endsWith('`') ? ' ' : '';
  return `${ticks}${pad}${content}${pad}${ticks}`;
}

/**
 * A fenced code block: the fence is longer than any backtick run inside; each line printable.
 * `sizedFor` sizes the fence for other lines than those shown: a block cut to a size budget keeps the
 * fence of the whole, so its size does not change with how much of it is kept.
 */
export function markdownFence(lines: readonly string[], info = '', options: { sizedFor?: readonly string[] } = {}): string[] {
  const shown = lines.map(printable);
  let longest = 2;
  for (const line of options.sizedFor ?? shown) for (const run of line.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
  const fence = '`'.repeat(longest + 1);
  return [`${fence}${info}`, ...shown, fence];
}
