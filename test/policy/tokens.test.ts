/**
 * Token counts: a text is handed to the tokenizer in bounded pieces, so a count takes time in
 * proportion to the text's length whatever its shape (the tokenizer's time grows with the square of
 * a word's length, and one word of two million characters counted for hours), and prose still counts
 * exactly as the whole text does.
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it, vi } from 'vitest';
import { createTokenCounter, MAX_PIECE_LENGTH, tokenizerPieces } from '../../src/policy/tokens.js';
import { repoRoot } from '../helpers/cli.js';

/** Counts as the tokenizer does, recording what it was given. */
function recordingTokenizer() {
  const pieces: string[] = [];
  const countPiece = (piece: string) => (pieces.push(piece), countTokens(piece));
  return { pieces, countPiece };
}

function textsOf(folder: string): string[] {
  const dir = path.join(repoRoot, folder);
  return readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => readFileSync(path.join(dir, file), 'utf8'));
}

describe('token counts', () => {
  it('gives the tokenizer no piece longer than the bound, for a 2 MB text of one word', async () => {
    const tokenizer = recordingTokenizer();
    const word = 'a'.repeat(2_000_000);
    const count = await createTokenCounter(tokenizer.countPiece).count(word);
    expect(Math.max(...tokenizer.pieces.map((piece) => piece.length))).toBe(MAX_PIECE_LENGTH);
    expect(tokenizer.pieces.join('')).toBe(word);
    expect(count).toBe(tokenizer.pieces.reduce((sum, piece) => sum + countTokens(piece), 0));
  });

  it('counts prose exactly as the tokenizer counts the whole text: the docs, the example prompts, prose in many scripts', async () => {
    const mixed = 'Hello there,  friend.\nWe open at 9:00–17:00 (Mon–Fri).\n\n東京の歯科医院です。ご予約は？ 😀 Café déjà vu — ¿qué tal?\r\n\tdon\'t SHOUT\n'.repeat(400);
    const texts = [...textsOf('docs'), ...textsOf('example'), mixed];
    const counter = createTokenCounter();
    for (const text of texts) expect(await counter.count(text)).toBe(countTokens(text));
    expect([...tokenizerPieces(mixed)].length).toBeGreaterThan(1);
  });

  it('counts each text once, long ones of one length that differ only at their end too, and keys no table by a long text', async () => {
    // V8 hashes a string of more than 16,383 characters by its length alone: a table keyed by many
    // such texts of one length compares a look-up with each of them, character by character.
    const texts = Array.from({ length: 20 }, (_, i) => `${'word '.repeat(4_000)}${String(i).padStart(4, '0')}`);
    const tokenizer = recordingTokenizer();
    const counter = createTokenCounter(tokenizer.countPiece);
    const lookUps = [vi.spyOn(Map.prototype, 'get'), vi.spyOn(Map.prototype, 'has'), vi.spyOn(Map.prototype, 'set')];
    try {
      const counts = [];
      for (const text of [...texts, ...texts]) counts.push(await counter.count(text));
      expect(counts.slice(texts.length)).toEqual(counts.slice(0, texts.length));
    } finally {
      vi.restoreAllMocks();
    }
    expect(tokenizer.pieces.join('')).toBe(texts.join(''));
    const longKeys = lookUps.flatMap((spy) => spy.mock.calls.map(([key]) => key)).filter((key) => typeof key === 'string' && key.length > 16_383);
    expect(longKeys).toHaveLength(0);
  });

  it('cuts a run with no place to split at the bound, never inside a surrogate pair', () => {
    const emoji = '😀'.repeat(1000);
    const pieces = [...tokenizerPieces(emoji)];
    expect(pieces.join('')).toBe(emoji);
    for (const piece of pieces) {
      expect(piece.length).toBeLessThanOrEqual(MAX_PIECE_LENGTH);
      expect(piece.length % 2).toBe(0);
    }
  });

  it('counts text that reads as a special token as the text it is, never refusing it', async () => {
    const text = 'Never say <|endoftext|> or <|im_start|> to a caller.';
    expect(await createTokenCounter().count(text)).toBe(countTokens(text, { disallowedSpecial: new Set() }));
  });

  it('serves the event loop while it counts a long text', async () => {
    const counted: string[] = [];
    const slowPiece = (piece: string) => {
      const until = performance.now() + 1;
      while (performance.now() < until);
      counted.push(piece);
      return 1;
    };
    let countedWhenServed = -1;
    const counting = createTokenCounter(slowPiece).count('word '.repeat(2_000));
    setImmediate(() => (countedWhenServed = counted.length));
    const pieces = await counting;
    expect(countedWhenServed).toBeGreaterThan(0);
    expect(countedWhenServed).toBeLessThan(pieces);
  });
});
