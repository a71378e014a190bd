/**
 * The one way voxform shortens text it quotes: at most `max` UTF-16 units (what bounds a message's
 * size), `max` terminal cells (what a table's column holds) or `max` UTF-8 bytes (what a
 * pull-request comment's size counts), the cut marked with "…" and made between two characters as a
 * reader sees them (grapheme clusters), so an emoji, a flag or a letter with its accents is kept
 * whole or left out whole, never cut into a half that shows as �.
 */
import { displayWidth, graphemes, graphemeWidth } from './display-width.js';

/** What `max` counts: UTF-16 units, the cells a terminal gives the text, or UTF-8 bytes. */
export type Measure = 'units' | 'cells' | 'bytes';

const ELLIPSIS = '…';

/** `text`, or its longest start that fits `max` (units, cells or bytes) with the "…" after it. */
export function shorten(text: string, max: number, measure: Measure = 'units'): string {
  if (sizeOf(text, measure) <= max) return text;
  return `${text.slice(0, boundaryWithin(text, Math.max(0, max - sizeOf(ELLIPSIS, measure)), measure))}${ELLIPSIS}`;
}

function sizeOf(text: string, measure: Measure): number {
  if (measure === 'cells') return displayWidth(text);
  return measure === 'bytes' ? Buffer.byteLength(text, 'utf8') : text.length;
}

/**
 * The end of the longest run of whole graphemes of `text` within `budget`: where text cut with a
 * marker of its caller's (a plan comment's `⋯`) is cut. By units, inside one longer grapheme, a
 * code point boundary (cells have no half of a grapheme to keep, and bytes only bound a comment
 * that then shows less).
 */
export function boundaryWithin(text: string, budget: number, measure: Measure): number {
  let end = 0;
  let used = 0;
  for (const { index, segment } of graphemes(text)) {
    used = measure === 'units' ? index + segment.length : used + (measure === 'cells' ? graphemeWidth(segment) : Buffer.byteLength(segment, 'utf8'));
    if (used > budget) return end > 0 || measure !== 'units' ? end : codePointBoundary(text, budget);
    end = index + segment.length;
  }
  return end;
}

/** `at`, or one unit before it when `at` would split a surrogate pair. */
export function codePointBoundary(text: string, at: number): number {
  const unit = text.charCodeAt(at - 1);
  return at > 0 && unit >= 0xd800 && unit <= 0xdbff ? at - 1 : at;
}

/** A quoted message that ends a sentence of voxform's, which adds the full stop: the message's own would make two (`error..`, `error.:`). */
export function withoutFullStop(text: string): string {
  return text.replace(/\.+$/, '');
}
