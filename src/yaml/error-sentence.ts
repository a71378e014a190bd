/** How a YAML parser error reads inside voxform's own sentence. This module loads nothing (no yaml library). */

/** The parser's message, first line only, without its position or a trailing period (the caller adds context). */
export function yamlErrorSentence(message: string): string {
  const first = (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
  return first.replace(/[.:]$/, '').replace(/^\w/, (c) => c.toLowerCase());
}
