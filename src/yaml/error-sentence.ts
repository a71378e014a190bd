/** How a YAML parser error reads inside voxform's own sentence. This module loads nothing (no yaml library). */

/**
 * The parser's messages that quote the text it read after these words (a tag, a directive, an
 * escape, a token it could not place, a block scalar header's extra characters): cut after them, as
 * the text may hold a secret. The error's place says where to look.
 */
const QUOTING_LEADS = [
  'Block scalar header includes extra characters',
  'Unresolved tag',
  'Not a valid tag',
  'Could not resolve tag',
  'Not a YAML token',
  'Invalid escape sequence',
  'Unknown directive',
  'Unsupported YAML version',
  'Unresolved plain scalar',
  'Ordered maps must not include duplicate keys',
];

/** The parser's message with what it quotes of the text left out. */
function withoutQuotedText(message: string): string {
  const lead = QUOTING_LEADS.find((words) => message.startsWith(words));
  if (lead !== undefined) return lead;
  if (/^The .* tag has no suffix$/.test(message)) return 'A tag has no suffix';
  if (message.startsWith("Verbatim tags aren't resolved")) return "Verbatim tags aren't resolved";
  // A token the lexer could not read, quoted as JSON after the parser's words.
  return message.replace(/: ".*$/, '');
}

/**
 * The parser's message, first line only, without its position, a trailing period or any text it
 * quotes (the caller adds context and the place).
 */
export function yamlErrorSentence(message: string): string {
  const first = withoutQuotedText((message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, ''));
  return first.replace(/[.:]$/, '').replace(/^\w/, (c) => c.toLowerCase());
}
