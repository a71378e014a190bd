/** A key or token voxform sends in a request header (from the environment or a library caller): read once, checked once. */
import { VoxformError } from '../errors.js';

/** What a header value may hold here: printable ASCII. Keys and tokens are made of it; anything else came with a copy. */
const NOT_HEADER_TEXT = /[^\x20-\x7e]/u;

/**
 * `env[name]` trimmed (a trailing line break, as `$(cat key-file)` leaves, is fine), undefined when
 * unset or empty; a character a header cannot carry is refused as `headerValue` says.
 */
export function headerValueFromEnv(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  return headerValue(env[name], name);
}

/**
 * A key or token sent in a header, from the environment or from a library caller (`createClient`'s
 * `apiKey`): trimmed, undefined when empty. A character a header cannot carry (a line break
 * inside, a zero-width space a copy from a web page brought along) is `env_header_invalid`, naming
 * `name`, the character (escaped) and its place, never the value: nothing is sent, where the HTTP
 * library would refuse the header with an error that reads like a network failure.
 */
export function headerValue(raw: string | undefined, name: string): string | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  const found = NOT_HEADER_TEXT.exec(value);
  if (found) {
    const position = [...value.slice(0, found.index)].length + 1;
    throw new VoxformError('env_header_invalid', `${name} is malformed: character ${position} is ${describeCharacter(found[0])}, which a request header cannot carry; nothing was sent.`, {
      hint: `Set ${name} again to the value alone: a copy from a web page, a chat or a document can bring an invisible character or a line break along.`,
    });
  }
  return value;
}

/** `\n`, `\u200b (U+200B)`, `é (U+00E9)`: escaped where it would not show, with its code point. */
function describeCharacter(character: string): string {
  const codePoint = character.codePointAt(0) as number;
  const hex = codePoint.toString(16).toUpperCase().padStart(4, '0');
  const named = JSON.stringify(character).slice(1, -1);
  const escaped = codePoint > 0xffff ? `\\u{${hex.toLowerCase()}}` : `\\u${hex.toLowerCase()}`;
  const shown = named !== character ? named : /[\p{L}\p{N}\p{P}\p{S}]/u.test(character) ? character : escaped;
  return `${shown} (U+${hex})`;
}
