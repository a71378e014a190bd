/**
 * Manifests, templates and prompts must be UTF-8. A file that is not gets a diagnostic at its first
 * bad byte instead of silently turning into U+FFFD replacement characters in a live prompt.
 */
import { isUtf8 } from 'node:buffer';
import { textPosition } from '../util/text-position.js';

interface DecodedText {
  /** The text (a leading byte-order mark removed); lenient (U+FFFD) where the bytes are invalid. */
  text: string;
  /** Why the bytes are not a text voxform reads, at the first place that shows it; undefined when they are. */
  problem: TextProblem | undefined;
}

export interface TextProblem {
  /** Offset in `text` of the first bad byte. */
  at: number;
  /** What is wrong and how to fix it, completing "<file> …" (no full stop): every reader of a file says the same. */
  message: string;
}

/** U+FEFF: a mark some editors write at a text's start, which a reader drops there. */
export const BYTE_ORDER_MARK = '\ufeff';

const lenient = new TextDecoder('utf-8', { fatal: false, ignoreBOM: false });

export function decodeUtf8(bytes: Uint8Array): DecodedText {
  const text = lenient.decode(bytes);
  const invalid = isUtf8(bytes) ? -1 : firstInvalidByte(bytes);
  // UTF-8 allows a NUL, but no text file holds one: UTF-16 without a byte-order mark reads as UTF-8
  // with a NUL beside every letter, and would otherwise be reported as a value of the wrong kind.
  const nul = bytes.indexOf(0);
  const bad = nul === -1 ? invalid : invalid === -1 ? nul : Math.min(nul, invalid);
  if (bad === -1) return { text, problem: undefined };
  // The valid prefix decodes to exactly the characters before the bad byte.
  const at = lenient.decode(bytes.subarray(0, bad)).length;
  // Windows editors' "Unicode" and PowerShell 5's redirections write UTF-16 with its byte order mark.
  if (bad === 0 && startsWithUtf16Mark(bytes)) return { text, problem: { at, message: 'is UTF-16 text (it starts with a UTF-16 byte order mark); save it as UTF-8' } };
  if (bad !== nul) return { text, problem: { at, message: 'is not valid UTF-8 text; save it as UTF-8' } };
  // The file is valid UTF-8 up to here: saying it is not would send its author looking for a wrong byte.
  const { line, col } = textPosition(text, at);
  return { text, problem: { at, message: `holds a NUL character at line ${line}, column ${col}, which no text file holds; remove it (a file saved as UTF-16 has one beside every letter: save it as UTF-8)` } };
}

function startsWithUtf16Mark(bytes: Uint8Array): boolean {
  return (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);
}

/** Byte offset of the first byte that does not start or continue a well-formed UTF-8 sequence. */
export function firstInvalidByte(bytes: Uint8Array): number {
  let i = 0;
  while (i < bytes.length) {
    const lead = bytes[i] as number;
    let length: number;
    let min: number;
    if (lead < 0x80) {
      i++;
      continue;
    } else if (lead >= 0xc2 && lead <= 0xdf) {
      length = 2;
      min = 0x80;
    } else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3;
      min = 0x800;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4;
      min = 0x10000;
    } else {
      return i;
    }
    if (i + length > bytes.length) return i;
    let codePoint = lead & (0xff >> (length + 1));
    for (let k = 1; k < length; k++) {
      const next = bytes[i + k] as number;
      if ((next & 0xc0) !== 0x80) return i;
      codePoint = (codePoint << 6) | (next & 0x3f);
    }
    if (codePoint < min || codePoint > 0x10ffff || (codePoint >= 0xd800 && codePoint <= 0xdfff)) return i;
    i += length;
  }
  return -1;
}
