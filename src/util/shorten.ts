/**
 * The one way voxform shortens text it quotes: at most `max` UTF-16 units (what bounds a message's
 * size), the cut marked with "…" and made between two characters as a reader sees them (grapheme
 * clusters), so an emoji, a flag or a letter with its accents is kept whole or left out whole, never
 * cut into a half that shows as �.
 */
import { graphemes } from './display-width.js';

/** `text`, or its longest start that fits `max` units with the "…" after it. */
export function shorten(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, boundaryWithin(text, Math.max(0, max - 1)))}…`;
}

/** The end of the longest run of whole graphemes within `budget` units; inside one longer grapheme, a code point boundary. */
function boundaryWithin(text: string, budget: number): number {
  let end = 0;
  for (const { index, segment } of graphemes(text)) {
    if (index + segment.length > budget) return end > 0 ? end : codePointBoundary(text, budget);
    end = index + segment.length;
  }
  return end;
}

/** `at`, or one unit before it when `at` would split a surrogate pair. */
export function codePointBoundary(text: string, at: number): number {
  const unit = text.charCodeAt(at - 1);
  return at > 0 && unit >= 0xd800 && unit <= 0xdbff ? at - 1 : at;
}
