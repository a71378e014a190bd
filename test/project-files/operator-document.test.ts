/**
 * The files the operator names (a seed, a traffic profile, a prefetch answer) that are not YAML or
 * JSON are refused at their place, file:line:col, with what was wrong there, never with the parser's
 * message quoting the text around it, and never with a raw control character.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseJsonDocument } from '../../src/project-files/document-text.js';
import { readOperatorDocument } from '../../src/project-files/operator-document.js';
import { useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

async function readText(name: string, text: string, json?: boolean) {
  const dir = await tempDir();
  const file = path.join(dir, name);
  await writeFile(file, text);
  return readOperatorDocument(file, { shown: name, maxBytes: 1024 * 1024, ...(json === undefined ? {} : { json }) });
}

describe('readOperatorDocument', () => {
  it.each([
    ['trailing comma', '{\n  "a": 1,\n}\n', 3, 1, 'expected another item after the comma (JSON allows no comma before "}"), found "}"'],
    ['unquoted key', '{\n  "a": 1,\n  b: 2\n}', 3, 3, 'expected a key in double quotes, found "b"'],
    ['missing comma', '{\n  "a": 1\n  "b": 2\n}', 3, 3, 'expected "," or "}", found "\\""'],
    ['cut short', '{"a": [1, 2', 1, 12, 'expected "," or "]", found the end of the text'],
    ['empty', '', 1, 1, 'expected a value (an object, a list, a string in double quotes, a number, true, false or null), found the end of the text'],
    ['a second value', '{}\n{}', 2, 1, 'expected the end of the text: one JSON value, nothing after it, found "{"'],
  ])('JSON, %s: the line and column where it stops being JSON, and what JSON wanted', async (_name, text, line, col, problem) => {
    expect(await readText('file.json', text)).toEqual({ ok: false, unreadable: false, language: 'JSON', location: { file: 'file.json', line, col }, problem });
  });

  it('reads a file of any name as JSON when told to, and a .json file as JSON without being told', async () => {
    expect(await readText('answer.txt', '{"a": 1}', true)).toEqual({ ok: true, value: { a: 1 } });
    expect(await readText('file.json', '[1, 2]')).toEqual({ ok: true, value: [1, 2] });
  });

  it('reads a file saved with a byte order mark as the same document, JSON or YAML, as the loader reads a manifest', async () => {
    // PowerShell 5's `Out-File -Encoding utf8` writes one; JSON parsers may ignore it (RFC 8259 §8.1), and YAML does.
    expect(await readText('pack.json', '\ufeff{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(await readText('seed.yaml', '\ufeffa: 1\n')).toEqual({ ok: true, value: { a: 1 } });
    // Past the mark, places are counted as an editor shows them.
    expect(await readText('pack.json', '\ufeff{"a": 1,}')).toMatchObject({ ok: false, location: { line: 1, col: 9 } });
  });

  it('quotes only the one character found, escaped, never the text around it', async () => {
    const read = await readText('file.json', '{"token": "sk-live-0123456789abcdef", \u001b[31m}');
    expect(read).toMatchObject({ ok: false, location: { line: 1, col: 39 }, problem: 'expected a key in double quotes, found "\\u001b"' });
    expect(JSON.stringify(read)).not.toContain('sk-live');
  });

  it('refuses JSON nested past 64 levels where it passes them, before anything recurses over it', async () => {
    const read = await readText('deep.json', `${'['.repeat(100_000)}`);
    expect(read).toMatchObject({ ok: false, location: { line: 1, col: 65 }, problem: 'it nests deeper than 64 levels' });
  });

  it('refuses JSON of more values than an account holds (a seed is one) at the value past the limit, before building it', () => {
    // The object and the list are values too: the list's zero at index k is value k + 3, so the one past the limit is placed exactly.
    const zeros = (count: number) => `{"call_logs":\n[${'0,'.repeat(count - 1)}0]}`;
    const pastAt = 10_000_001 - 3;
    expect(parseJsonDocument(zeros(10_000_000))).toEqual({ ok: false, language: 'JSON', at: { line: 2, col: 2 + 2 * pastAt }, problem: 'it holds more than 10,000,000 JSON values' });
  });

  it.each([
    ['a bad mapping', 'calls: 3\nwindow: : x\n', 2, 9, 'nested mappings are not allowed in compact mappings'],
    ['a duplicate key', 'a: 1\nb: 2\na: 3\n', 3, 1, 'map keys must be unique'],
    ['a tab as indentation', 'a:\n\tb: 1\n', 2, 1, undefined],
    ['two documents', 'a: 1\n---\nb: 2\n', 2, 1, 'a second document starts here; the file holds one'],
  ])('YAML, %s: the line and column the parser gives', async (_name, text, line, col, problem) => {
    const read = await readText('file.yaml', text);
    expect(read).toMatchObject({ ok: false, unreadable: false, language: 'YAML', location: { file: 'file.yaml', line, col } });
    if (problem !== undefined) expect(read).toMatchObject({ problem });
  });

  it('reads a YAML file as one plain value, and an empty one as null', async () => {
    expect(await readText('file.yaml', 'a: [1, 2]\n')).toEqual({ ok: true, value: { a: [1, 2] } });
    expect(await readText('file.yaml', '')).toEqual({ ok: true, value: null });
  });

  it('says why a file was not read', async () => {
    const dir = await tempDir();
    expect(await readOperatorDocument(path.join(dir, 'none.yaml'), { shown: 'none.yaml', maxBytes: 10 })).toEqual({ ok: false, unreadable: true, message: 'does not exist' });
  });
});
