/**
 * Text read as one JSON or YAML document, or where and why it is none, in voxform's words: the
 * parsers' own messages quote the text around the fault, and the text may hold a secret (a seed holds
 * keys), so nothing of it is said beyond the one character found there, escaped as JSON writes it
 * (src/secrets/error-message.ts has the rule). YAML is read as every YAML file is (src/yaml/).
 */
import { JsonPastBudgetError, MAX_JSON_DEPTH, parseOutsideJson, type JsonBudget } from '../util/json-budget.js';
import { jsonSyntaxError } from '../util/json-error-position.js';
import { formatCount } from '../util/plural.js';
import { printable, toJsonText } from '../util/printable.js';
import { LineCounter, textPosition } from '../util/text-position.js';
import { yamlErrorSentence } from '../yaml/error-sentence.js';
import { blockNestingPastLimitAt, MAX_YAML_TOKENS } from '../yaml/limits.js';
import { MAX_EMULATOR_DATA_JSON_VALUES } from './limits.js';

/** The document's value, or where (1-based line and column) the text stops being one and why: `problem` is a phrase ("expected a key in double quotes, found \"}\""). */
export type ParsedDocument = { ok: true; value: unknown } | { ok: false; language: 'JSON' | 'YAML'; at: { line: number; col: number }; problem: string };

/** What a JSON document may hold: the largest is a seed, an account as the emulator's data file holds one. */
const DOCUMENT_JSON_BUDGET: JsonBudget = { maxValues: MAX_EMULATOR_DATA_JSON_VALUES, maxDepth: MAX_JSON_DEPTH };

export function parseJsonDocument(text: string): ParsedDocument {
  const failure = (offset: number, problem: string): ParsedDocument => ({ ok: false, language: 'JSON', at: textPosition(text, offset), problem });
  try {
    return { ok: true, value: parseOutsideJson(text, DOCUMENT_JSON_BUDGET) };
  } catch (thrown) {
    // Refused before anything recursed over it (the grammar below does): nothing read this way nests deeper.
    if (thrown instanceof JsonPastBudgetError) return failure(thrown.at, `it ${thrown.phrase}`);
    const error = jsonSyntaxError(text) ?? { at: 0, expected: 'JSON' };
    return failure(error.at, `expected ${error.expected}, found ${foundAt(text, error.at)}`);
  }
}

/** The character at `offset` as JSON writes it (control and invisible characters escaped), or the end of the text. */
function foundAt(text: string, offset: number): string {
  const point = text.codePointAt(offset);
  return point === undefined ? 'the end of the text' : toJsonText(String.fromCodePoint(point));
}

/** The text's one YAML document, as plain data (no tags, anchors within their limits). */
export async function parseYamlDocument(text: string): Promise<ParsedDocument> {
  const { parseYamlDocuments, plainYamlValue } = await import('../yaml/documents.js');
  const lines = new LineCounter();
  const { documents, tooLargeAt } = parseYamlDocuments(text, { onNewLine: lines.addNewLine });
  const failure = (offset: number, problem: string): ParsedDocument => ({ ok: false, language: 'YAML', at: lines.linePos(offset), problem });
  if (tooLargeAt !== undefined) {
    // The parser stopped there, and its line count with it.
    const problem = `it has more than ${formatCount(MAX_YAML_TOKENS)} YAML tokens (keys, values, punctuation and lines), more than voxform reads from one YAML file; write it as JSON in a file ending in .json`;
    return { ok: false, language: 'YAML', at: textPosition(text, tooLargeAt), problem };
  }
  const error = documents.flatMap((doc) => doc.errors)[0];
  if (error) {
    // Out of stack: the place is where nesting passed the limit, not wherever the parser's stack ended.
    const outOfStack = /call stack/i.test(error.message);
    return failure(outOfStack ? (blockNestingPastLimitAt(text) ?? error.pos[0]) : error.pos[0], outOfStack ? 'it nests too deeply to read' : yamlErrorSentence(error.message));
  }
  const [first, second] = documents;
  if (second) return failure(second.range[0], 'a second document starts here; the file holds one');
  if (!first) return { ok: true, value: null };
  const plain = plainYamlValue(first);
  return plain.ok ? plain : failure(first.range[0], plain.problem);
}

/** Where and why text with no place of its own (a request's body) is no document: completes "The seed …". */
export function notADocument(failure: Extract<ParsedDocument, { ok: false }>): string {
  return `is not valid ${failure.language} at line ${failure.at.line}, column ${failure.at.col}: ${printable(failure.problem)}`;
}
