/**
 * The one reader of the YAML and JSON documents the operator names on the command line (`emulator
 * --seed`, a traffic profile, `webhook serve --prefetch-response`): read under readOperatorFile's
 * guards, then parsed, a file ending in `.json` as JSON and any other as YAML (read as every YAML
 * file is, src/yaml/). Text that is no document is answered with where it stops being one
 * (`file:line:col`) and what was wrong there. The file is never quoted beyond the one character
 * found there, escaped as JSON writes it: JSON.parse's own message quotes the text around it, and a
 * seed holds keys.
 */
import type { ErrorCode } from '../error-codes.js';
import { VoxformError, type SourceLocation } from '../errors.js';
import { jsonTooDeepAt, MAX_JSON_DEPTH } from '../util/json-depth.js';
import { LineCounter, textPosition } from '../util/text-position.js';
import { jsonSyntaxError } from '../util/json-error-position.js';
import { formatCount } from '../util/plural.js';
import { printable, toJsonText } from '../util/printable.js';
import { yamlErrorSentence } from '../yaml/error-sentence.js';
import { MAX_YAML_TOKENS } from '../yaml/limits.js';
import { readOperatorFile } from './guarded-read.js';

/** Where and why a text is not a document: `problem` is a phrase ("expected a key in double quotes, found \"}\""). */
export interface DocumentSyntaxError {
  language: 'JSON' | 'YAML';
  location: SourceLocation;
  problem: string;
}

export type OperatorDocument =
  | { ok: true; value: unknown }
  /** The file was not read: `message` completes "The file X …" ("does not exist"). */
  | { ok: false; unreadable: true; message: string }
  | ({ ok: false; unreadable: false } & DocumentSyntaxError);

export interface OperatorDocumentOptions {
  /** The file as messages name it. */
  shown: string;
  maxBytes: number;
  /** Read as JSON whatever its name (default: when it ends in `.json`). */
  json?: boolean;
}

/** The file's one document, or why there is none. */
export async function readOperatorDocument(file: string, options: OperatorDocumentOptions): Promise<OperatorDocument> {
  const read = await readOperatorFile(file, options.maxBytes);
  if (!read.ok) return { ok: false, unreadable: true, message: read.message };
  const text = read.bytes.toString('utf8');
  const parsed = (options.json ?? file.endsWith('.json')) ? parseJson(text) : await parseYaml(text);
  if (parsed.ok) return parsed;
  return { ok: false, unreadable: false, language: parsed.language, problem: printable(parsed.problem), location: { file: options.shown, ...parsed.at } };
}

/** The error a command stops on for a file that is no document: at its place, `what` ("The seed file") leading the sentence. */
export function documentSyntaxError(code: ErrorCode, what: string, error: DocumentSyntaxError, hint: string): VoxformError {
  return new VoxformError(code, `${what} is not valid ${error.language}: ${error.problem}.`, { location: error.location, hint });
}

type Parsed = { ok: true; value: unknown } | { ok: false; language: 'JSON' | 'YAML'; at: { line: number; col: number }; problem: string };

function parseJson(text: string): Parsed {
  const failure = (offset: number, problem: string): Parsed => ({ ok: false, language: 'JSON', at: textPosition(text, offset), problem });
  // Before anything recurses over it (the grammar below does): nothing read from these files nests deeper.
  const deepAt = jsonTooDeepAt(text);
  if (deepAt !== undefined) return failure(deepAt, `it nests deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    const error = jsonSyntaxError(text) ?? { at: 0, expected: 'JSON' };
    return failure(error.at, `expected ${error.expected}, found ${foundAt(text, error.at)}`);
  }
}

/** The character at `offset` as JSON writes it (control and invisible characters escaped), or the end of the text. */
function foundAt(text: string, offset: number): string {
  const point = text.codePointAt(offset);
  return point === undefined ? 'the end of the text' : toJsonText(String.fromCodePoint(point));
}

async function parseYaml(text: string): Promise<Parsed> {
  const { parseYamlDocuments, plainYamlValue } = await import('../yaml/documents.js');
  const lines = new LineCounter();
  const { documents, tooLargeAt } = parseYamlDocuments(text, { onNewLine: lines.addNewLine });
  const failure = (offset: number, problem: string): Parsed => ({ ok: false, language: 'YAML', at: lines.linePos(offset), problem });
  if (tooLargeAt !== undefined) {
    // The parser stopped there, and its line count with it.
    const problem = `it has more than ${formatCount(MAX_YAML_TOKENS)} YAML tokens (keys, values, punctuation and lines), more than voxform reads from one YAML file; write it as JSON in a file ending in .json`;
    return { ok: false, language: 'YAML', at: textPosition(text, tooLargeAt), problem };
  }
  const error = documents.flatMap((doc) => doc.errors)[0];
  if (error) return failure(error.pos[0], /call stack/i.test(error.message) ? 'it nests too deeply to read' : yamlErrorSentence(error.message));
  const [first, second] = documents;
  if (second) return failure(second.range[0], 'a second document starts here; the file holds one');
  if (!first) return { ok: true, value: null };
  const plain = plainYamlValue(first);
  return plain.ok ? plain : failure(first.range[0], plain.problem);
}
