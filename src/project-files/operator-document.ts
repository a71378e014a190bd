/**
 * The one reader of the YAML and JSON documents the operator names on the command line (`emulator
 * --seed`, a traffic profile, `webhook serve --prefetch-response`): read under readOperatorFile's
 * guards, then parsed, a file ending in `.json` as JSON and any other as YAML (read as every YAML
 * file is, src/yaml/). Text that is no document is answered with where it stops being one
 * (`file:line:col`) and what was wrong there (document-text.ts), never quoting the file: a seed
 * holds keys.
 */
import type { ErrorCode } from '../error-codes.js';
import { VoxformError, type SourceLocation } from '../errors.js';
import { printable } from '../util/printable.js';
import { decodeUtf8 } from './decode.js';
import { parseJsonDocument, parseYamlDocument } from './document-text.js';
import { readOperatorFile } from './guarded-read.js';

/** Where and why a text is not a document: `problem` is a phrase ("expected a key in double quotes, found \"}\""). */
interface DocumentSyntaxError {
  language: 'JSON' | 'YAML';
  location: SourceLocation;
  problem: string;
}

type OperatorDocument =
  | { ok: true; value: unknown }
  /** The file was not read: `message` completes "The file X …" ("does not exist"). */
  | { ok: false; unreadable: true; message: string }
  | ({ ok: false; unreadable: false } & DocumentSyntaxError);

interface OperatorDocumentOptions {
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
  // Decoded as the loader decodes a manifest: a leading byte order mark (PowerShell's UTF-8) is dropped, not read as text.
  const { text } = decodeUtf8(read.bytes);
  const parsed = (options.json ?? file.endsWith('.json')) ? parseJsonDocument(text) : await parseYamlDocument(text);
  if (parsed.ok) return parsed;
  return { ok: false, unreadable: false, language: parsed.language, problem: printable(parsed.problem), location: { file: options.shown, ...parsed.at } };
}

/** The error a command stops on for a file that is no document: at its place, `what` ("The seed file") leading the sentence. */
export function documentSyntaxError(code: ErrorCode, what: string, error: DocumentSyntaxError, hint: string): VoxformError {
  return new VoxformError(code, `${what} is not valid ${error.language}: ${error.problem}.`, { location: error.location, hint });
}
