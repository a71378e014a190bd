/**
 * The last scrub finds a secret whatever text stands around it: the renderers escape a character by
 * what stands before and after it (a `[` after `##`, a `0)` at a line's start, `//` after `:`, a
 * backslash before a character JSON escapes), so a secret's rendered form depends on its context.
 * Seeded random secrets of the characters renderers treat specially, in random contexts, through
 * every renderer: each is found (the marker is there and the raw secret is not), and JSON (as
 * JSON.stringify and voxform's toJsonText write it) stays JSON.
 */
import { describe, expect, it } from 'vitest';
import { REDACTED, SecretRegistry } from '../../src/secrets/redact.js';
import { markdownCode, markdownHtmlText, markdownText } from '../../src/util/markdown-escape.js';
import { controlsAsQuestionMarks, lineAsShown, printable, toJsonText } from '../../src/util/printable.js';
import { seededRandom } from '../../src/util/seeded-random.js';

const SECRET_CHARACTERS = [...'abcXYZ019_*`#|<>&[]()!~ \\-+.=@:/\'"%${}^\t', '\u200b', '\u00a0', 'é', '😀', '\u0085', '\u202e'];
const CONTEXTS = ['', ' ', 'x', 'word ', ' tail', '*', '_', '`', '#', ' #', '##', '|', '\\', '<', '&', '[', '(', 'http://e.io/', 'www.', '    ', '\t', '- ', '> ', '1. ', ':', '@', '"', '='];
const RENDERERS: Array<[string, (text: string) => string]> = [
  ['markdownText', markdownText],
  ['markdownHtmlText', markdownHtmlText],
  ['markdownCode', (text) => markdownCode(text)],
  ['markdownCode in a table', (text) => markdownCode(text, { inTable: true })],
  ['printable', printable],
  ['lineAsShown', lineAsShown],
  ['controlsAsQuestionMarks', controlsAsQuestionMarks],
];

describe('the scrub, a secret in any context', () => {
  it('finds a seeded random secret in every renderer, and leaves JSON parseable', () => {
    const random = seededRandom(2026);
    const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
    const missed: string[] = [];
    for (let round = 0; round < 10_000; round++) {
      const secret = Array.from({ length: 6 + Math.floor(random() * 10) }, () => pick(SECRET_CHARACTERS)).join('');
      if (secret.trim().length < 6) continue;
      const text = `${pick(CONTEXTS)}${pick(CONTEXTS)}${secret}${pick(CONTEXTS)}${pick(CONTEXTS)}`;
      const registry = new SecretRegistry();
      registry.add(secret);
      for (const [name, render] of RENDERERS) {
        const scrubbed = registry.redact(render(text));
        if (!scrubbed.includes(REDACTED) || scrubbed.includes(secret)) missed.push(`${name}: ${JSON.stringify(text)}`);
      }
      for (const serialize of [JSON.stringify, toJsonText]) {
        const json = registry.redact(serialize({ value: text }));
        let value: unknown;
        try {
          value = (JSON.parse(json) as { value: unknown }).value;
        } catch {
          value = undefined;
        }
        if (typeof value !== 'string' || !value.includes(REDACTED) || value.includes(secret)) missed.push(`JSON: ${json}`);
      }
    }
    expect(missed).toEqual([]);
  });
});
