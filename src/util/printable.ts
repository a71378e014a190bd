/**
 * Text from input voxform did not write — a test file, an agent's reply, a model's answer, a
 * service's record — made safe to print. Control characters begin every escape sequence that
 * recolours, retitles or rewrites a terminal (`ESC ]0;…BEL` sets its title), and a line break in a
 * name can fake a line of output. DEL and the C1 controls (U+0080–U+009F) count too: some terminals
 * obey them as ESC sequences. Each printer below keeps only what the text's own layout needs.
 */

/** Every control character. */
const CONTROLS = /[\x00-\x1f\x7f-\x9f]/g;
/** Every control character but the tab. */
const CONTROLS_BUT_TAB = /[\x00-\x08\x0a-\x1f\x7f-\x9f]/g;
/** Every control character but the tab and the line feed. */
const CONTROLS_BUT_TAB_AND_LINE_FEED = /[\x00-\x08\x0b-\x1f\x7f-\x9f]/g;

/**
 * Each control character but the tab written as JSON writes it (`\u001b`, `\n`), the form `plan`
 * shows such values in; DEL and the C1 controls, which JSON leaves raw, as `\u007f`, `\u009b`.
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

function escapeControl(ch: string): string {
  return ch < ' ' ? JSON.stringify(ch).slice(1, -1) : `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/**
 * The same safety where a value is shown in a fixed layout (the state, a lock's holder file, a
 * history record: `status`, `state`, `history`, `rollback`): each control character, line breaks
 * too, is one `?`, so a value keeps its place on its line and its width. JSON output needs neither:
 * JSON.stringify escapes them.
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

/** Whether the text holds any control character: a name voxform writes never does. */
export function hasControlCharacter(text: string): boolean {
  return text.search(CONTROLS) >= 0;
}
