/**
 * JSON text made in pieces, for output too large to be one string (a plan at its budget, a test
 * report with every transcript): made whole, each step that writes it copies it again. The pieces
 * joined are the text of the whole value as `serialize` writes it with an indent of 2, byte for
 * byte. A piece never cuts a value that is written whole in two, a string above all, so a secret
 * inside one is whole for the output's redaction, and escaping each piece (`toJsonText`) escapes the whole.
 */
import { toJsonText } from './printable.js';
import { isPlainObject } from './json-object.js';

/** How a value is written whole: `toJsonText` for output, JSON.stringify for a file voxform reads back. */
export type JsonSerializer = (value: unknown, indent: number) => string | undefined;

/**
 * `value` in pieces: the arrays and objects `levels` deep are written an entry at a time, what lies
 * deeper whole; `depth`: how deep the value itself lies, which indents its lines.
 */
export function* jsonPieces(value: unknown, levels: number, serialize: JsonSerializer = toJsonText, depth = 0): Generator<string> {
  if (levels === 0 || !opensAsContainer(value)) return yield* jsonValue(value, depth, serialize);
  const entries: Iterable<Iterable<string>> = Array.isArray(value)
    ? value.map((item) => jsonPieces(leftOut(item) ? null : item, levels - 1, serialize, depth + 1))
    : Object.entries(value)
        .filter(([, item]) => !leftOut(item))
        .map(([key, item]) => member(key, jsonPieces(item, levels - 1, serialize, depth + 1), serialize));
  yield* jsonContainer(Array.isArray(value) ? '[' : '{', depth, entries);
}

/** An array, or an object JSON.stringify writes as its own entries (a Date, with its `toJSON`, is written whole). */
function opensAsContainer(value: unknown): value is unknown[] | Record<string, unknown> {
  return Array.isArray(value) || (isPlainObject(value) && typeof value.toJSON !== 'function');
}

/** What JSON.stringify leaves out of an object, and writes as null in an array. */
function leftOut(value: unknown): boolean {
  return value === undefined || typeof value === 'function' || typeof value === 'symbol';
}

/** A value written whole as it reads `depth` levels deep: its lines after the first indented to match. */
export function* jsonValue(value: unknown, depth: number, serialize: JsonSerializer = toJsonText): Generator<string> {
  // A JSON text holds no raw line break but those of its layout (one in a string is written `\n`).
  yield (serialize(value, 2) ?? 'null').replaceAll('\n', `\n${'  '.repeat(depth)}`);
}

/** A member of an object: its key, then its value's pieces. */
export function* member(key: string, value: Iterable<string>, serialize: JsonSerializer = toJsonText): Generator<string> {
  yield `${serialize(key, 2)}: `;
  yield* value;
}

/** An array or object `depth` levels deep laid out as `JSON.stringify(…, null, 2)` lays it out, an entry's pieces at a time. */
export function* jsonContainer(open: '[' | '{', depth: number, entries: Iterable<Iterable<string>>, after = ''): Generator<string> {
  const close = open === '[' ? ']' : '}';
  let empty = true;
  for (const entry of entries) {
    yield `${empty ? open : ','}\n${'  '.repeat(depth + 1)}`;
    yield* entry;
    empty = false;
  }
  yield `${empty ? open : `\n${'  '.repeat(depth)}`}${close}${after}`;
}

const CHUNK_CHARS = 32 * 1024;

/**
 * Pieces joined into chunks of about `CHUNK_CHARS` characters, a write per chunk, not per piece.
 * A chunk stays small enough for the young generation, which is swept often: large strings are
 * freed only when the whole heap is, and a document's worth of them would pile up before that.
 * A chunk is made of whole pieces, so it cuts no value in two either.
 */
export function* inChunks(pieces: Iterable<string>): Generator<string> {
  let chunk = '';
  for (const piece of pieces) {
    chunk += piece;
    if (chunk.length >= CHUNK_CHARS) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk !== '') yield chunk;
}
