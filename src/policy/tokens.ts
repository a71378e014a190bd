/**
 * Token counts with a real BPE tokenizer (gpt-tokenizer, o200k_base). Loading its tables costs more
 * than checking a whole manifest, so it is loaded on the first count that needs it: a byte-level BPE
 * token covers at least one byte, so a text of at most N UTF-8 bytes has at most N tokens and a
 * budget check of a shorter text needs no tokenizer at all.
 */
import type { TokenCounter } from './types.js';

export const TOKENIZER_ENCODING = 'o200k_base';

type CountTokens = (text: string) => number;
let loading: Promise<CountTokens> | undefined;

function tokenizer(): Promise<CountTokens> {
  loading ??= import('gpt-tokenizer/encoding/o200k_base').then((module) => (text: string) => module.countTokens(text));
  return loading;
}

export function createTokenCounter(): TokenCounter {
  const counted = new Map<string, number>();
  const count = async (text: string): Promise<number> => {
    let tokens = counted.get(text);
    if (tokens === undefined) {
      tokens = (await tokenizer())(text);
      counted.set(text, tokens);
    }
    return tokens;
  };
  return {
    encoding: TOKENIZER_ENCODING,
    count,
    async over(text, limit) {
      if (Buffer.byteLength(text, 'utf8') <= limit) return undefined;
      const tokens = await count(text);
      return tokens > limit ? tokens : undefined;
    },
  };
}
