import { printable } from './printable.js';

/**
 * `text` as one word a POSIX shell reads back as it is (a path's spaces, a database URL's `?` and
 * `&`). Every command voxform prints for the user to paste quotes what it took from them this way.
 * A word holding what the printing rule escapes (a control, a line break, an invisible character,
 * the `[` of `##[`) is written in ANSI-C quotes, `$'p/x\n\033[31m'`, each such character as its escape:
 * inside plain quotes the printed `\u001b` would be text, and the command would name another file.
 */
export function shellWord(text: string): string {
  // A leading `=` is quoted: zsh reads `=name` as the path of the command `name`.
  if (/^[\w./@:%+,-][\w./@:%+=,-]*$/.test(text)) return text;
  if (printable(text) === text && !text.includes('##[')) return `'${text.replaceAll("'", "'\\''")}'`;
  // `##[` would be printed `##\u005b` (a CI log's workflow command): its `[` is written as its escape.
  return `$'${Array.from(text, ansiCCharacter).join('').replaceAll('##[', '##\\133')}'`;
}

/** One character inside `$'…'`: a quote or a backslash escaped, a character the printing rule escapes as its UTF-8 bytes in octal. */
function ansiCCharacter(character: string): string {
  if (character === "'" || character === '\\') return `\\${character}`;
  if (character === '\n') return '\\n';
  if (printable(character) === character) return character;
  return Array.from(Buffer.from(character, 'utf8'), (byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');
}
