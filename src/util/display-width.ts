/**
 * How wide text is on a terminal, in cells: what a caret under a value is padded by. A character as a
 * reader sees it (a grapheme cluster) takes two cells when it is East Asian wide or fullwidth (CJK,
 * Hangul, fullwidth forms) or an emoji shown as one, none when it is only marks that draw on what is
 * before them (a combining accent alone, a zero-width character), and one otherwise.
 */

// Made on first use: making one loads the runtime's break rules, which most commands never need.
let graphemeSegmenter: Intl.Segmenter | undefined;

/** The East Asian Wide and Fullwidth blocks, by the character a cluster starts with. */
const WIDE = /^[\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua000-\ua4cf\ua960-\ua97f\uac00-\ud7a3\uf900-\ufaff\ufe10-\ufe19\ufe30-\ufe6f\uff00-\uff60\uffe0-\uffe6\u{16fe0}-\u{16fe4}\u{17000}-\u{18aff}\u{1b000}-\u{1b2ff}\u{1f200}-\u{1f251}\u{20000}-\u{2fffd}\u{30000}-\u{3fffd}]/u;
/** An emoji drawn as a picture: one that is by default, one asked to be (U+FE0F), a flag, a keycap. */
const EMOJI = /\p{Emoji_Presentation}|\ufe0f|\p{Regional_Indicator}{2}|\u20e3/u;
/** Marks and format characters only: drawn on what comes before, or not at all. */
const ZERO_WIDTH = /^[\p{Mn}\p{Me}\p{Cf}]+$/u;
/**
 * Printable ASCII only: each character a grapheme of its own, one cell wide. Most text is, and a
 * code frame measures its lines several times per problem: this skips the segmenter for them.
 */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/** The grapheme clusters of `text`, each with where it starts (UTF-16 units). */
export function graphemes(text: string): Iterable<{ segment: string; index: number }> {
  graphemeSegmenter ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return graphemeSegmenter.segment(text);
}

/** The cells one grapheme cluster takes. */
export function graphemeWidth(cluster: string): number {
  if (ZERO_WIDTH.test(cluster)) return 0;
  return WIDE.test(cluster) || EMOJI.test(cluster) ? 2 : 1;
}

/** The cells `text` takes on a terminal (one line of it). */
export function displayWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let width = 0;
  for (const { segment } of graphemes(text)) width += graphemeWidth(segment);
  return width;
}

/**
 * The whole grapheme clusters of `text` that lie between cells `start` and `end`, and the cell the
 * first of them starts at (undefined when none fits).
 */
export function cellsWithin(text: string, start: number, end: number): { text: string; from: number | undefined } {
  if (PRINTABLE_ASCII.test(text)) {
    const kept = text.slice(start, end);
    return { text: kept, from: kept === '' ? undefined : start };
  }
  let kept = '';
  let from: number | undefined;
  let column = 0;
  for (const { segment } of graphemes(text)) {
    const next = column + graphemeWidth(segment);
    if (column >= start && next <= end) {
      from ??= column;
      kept += segment;
    }
    column = next;
  }
  return { text: kept, from };
}

/** `text` with spaces added to fill `width` cells: after it, or before it for a right-aligned cell. */
export function padToWidth(text: string, width: number, align: 'left' | 'right' = 'left'): string {
  const fill = ' '.repeat(Math.max(0, width - displayWidth(text)));
  return align === 'right' ? fill + text : text + fill;
}
