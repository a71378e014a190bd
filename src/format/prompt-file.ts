/**
 * When a command writing a project (export, init) puts a prompt into a prompt file, and when it keeps
 * it inline in the manifest: one rule, so the two write the same prompt the same way.
 */
import { holdsHiddenCharacter } from './hidden-characters.js';

/**
 * Whether a prompt may go into a file: one that reads back as itself (the loader drops CR and a BOM,
 * and UTF-8 holds no lone surrogate) and shows a reader all it holds. A prompt holding a control or
 * an invisible character stays inline, where the manifest writes that character escaped; a file
 * would hold it raw, to act on the terminal that shows it or hide it from a review.
 */
export function promptFileFits(prompt: string): boolean {
  // CR and a BOM are hidden characters too.
  return !LONE_SURROGATE.test(prompt) && !holdsHiddenCharacter(prompt);
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
