/**
 * The one printing rule: text from input voxform did not write — a manifest, a test file, an
 * agent's reply, a caller's message, a model's answer, a service's record — made safe to show.
 * Control characters begin every escape sequence that recolours, retitles or rewrites a terminal
 * (`ESC ]0;…BEL` sets its title, `ESC ]52;…` its clipboard), and a line break in a name can fake a
 * line of output. DEL and the C1 controls (U+0080–U+009F) count too: some terminals obey them as
 * ESC sequences (U+009B is a CSI). So do the invisible bidirectional controls (U+202A–U+202E,
 * U+2066–U+2069, and the marks U+200E, U+200F, U+061C): they reorder what a reader sees, so a line
 * can read otherwise than it is.
 *
 * Every write to stdout and stderr passes `terminalText` (the CLI's output streams apply it), so a
 * command inherits the rule. The functions below keep what a layout needs on top of it: a renderer
 * may escape a value first, to keep it on its line.
 */

/** The bidirectional controls, as a character-class body. */
const BIDI = '\\u061c\\u200e\\u200f\\u202a-\\u202e\\u2066-\\u2069';

/** Every control character. */
const CONTROLS = new RegExp(`[\\x00-\\x1f\\x7f-\\x9f${BIDI}]`, 'g');
/** Every control character but the tab. */
const CONTROLS_BUT_TAB = new RegExp(`[\\x00-\\x08\\x0a-\\x1f\\x7f-\\x9f${BIDI}]`, 'g');
/** Every control character but the tab and the line feed. */
const CONTROLS_BUT_TAB_AND_LINE_FEED = new RegExp(`[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${BIDI}]`, 'g');
/**
 * What a terminal stream may carry: the sequences voxform itself writes on a terminal (an SGR colour,
 * `\r ESC[K` clearing a progress line) are matched whole first, then any other control character.
 */
const TERMINAL = new RegExp(`(\\x1b\\[[0-9;]*m|\\r\\x1b\\[K)|[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${BIDI}]`, 'g');
/** What JSON.stringify leaves raw inside a string and a terminal would obey: DEL, C1, bidi. */
const JSON_RAW_CONTROLS = new RegExp(`[\\x7f-\\x9f${BIDI}]`, 'g');

/**
 * Each control character but the tab written as JSON writes it (`\u001b`, `\n`), the form `plan`
 * shows such values in; DEL, the C1 and the bidirectional controls, which JSON leaves raw, as
 * `\u007f`, `\u009b`, `\u202e`.
 */
export function printable(text: string): string {
  return text.replace(CONTROLS_BUT_TAB, escapeControl);
}

/**
 * Running text shown as it is, an agent's reply in `voxform chat`: its line breaks and tabs are the
 * text's own, so they are kept; every other control character — a carriage return too, which lets
 * a reply write over what was printed — is escaped as `printable` escapes it.
 */
export function printableKeepingLines(text: string): string {
  return text.replace(CONTROLS_BUT_TAB_AND_LINE_FEED, escapeControl);
}

/**
 * Text on its way to a terminal, the rule every write to stdout and stderr passes: as
 * `printableKeepingLines`, except that on a terminal (`styled`) the colour and line-clearing
 * sequences voxform writes itself are kept. Off a terminal (a pipe, a file, a CI log) no control
 * character but the line feed and the tab goes out raw. JSON stays valid JSON: outside its strings
 * it holds no control character but those two, and inside a string `\u009b` is the same character.
 */
export function terminalText(text: string, styled: boolean): string {
  TERMINAL.lastIndex = 0;
  if (!TERMINAL.test(text)) return text;
  return text.replace(TERMINAL, (match: string, own: string | undefined) => (own !== undefined && styled ? match : match.replace(CONTROLS, escapeControl)));
}

/**
 * The one JSON serializer for output (stdout, a report file): JSON.stringify, with DEL, the C1 and
 * the bidirectional controls, which it leaves raw inside strings, escaped as `\uXXXX` too. The value
 * read back is the same.
 */
export function toJsonText(value: unknown, indent?: number): string {
  return JSON.stringify(value, null, indent).replace(JSON_RAW_CONTROLS, escapeControl);
}

function escapeControl(ch: string): string {
  return ch < ' ' ? JSON.stringify(ch).slice(1, -1) : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * The same safety where a value is shown in a fixed layout (the state, a lock's holder file, a
 * history record: `status`, `state`, `history`, `rollback`): each control character, line breaks
 * too, is one `?`, so a value keeps its place on its line and its width. JSON output needs neither:
 * `toJsonText` escapes them.
 */
export function controlsAsQuestionMarks(text: string): string {
  return text.replace(CONTROLS, '?');
}

/**
 * A line of text shown as it is, in a plan's diff (a line of a prompt, a field's path): its value
 * may come from anywhere (the service, a pull request), so each control character is one `?` as
 * above — but a tab is kept, as the text's own indentation.
 */
export function lineAsShown(text: string): string {
  return text.replace(CONTROLS_BUT_TAB, '?');
}

/** Whether the text holds any C0, C1 or DEL control character: a name voxform writes never does. */
export function hasControlCharacter(text: string): boolean {
  return /[\x00-\x1f\x7f-\x9f]/.test(text);
}
