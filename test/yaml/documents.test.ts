/**
 * The one general YAML reader every command uses: past the token limit it stops with where, and a
 * document whose aliases expand past the limits is refused before it is made a plain value.
 */
import { describe, expect, it } from 'vitest';
import { LineCounter } from 'yaml';
import { parseYamlDocuments, plainYamlValue } from '../../src/yaml/documents.js';
import { MAX_YAML_TOKENS } from '../../src/yaml/limits.js';

/** `a0: &a0 [x ×10]`, then each level ten aliases of the one before: 10^levels values. */
function laughs(levels: number): string {
  const lines = [`a0: &a0 [${Array.from({ length: 10 }, () => 'x').join(', ')}]`];
  for (let i = 1; i < levels; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

describe('parseYamlDocuments', () => {
  it('reads every document with its line starts, errors kept on their document', () => {
    const lines = new LineCounter();
    const { documents, tooLargeAt } = parseYamlDocuments('a: 1\n---\nb: [2\n', { onNewLine: lines.addNewLine });
    expect(tooLargeAt).toBeUndefined();
    expect(documents.map((doc) => doc.errors.length > 0)).toEqual([false, true]);
    expect(documents[0]?.toJS()).toEqual({ a: 1 });
    // The unclosed flow sequence is noticed where the text ends: line 4.
    expect(lines.linePos(documents[1]?.errors[0]?.pos[0] ?? 0).line).toBe(4);
  });

  it('makes an alias with no anchor before it an error of its document, at the alias', () => {
    const errorsOf = (text: string) => parseYamlDocuments(text).documents.map((doc) => doc.errors.map((error) => `${error.code} ${error.pos[0]} ${error.message}`));
    // A typo: the library alone composes it without error, as null.
    expect(errorsOf('a: &greeting Hi\nb: *greetng\n')).toEqual([['BAD_ALIAS 19 The alias *greetng refers to no anchor &greetng set before it; did you mean &greeting?']]);
    expect(errorsOf('b: *greet\na: &greet Hi\n')).toEqual([
      ['BAD_ALIAS 3 The alias *greet comes before its anchor &greet; YAML needs the anchor first: move the value marked &greet above the alias'],
    ]);
    // Anchors belong to their document; a merge key's alias is an alias like any other.
    expect(errorsOf('a: &x {k: 1}\n---\nb:\n  <<: *x\n')).toEqual([[], ['BAD_ALIAS 26 The alias *x refers to no anchor &x set before it; mark the value to repeat with &x, or write it out']]);
    expect(errorsOf('a: &x {k: 1}\nb: *x\nc: &s {d: *s}\n')).toEqual([[]]);
  });

  it('makes each of more aliases without an anchor than a call takes arguments an error of its own', () => {
    const aliases = 130_000;
    const text = `a:\n${Array.from({ length: aliases }, (_, i) => `  - *m${i}\n`).join('')}`;
    const [document] = parseYamlDocuments(text).documents;
    expect(document?.errors).toHaveLength(aliases);
    expect(document?.errors.at(-1)?.message).toContain(`The alias *m${aliases - 1} refers to no anchor`);
  });

  it('reports a quote never closed at the quote, not where the text it swallows ends', () => {
    const lines = new LineCounter();
    const { documents } = parseYamlDocuments('version: 1\nagents:\n  a:\n    first_message: "Hello\n    id: x\n', { onNewLine: lines.addNewLine });
    const error = documents[0]?.errors[0];
    expect(error?.message).toBe('The quote " opened at line 4, column 20 is never closed, so what follows it is read as its text; add the closing " where the text ends');
    expect(lines.linePos(error?.pos[0] ?? 0)).toEqual({ line: 4, col: 20 });
    const single = parseYamlDocuments("a: 'x\nb: 2\n").documents[0]?.errors[0];
    expect([single?.pos, single?.message]).toEqual([[3, 4], "The quote ' opened at line 1, column 4 is never closed, so what follows it is read as its text; add the closing ' where the text ends"]);
  });

  it('reports a quote never closed as the one error, not the errors of the text it swallows', () => {
    // The flow map is never closed either, because its } is inside the quoted text: one mistake.
    const { documents } = parseYamlDocuments('version: 1\nagents:\n  a:\n    config: { first_message: "hi }\n');
    expect(documents[0]?.errors.map((error) => [error.pos[0], error.message.split(' is ')[0]])).toEqual([[53, 'The quote " opened at line 4, column 30']]);
    // A mistake before the quote is its own, and is kept.
    const before = parseYamlDocuments('a: [1\nb: "x\n').documents[0]?.errors ?? [];
    expect(before.length).toBeGreaterThan(1);
    expect(before.at(-1)?.message).toMatch(/^The quote " opened at line 2, column 4 is never closed/);
  });

  it('reports the open quote of each of many documents at its own line', () => {
    const { documents } = parseYamlDocuments('a: "x\n---\n'.repeat(2000));
    const lines = documents.map((doc) => /opened at line (\d+), column (\d+)/.exec(doc.errors[0]?.message ?? '')?.slice(1).join(':'));
    expect(lines).toEqual(Array.from({ length: 2000 }, (_, i) => `${2 * i + 1}:4`));
  });

  it('stops past MAX_YAML_TOKENS and says where, with no documents', () => {
    const text = `[${'1,'.repeat(MAX_YAML_TOKENS / 2)}1]\n`;
    const { documents, tooLargeAt } = parseYamlDocuments(text);
    expect(documents).toEqual([]);
    expect(tooLargeAt).toBeGreaterThan(0);
    expect(tooLargeAt).toBeLessThan(text.length);
  });
});

describe('plainYamlValue', () => {
  it('expands aliases within the limits, and refuses a billion-laughs document', () => {
    expect(plainYamlValue(parseYamlDocuments('a: &x [1, 2]\nb: *x\n').documents[0] as never)).toEqual({ ok: true, value: { a: [1, 2], b: [1, 2] } });
    const refused = plainYamlValue(parseYamlDocuments(laughs(7)).documents[0] as never);
    expect(refused).toEqual({ ok: false, problem: 'its aliases expand past what voxform reads (10,000 alias expansions or 100,000 values made by them in one document)' });
  });
});
