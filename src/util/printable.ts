/**
 * Text from data voxform reads but did not necessarily write (the state, a lock's holder file, a history record), safe
 * to print on a terminal: a control character (the start of an escape sequence that could clear the
 * screen, retitle the window or hide a line) is shown as `?`, never sent. Line breaks too: a value
 * is printed on the line it belongs to. JSON output needs none of this: JSON.stringify escapes them.
 */
export function printable(text: string): string {
  return text.replace(/[\x00-\x1f\x7f-\x9f]/g, '?');
}
