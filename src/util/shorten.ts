/**
 * The one way voxform shortens text it quotes: at most `max` UTF-16 units (what bounds a message's
 * size), or `max` terminal cells (what a table's column holds), the cut marked with "…" and made
 * between two characters as a reader sees them (grapheme clusters), so an emoji, a flag or a letter
 * with its accents is kept whole or left out whole, never cut into a half that shows as �.
 */
import { displayWidth, graphemes, graphemeWidth } from './display-width.js';

/** What `max` counts: UTF-16 units, or the cells a terminal gives the text. */
type Measure = 'units' | 'cells';

/** `text`, or its longest start that fits `max` (units or cells) with the "…" after it. */
export function shorten(text: string, max: number, measure: Measure = 'units'): string {
  if ((measure === 'cells' ? displayWidth(text) : text.length) <= max) return text;
  return `${text.slice(0, boundaryWithin(text, Math.max(0, max - 1), measure))}…`;
}

/**
 * The end of the longest run of whole graphemes within `budget`; by units, inside one longer
 * grapheme, a code point boundary (cells have no half of a grapheme to keep).
 */
function boundaryWithin(text: string, budget: number, measure: Measure): number {
  let end = 0;
  let cells = 0;
  for (const { index, segment } of graphemes(text)) {
    const used = measure === 'cells' ? (cells += graphemeWidth(segment)) : index + segment.length;
    if (used > budget) return end > 0 || measure === 'cells' ? end : codePointBoundary(text, budget);
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
