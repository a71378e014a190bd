import { printable } from './printable.js';

/**
 * `text` as one word a POSIX shell reads back as it is (a path's spaces, a database URL's `?` and
 * `&`). Every command voxform prints for the user to paste quotes what it took from them this way.
 * A word holding a character the printing rule escapes (a control, a line break, an invisible
 * character) is written in ANSI-C quotes, `$'p/x\n\033[31m'`, each such character as its escape:
 * inside plain quotes the printed `\u001b` would be text, and the command would name another file.
 */
export function shellWord(text: string): string {
  if (/^[\w./@:%+=,-]+$/.test(text)) return text;
  if (printable(text) === text) return `'${text.replaceAll("'", "'\\''")}'`;
  return `$'${Array.from(text, ansiCCharacter).join('')}'`;
}

/** One character inside `$'…'`: a quote or a backslash escaped, a character the printing rule escapes as its UTF-8 bytes in octal. */
function ansiCCharacter(character: string): string {
  if (character === "'" || character === '\\') return `\\${character}`;
  if (character === '\n') return '\\n';
  if (printable(character) === character) return character;
  return Array.from(Buffer.from(character, 'utf8'), (byte) => `\\${byte.toString(8).padStart(3, '0')}`).join('');
}
