/**
 * The one printing rule: text voxform did not write made safe to show. Control characters begin
 * every escape sequence that retitles or rewrites a terminal (`ESC ]52;…` sets its clipboard), and a
 * line break in a name can fake a line of output; DEL and C1 count too (U+009B is a CSI), and so do
 * the bidirectional controls, which reorder what a reader sees. Every write to stdout and stderr
 * passes `terminalText`; the other functions keep what a layout needs on top of it.
 */

/**
 * The mark voxform's own terminal sequences carry (its colours, the progress line's `\r ESC[K`),
 * drawn afresh each run from the private-use area: text voxform quotes cannot know it, so a sequence
 * in a file name or a prompt is escaped however exactly it copies one of voxform's.
 */
const OWN_MARK = String.fromCharCode(...crypto.getRandomValues(new Uint16Array(6)).map((n) => 0xe000 + (n % 0x1900)));

/** A terminal sequence voxform writes itself (`terminal-colors.ts`, the progress line), marked so `terminalText` keeps it. */
export function ownSequence(sequence: string): string {
  return `${OWN_MARK}${sequence}`;
}

/** The bidirectional controls, as a character-class body. */
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

/** Every control character. */
const CONTROLS = new RegExp(`[\\x00-\\x1f\\x7f-\\x9f${BIDI}]`, 'g');
/** Every control character but the tab. */
const CONTROLS_BUT_TAB = new RegExp(`[\\x00-\\x08\\x0a-\\x1f\\x7f-\\x9f${BIDI}]`, 'g');
/** Every control character but the tab and the line feed. */
const CONTROLS_BUT_TAB_AND_LINE_FEED = new RegExp(`[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${BIDI}]`, 'g');
/** A terminal stream: voxform's own marked sequences (an SGR colour, `\r ESC[K`) matched whole first, then any control. */
const TERMINAL = new RegExp(`${OWN_MARK}(\\r?\\x1b\\[[0-9;]*[mK])|[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${BIDI}]`, 'g');
/** What JSON.stringify leaves raw inside a string and a terminal would obey: DEL, C1, bidi. */
const JSON_RAW_CONTROLS = new RegExp(`[\\x7f-\\x9f${BIDI}]`, 'g');

/** Each control character but the tab escaped as JSON writes it (`\u001b`, `\n`), DEL, C1 and bidi included. */
export function printable(text: string): string {
  return text.replace(CONTROLS_BUT_TAB, escapeControl);
}

/** Running text (a reply in `voxform chat`): line breaks and tabs kept, other controls (`\r` too) escaped. */
export function printableKeepingLines(text: string): string {
  return text.replace(CONTROLS_BUT_TAB_AND_LINE_FEED, escapeControl);
}

/**
 * The rule every write to stdout and stderr passes: as `printableKeepingLines`, but voxform's own
 * colour and line-clearing sequences (`ownSequence`) are kept on a terminal (`styled`) and dropped
 * elsewhere. Any other sequence is escaped, even one that reads exactly like voxform's. JSON stays valid JSON.
 */
export function terminalText(text: string, styled: boolean): string {
  TERMINAL.lastIndex = 0;
  if (!TERMINAL.test(text)) return text;
  return text.replace(TERMINAL, (match: string, own: string | undefined) => (own === undefined ? match.replace(CONTROLS, escapeControl) : styled ? own : ''));
}

/** The one JSON serializer for output: JSON.stringify, with DEL, C1 and bidi (left raw by it) escaped too. */
export function toJsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(JSON_RAW_CONTROLS, escapeControl);
}

function escapeControl(ch: string): string {
  return ch < ' ' ? JSON.stringify(ch).slice(1, -1) : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** A value in a fixed layout (`status`, `history`): each control character, line breaks too, is one `?`. */
export function controlsAsQuestionMarks(text: string): string {
  return text.replace(CONTROLS, '?');
}

/** A line in a plan's diff: each control character is one `?`, but a tab is kept as indentation. */
export function lineAsShown(text: string): string {
  return text.replace(CONTROLS_BUT_TAB, '?');
}

/** Whether the text holds any C0, C1 or DEL control character: a name voxform writes never does. */
export function hasControlCharacter(text: string): boolean {
  return /[\x00-\x1f\x7f-\x9f]/.test(text);
}
