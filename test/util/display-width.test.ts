import { describe, expect, it } from 'vitest';
import { cellsWithin, displayWidth, padToWidth } from '../../src/util/display-width.js';
import { shorten } from '../../src/util/shorten.js';

describe('displayWidth, in terminal cells', () => {
  it.each([
    ['ASCII', 'hot', 3],
    ['CJK and fullwidth forms take two', '受付です１', 10],
    ['Hangul takes two', '안녕', 4],
    ['an emoji takes two, joined or with a skin tone still one picture', '😀👩‍💻👍🏽', 6],
    ['a flag takes two', '🇯🇵', 2],
    ['a text symbol asked to be an emoji takes two', '❤️', 2],
    ['a combining accent takes none', 'e\u0301', 1],
    ['a zero-width space takes none', 'a\u200bb', 2],
  ])('%s', (_name, text, cells) => {
    expect(displayWidth(text)).toBe(cells);
  });
});

describe('padToWidth and shorten by cells, in terminal cells', () => {
  it('pads by cells, on the right or on the left', () => {
    expect(padToWidth('受付', 6)).toBe('受付  ');
    expect(padToWidth('😀', 4, 'right')).toBe('  😀');
    expect(padToWidth('long text', 3)).toBe('long text');
  });

  it('cuts at whole graphemes so that the text and its "…" fit', () => {
    expect(shorten('受付エージェント', 7, 'cells')).toBe('受付エ…');
    expect(shorten('👩‍💻👩‍💻👩‍💻', 5, 'cells')).toBe('👩‍💻👩‍💻…');
    expect(shorten('short', 5, 'cells')).toBe('short');
    expect(displayWidth(shorten('受付エージェント', 8, 'cells'))).toBeLessThanOrEqual(8);
  });
});

describe('cellsWithin: the whole graphemes between two cells', () => {
  it.each([
    ['ASCII', 'abcdef', 2, 5, { text: 'cde', from: 2 }],
    ['ASCII, past its end', 'abc', 4, 8, { text: '', from: undefined }],
    ['a wide character cut by the window is left out whole', '受付です', 1, 6, { text: '付で', from: 2 }],
    ['an emoji and a combining accent kept whole', 'a😀e\u0301b', 1, 4, { text: '😀e\u0301', from: 1 }],
  ])('%s', (_name, text, start, end, expected) => {
    expect(cellsWithin(text, start, end)).toEqual(expected);
  });
});
