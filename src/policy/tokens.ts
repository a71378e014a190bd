/**
 * Token counts with a real BPE tokenizer (gpt-tokenizer, o200k_base). Loading its tables costs more
 * than checking a whole manifest, so it is loaded on the first count that needs it: a byte-level BPE
 * token covers at least one byte, so a text of at most N UTF-8 bytes has at most N tokens and a
 * budget check of a shorter text needs no tokenizer at all.
 *
 * The tokenizer's time grows with the square of each word's length, and a text from a pull request
 * may be one word of two million characters: it would count for hours. So a text is handed to the
 * tokenizer in pieces of at most MAX_PIECE_LENGTH characters, each counted in a slice
 * (sync-slices.ts), so a long count serves Ctrl-C and SIGTERM as it goes (docs/security.md §4).
 */
import { inSlice } from '../util/sync-slices.js';
import type { TokenCounter } from './types.js';
import { perDistinctText } from './distinct-texts.js';

const TOKENIZER_ENCODING = 'o200k_base';

/**
 * The longest piece of text the tokenizer is given. Past a few hundred characters a piece costs
 * more per character (the square of a word's length); below that, the tokenizer's cost per
 * character no longer falls. No word of prose comes near it, so prose is cut only where the
 * tokenizer splits words anyway.
 */
export const MAX_PIECE_LENGTH = 256;

/** Counts the tokens of a piece of text (at most MAX_PIECE_LENGTH characters). */
type CountPiece = (piece: string) => number;

let loading: Promise<CountPiece> | undefined;

function tokenizer(): Promise<CountPiece> {
  // Text that reads as a special token (`<|endoftext|>`) is text in a prompt: counted as written, never refused.
  const asText = { disallowedSpecial: new Set<string>() };
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => (piece: string) => module.countTokens(piece, asText));
  return loading;
}

/**
 * `text` in pieces of at most MAX_PIECE_LENGTH characters whose counts add up to the text's. A
 * piece ends where the tokenizer's own word split (o200k_base) always splits and looks no further,
 * so the sum is exact: before a space that follows a character that is not white space, or before
 * a line break that follows a letter or digit. A run with no such place in MAX_PIECE_LENGTH
 * characters (a long word, a line of symbols, text in a script written without spaces) is cut at
 * that length, which may give a token more or fewer per cut.
 */
export function* tokenizerPieces(text: string): Generator<string> {
  let start = 0;
  while (text.length - start > MAX_PIECE_LENGTH) {
    const end = pieceEnd(text, start);
    yield text.slice(start, end);
    start = end;
  }
  if (start < text.length) yield text.slice(start);
}

/** Where the piece starting at `start` ends: the last place to split within MAX_PIECE_LENGTH characters, else that length (never inside a surrogate pair). */
function pieceEnd(text: string, start: number): number {
  const limit = start + MAX_PIECE_LENGTH;
  for (let at = limit; at > start; at--) if (wordSplitBefore(text, at)) return at;
  const lead = text.charCodeAt(limit - 1);
  return lead >= 0xd800 && lead <= 0xdbff ? limit - 1 : limit;
}

function wordSplitBefore(text: string, at: number): boolean {
  const before = text[at - 1] as string;
  return (text[at] === ' ' && !/\s/.test(before)) || (text[at] === '\n' && /[\p{L}\p{N}]/u.test(before));
}

/** The token count of `text`, its pieces counted in slices. */
async function countInPieces(text: string, countPiece: CountPiece): Promise<number> {
  const counts = await Promise.all(Array.from(tokenizerPieces(text), (piece) => inSlice(() => countPiece(piece))));
  return counts.reduce((sum, count) => sum + count, 0);
}

/** `countPiece`: the tokenizer (a test gives one that records the pieces it is given). */
export function createTokenCounter(countPiece?: CountPiece): TokenCounter {
  // Counted and measured once per distinct text (distinct-texts.ts): a prompt every agent shares is one string.
  const count = perDistinctText(async (text: string) => countInPieces(text, countPiece ?? (await tokenizer())));
  const utf8Bytes = perDistinctText((text: string) => Buffer.byteLength(text, 'utf8'));
  return {
    encoding: TOKENIZER_ENCODING,
    count,
    async over(text, limit) {
      if (utf8Bytes(text) <= limit) return undefined;
      const tokens = await count(text);
      return tokens > limit ? tokens : undefined;
    },
  };
}
