/**
 * A fast reader for the plain block-style YAML that manifests are made of: the general parser
 * builds a full document model (comments and styles included) that the loader does not need.
 *
 * It accepts a strict subset and gives up on anything else (returns undefined), leaving the text,
 * and every error report, to the general parser. The subset: space indentation, block mappings and
 * sequences, comments, `---` between documents, one-line flow collections, one-line plain scalars
 * (YAML 1.2 core schema) and quoted scalars with the common escapes, `|` / `|-` block scalars.
 * Its tests check it gives the same values and positions as the general parser.
 */
import { attachSpans, PackedNode, PackedSpans } from './positions.js';
import { BYTE_ORDER_MARK } from '../project-files/decode.js';
import { setOwn } from '../util/json-object.js';
import { MAX_NESTING_DEPTH, MAX_YAML_TOKENS } from '../yaml/limits.js';
import { numberProblem } from '../yaml/numbers.js';
import { countLines, LineCounter } from '../util/text-position.js';
import type { ParsedDocument, SourceText, Span } from './source.js';

/**
 * A line indented so that it fits no block around it; the caller points the syntax error at it
 * rather than where the general parser noticed.
 */
export interface Misindentation {
  /** Offset of the line's first character that is not a space. */
  at: number;
  /** Its indentation. */
  found: number;
  /** The indentation of the block it continues, and the offset of that block's line before it. */
  expected: number;
  previousLine: number;
  /** The offset of a comment line, indented less than the `|` text above it, that ended that text. */
  endingComment?: number;
}

/** Thrown inside the reader to give up; never escapes it. */
const GIVE_UP = Symbol('outside the subset');

/**
 * The lines of the text as parallel arrays, not an object per line (garbage to collect): start, end
 * (the `\n` or the text's end), first non-space character (== end when blank), blank-or-comment.
 * The starts become the source's line counter once the text is read.
 */
interface Lines {
  count: number;
  start: number[];
  end: Int32Array;
  content: Int32Array;
  insignificant: Uint8Array;
}

function splitLines(text: string): Lines {
  let count = 1;
  for (let at = text.indexOf('\n'); at !== -1; at = text.indexOf('\n', at + 1)) count++;
  const lines: Lines = { count, start: new Array<number>(count), end: new Int32Array(count), content: new Int32Array(count), insignificant: new Uint8Array(count) };
  let start = 0;
  for (let i = 0; i < count; i++) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    let content = start;
    while (content < end && text.charCodeAt(content) === 32) content++;
    lines.start[i] = start;
    lines.end[i] = end;
    lines.content[i] = content;
    lines.insignificant[i] = content === end || text.charCodeAt(content) === 35 /* # */ ? 1 : 0;
    start = end + 1;
  }
  return lines;
}

interface Node {
  value: unknown;
  start: number;
  end: number;
}

interface BlockNode extends Node {
  /** Index of the first line after the node. */
  next: number;
  /** Set on a `|` text that a comment line indented less than it ended: that line's index. */
  endingComment?: number;
}

const MAX_KEY_LENGTH = 1000;

/**
 * The documents of `source`, or undefined outside the subset (`onGiveUp` hears of a wrongly indented
 * line) or past `maxTokens` (counted as the general reader counts them: the limit is the same whichever reads).
 * `onRead` hears the tokens of a text read. A text read gives `source.lines` its line starts.
 */
export function parseYamlSubset(
  source: SourceText,
  onGiveUp?: (misindented: Misindentation | undefined) => void,
  maxTokens = MAX_YAML_TOKENS,
  onRead?: (tokens: number) => void,
): ParsedDocument[] | undefined {
  const text = source.text;
  // A byte order mark is YAML's to read: before a document's content (the text's start, or after
  // its comments) a mark it drops, elsewhere text. The loader's decoding drops one at the start;
  // `git show` and joined files keep theirs, which read as text would join the first key.
  if (hasTabOrCr(text) || text.includes(BYTE_ORDER_MARK)) return undefined;
  const reader = new SubsetReader(text, source, maxTokens);
  try {
    const documents = reader.documents();
    onRead?.(reader.tokens);
    source.lines.lineStarts = reader.lineStarts;
    return documents;
  } catch (error) {
    if (error !== GIVE_UP) throw error;
    onGiveUp?.(reader.misindented);
    return undefined;
  }
}

function hasTabOrCr(text: string): boolean {
  return text.includes('\t') || text.includes('\r');
}

/**
 * The wrongly indented line of a text the reader leaves to the general parser for its tabs or `\r`
 * (parseYamlSubset), found by reading a copy with the same lines and columns: each `\r\n` a `\n`,
 * each tab a space. Only for pointing at that line: the values are the general parser's. None for a
 * text with a tab among a line's leading spaces and indicators (`-`, `?`, `:`), which YAML reads as
 * indentation, an error of its own the copy would not have, nor for one with a `\r` alone, a line
 * break the copy would not keep.
 */
export function findMisindentation(source: SourceText): Misindentation | undefined {
  const text = source.text;
  if (!hasTabOrCr(text) || /^[ ?:-]*\t/m.test(text) || /\r(?!\n)/.test(text)) return undefined;
  const reader = new SubsetReader(text.replace(/\r\n/g, '\n').replace(/\t/g, ' '), source, MAX_YAML_TOKENS);
  try {
    reader.documents();
  } catch (error) {
    if (error !== GIVE_UP) throw error;
  }
  const found = reader.misindented;
  if (found === undefined) return undefined;
  // Offsets in the copy, as the same line and column in the text.
  const copyLines = new LineCounter();
  copyLines.lineStarts = reader.lineStarts;
  const textLines = new LineCounter();
  countLines(textLines, text);
  const inText = (offset: number): number => {
    const { line, col } = copyLines.linePos(offset);
    return (textLines.lineStarts[line - 1] as number) + col - 1;
  };
  const { at, previousLine, endingComment } = found;
  return { ...found, at: inText(at), previousLine: inText(previousLine), ...(endingComment === undefined ? {} : { endingComment: inText(endingComment) }) };
}

function giveUp(): never {
  throw GIVE_UP;
}

/** A plain scalar's value; a number a manifest would not keep as written (`numberProblem`) is the general path's to report. */
function plainValue(written: string): unknown {
  const value = resolvePlain(written);
  return typeof value === 'number' && numberProblem(written, value) !== undefined ? giveUp() : value;
}

class SubsetReader {
  private readonly lines: Lines;
  /** Where each line of the text starts (what a LineCounter records). */
  readonly lineStarts: number[];
  /** One past the last line of the document being read. */
  private documentEnd = 0;
  /** Collections open around the one being read: deeper than MAX_NESTING_DEPTH is left to the general path, which reports it. */
  private depth = 0;
  /** Set when the reader gave up on a wrongly indented line. */
  misindented: Misindentation | undefined;
  /** Tokens read so far (../yaml/limits.ts): past the limit the general path reports the file as too large. */
  tokens = 0;
  /** The spans of every node read. */
  private readonly spans: PackedSpans;
  /** The entry offsets and keys of the nodes still open, innermost last: a node's are moved to `spans` when it closes. */
  private readonly pending: number[] = [];
  private readonly pendingKeys: string[] = [];

  constructor(
    private readonly text: string,
    private readonly source: SourceText,
    private readonly maxTokens: number,
  ) {
    this.lines = splitLines(text);
    this.lineStarts = this.lines.start;
    this.spans = new PackedSpans(source);
  }

  documents(): ParsedDocument[] {
    this.count(this.lines.count - 1); // every line end is a token
    const documents: ParsedDocument[] = [];
    const count = this.lines.count;
    let first = 0;
    for (let i = 0; i <= count; i++) {
      const marker = i < count && this.documentMarker(i);
      if (i < count && !marker) continue;
      // Lines [first, i) are one document; a marker on the first line only opens the first document.
      if (!(marker && i === 0)) documents.push(this.document(first, i));
      first = i + 1;
    }
    this.spans.trim();
    return documents;
  }

  private documentMarker(index: number): boolean {
    const text = this.text;
    const start = this.lines.start[index] as number;
    if (this.lines.content[index] !== start) return false;
    if (text.startsWith('---', start)) {
      const rest = text.slice(start + 3, this.lines.end[index]);
      if (rest.trim() === '' || /^ +#/.test(rest)) {
        this.count(1);
        return true;
      }
      giveUp(); // content after a marker, or a key starting with ---
    }
    if (text.startsWith('...', start) || text[start] === '%') giveUp();
    return false;
  }

  private document(first: number, end: number): ParsedDocument {
    this.documentEnd = end;
    const start = this.nextSignificant(first);
    if (start >= end) {
      const at = first < this.lines.count ? (this.lines.start[first] as number) : this.text.length;
      return { value: null, span: this.span(at, at) };
    }
    if (this.indent(start) !== 0) giveUp();
    if (this.isSequenceItem(start)) giveUp(); // a manifest document is a mapping; let the general parser explain
    const node = this.mapping(start, 0, this.lines.content[start] as number);
    if (this.nextSignificant(node.next) < end) giveUp();
    return { value: node.value, span: this.span(node.start, Math.max(node.end, this.lines.end[end - 1] as number)) };
  }

  private indent(index: number): number {
    return (this.lines.content[index] as number) - (this.lines.start[index] as number);
  }

  private nextSignificant(index: number): number {
    let i = index;
    while (i < this.documentEnd && this.lines.insignificant[i] === 1) i++;
    return i;
  }

  private isSequenceItem(index: number): boolean {
    const content = this.lines.content[index] as number;
    return this.text.charCodeAt(content) === 45 /* - */ && (content + 1 === this.lines.end[index] || this.text.charCodeAt(content + 1) === 32);
  }

  private span(start: number, end: number): Span {
    return { source: this.source, start, end };
  }

  // ── block collections ──

  /** The block collection that starts on line `index`, which its caller found indented deeper than the block around it. */
  private blockNode(index: number): BlockNode {
    const indent = this.indent(index);
    return this.isSequenceItem(index) ? this.sequence(index, indent) : this.mapping(index, indent, this.lines.content[index] as number);
  }

  /** A block mapping whose keys sit at column `indent`; its first key starts at `firstKey` on line `index`. */
  private mapping(index: number, indent: number, firstKey: number): BlockNode {
    this.enter();
    const out: Record<string, unknown> = {};
    const pendingFrom = this.pending.length;
    const keysFrom = this.pendingKeys.length;
    let lineIndex = index;
    let keyStart = firstKey;
    let end = firstKey;
    for (;;) {
      this.readKey(keyStart, this.lines.end[lineIndex] as number);
      const key = this.keyText;
      if (key === '<<' || Object.hasOwn(out, key)) giveUp();
      const keyEnd = this.keyEnd;
      const value = this.entryValue(lineIndex, this.afterColon, indent);
      setOwn(out, key, value.value);
      this.pendingKeys.push(key);
      this.pending.push(keyStart, keyEnd, value.start, value.end);
      end = value.end;
      const next = this.nextSignificant(value.next);
      lineIndex = next;
      if (next >= this.documentEnd) break;
      const nextIndent = this.indent(next);
      if (nextIndent < indent) break;
      if (nextIndent > indent) this.misindentedAt(next, indent, value);
      if (this.isSequenceItem(next)) giveUp();
      keyStart = this.lines.content[next] as number;
    }
    attachSpans(out, this.closeNode(firstKey, end, pendingFrom, keysFrom));
    this.depth--;
    return { value: out, start: firstKey, end, next: lineIndex };
  }

  /** The value after `key:` on line `index`: on the same line, or a block on the lines below. */
  private entryValue(index: number, afterColon: number, indent: number): BlockNode {
    const lineEnd = this.lines.end[index] as number;
    const at = this.skipSpaces(afterColon, lineEnd);
    if (at < lineEnd && this.text.charCodeAt(at) !== 35 /* # */) return this.inlineValue(index, at, indent);
    const next = this.nextSignificant(index + 1);
    if (next < this.documentEnd) {
      const nextIndent = this.indent(next);
      if (nextIndent > indent) return this.blockNode(next);
      // A sequence may sit at the same indentation as its key.
      if (nextIndent === indent && this.isSequenceItem(next)) return this.sequence(next, indent);
    }
    return { value: null, start: at, end: at, next: index + 1 };
  }

  private sequence(index: number, indent: number): BlockNode {
    this.enter();
    const out: unknown[] = [];
    const pendingFrom = this.pending.length;
    const start = this.lines.content[index] as number;
    let end = start;
    let lineIndex = index;
    for (;;) {
      const lineEnd = this.lines.end[lineIndex] as number;
      const at = this.skipSpaces((this.lines.content[lineIndex] as number) + 1, lineEnd);
      let item: BlockNode;
      if (at >= lineEnd || this.text[at] === '#') {
        const next = this.nextSignificant(lineIndex + 1);
        if (next < this.documentEnd && this.indent(next) > indent) item = this.blockNode(next);
        else giveUp(); // an empty item
      } else if (this.text[at] === '-' && (at + 1 === lineEnd || this.text[at + 1] === ' ')) {
        giveUp(); // a sequence directly inside a sequence item
      } else if (this.startsKey(at, lineEnd)) {
        item = this.mapping(lineIndex, at - (this.lines.start[lineIndex] as number), at);
      } else {
        item = this.inlineValue(lineIndex, at, indent);
      }
      this.pending.push(item.start, item.end);
      out.push(item.value);
      this.count(1); // its `-`
      end = item.end;
      const next = this.nextSignificant(item.next);
      lineIndex = next;
      if (next >= this.documentEnd) break;
      const nextIndent = this.indent(next);
      if (nextIndent < indent || (nextIndent === indent && !this.isSequenceItem(next))) break;
      if (nextIndent > indent) this.misindentedAt(next, indent, item);
    }
    attachSpans(out, this.closeNode(start, end, pendingFrom));
    this.depth--;
    return { value: out, start, end, next: lineIndex };
  }

  /**
   * The spans of a node that closes, its entries moved from `pending` (from `pendingFrom` on) into the
   * table; a mapping's keys from `pendingKeys` (from `keysFrom` on), none for a sequence.
   */
  private closeNode(start: number, end: number, pendingFrom: number, keysFrom?: number): PackedNode {
    const at = this.spans.length;
    this.spans.push(start);
    this.spans.push(end);
    for (let i = pendingFrom; i < this.pending.length; i++) this.spans.push(this.pending[i] as number);
    this.pending.length = pendingFrom;
    if (keysFrom === undefined) return new PackedNode(this.spans, at, -1, (this.spans.length - at - 2) / 2);
    const keysAt = this.spans.keys.length;
    for (let i = keysFrom; i < this.pendingKeys.length; i++) this.spans.keys.push(this.pendingKeys[i] as string);
    this.pendingKeys.length = keysFrom;
    return new PackedNode(this.spans, at, keysAt, (this.spans.length - at - 2) / 4);
  }

  private enter(): void {
    if (++this.depth > MAX_NESTING_DEPTH) giveUp();
  }

  /** Counts `tokens` more; past the limit, gives up. */
  private count(tokens: number): void {
    this.tokens += tokens;
    if (this.tokens > this.maxTokens) giveUp();
  }

  /** Gives up on line `index`, indented more than `expected` though nothing before it (`previous`, the node it follows) opens a block. */
  private misindentedAt(index: number, expected: number, previous: BlockNode): never {
    let before = previous.next - 1;
    while (before > 0 && this.lines.insignificant[before] === 1) before--;
    const ending = previous.endingComment === undefined ? {} : { endingComment: this.lines.content[previous.endingComment] as number };
    this.misindented = { at: this.lines.content[index] as number, found: this.indent(index), expected, previousLine: this.lines.start[before] as number, ...ending };
    return giveUp();
  }

  // ── keys and inline values ──

  /** Set by readKey: the key's text, where it ends, and the offset just after its colon. */
  private keyText = '';
  private keyEnd = 0;
  private afterColon = 0;

  private readKey(start: number, lineEnd: number): void {
    const text = this.text;
    const first = text[start];
    if (first === '"' || first === "'") {
      const quoted = this.quoted(start, lineEnd);
      const colon = this.skipSpaces(quoted.end, lineEnd);
      if (text[colon] !== ':' || !(colon + 1 === lineEnd || text[colon + 1] === ' ')) giveUp();
      this.keyText = quoted.value as string;
      this.keyEnd = quoted.end;
      this.afterColon = colon + 1;
      this.count(2); // the key and its `:`
      return;
    }
    if (!this.plainMayStartAt(start, lineEnd, false)) giveUp();
    for (let i = start; i < lineEnd; i++) {
      const c = text.charCodeAt(i);
      if (c === 35 /* # */ && text.charCodeAt(i - 1) === 32) giveUp();
      if (c === 58 /* : */ && (i + 1 === lineEnd || text.charCodeAt(i + 1) === 32)) {
        let end = i;
        while (end > start && text.charCodeAt(end - 1) === 32) end--;
        if (end - start > MAX_KEY_LENGTH) giveUp();
        this.keyText = text.slice(start, end);
        this.keyEnd = end;
        this.afterColon = i + 1;
        this.count(2); // the key and its `:`
        return;
      }
    }
    giveUp();
  }

  /** Whether a sequence item's content is a `key: value` (a mapping inside the item). */
  private startsKey(start: number, lineEnd: number): boolean {
    const text = this.text;
    const first = text[start];
    if (first === '"' || first === "'") {
      const quoted = this.quoted(start, lineEnd);
      const colon = this.skipSpaces(quoted.end, lineEnd);
      return text[colon] === ':' && (colon + 1 === lineEnd || text[colon + 1] === ' ');
    }
    if (first === '[' || first === '{' || first === '|') return false;
    for (let i = start; i < lineEnd; i++) {
      const c = text.charCodeAt(i);
      if (c === 35 /* # */ && text.charCodeAt(i - 1) === 32) return false;
      if (c === 58 /* : */ && (i + 1 === lineEnd || text.charCodeAt(i + 1) === 32)) return true;
    }
    return false;
  }

  /**
   * A scalar or flow collection that starts at `at` on line `index`, with nothing but a comment
   * after it (a block scalar: its content on the lines below).
   */
  private inlineValue(index: number, at: number, indent: number): BlockNode {
    const lineEnd = this.lines.end[index] as number;
    const first = this.text[at];
    let node: Node;
    if (first === '|') return this.blockScalar(index, at, indent);
    if (first === '[' || first === '{') node = this.flowNode(at, lineEnd);
    else {
      this.count(1);
      node = first === '"' || first === "'" ? this.quoted(at, lineEnd) : this.plainBlockScalar(at, lineEnd);
    }
    this.expectLineEnd(node.end, lineEnd);
    return { value: node.value, start: node.start, end: node.end, next: index + 1 };
  }

  private expectLineEnd(at: number, lineEnd: number): void {
    const rest = this.skipSpaces(at, lineEnd);
    if (rest < lineEnd && !(this.text[rest] === '#' && rest > at)) giveUp();
  }

  private plainBlockScalar(start: number, lineEnd: number): Node {
    if (!this.plainMayStartAt(start, lineEnd, false)) giveUp();
    const text = this.text;
    let end = lineEnd;
    for (let i = start; i < lineEnd; i++) {
      const c = text.charCodeAt(i);
      if (c === 35 /* # */ && text.charCodeAt(i - 1) === 32) {
        end = i;
        break;
      }
      if (c === 58 /* : */ && (i + 1 === lineEnd || text.charCodeAt(i + 1) === 32)) giveUp(); // a mapping where a scalar must be
    }
    while (end > start && text.charCodeAt(end - 1) === 32) end--;
    return { value: plainValue(text.slice(start, end)), start, end };
  }

  /** Whether a plain scalar may begin at `at` (YAML's ns-plain-first), in block or flow context. */
  private plainMayStartAt(at: number, lineEnd: number, flow: boolean): boolean {
    const text = this.text;
    const c = text[at];
    if (c === undefined || at >= lineEnd) return false;
    if ('[]{},#&*!|>\'"%@`'.includes(c)) return false;
    if (c === '-' || c === '?' || c === ':') {
      const next = text[at + 1];
      if (at + 1 >= lineEnd || next === ' ' || (flow && next !== undefined && ',[]{}'.includes(next))) return false;
    }
    return true;
  }

  // ── block scalars ──

  /** `|` or `|-` at `at` on line `index`; content on the lines below, indented more than `indent`. */
  private blockScalar(index: number, at: number, indent: number): BlockNode {
    const text = this.text;
    let cursor = at + 1;
    let strip = false;
    if (text[cursor] === '-') {
      strip = true;
      cursor++;
    }
    this.expectLineEnd(cursor, this.lines.end[index] as number);
    this.count(2); // its `|` and its text
    const contentLines: string[] = [];
    let contentIndent = -1;
    let pendingEmpty = 0;
    let lastContentEnd = -1;
    let i = index + 1;
    for (; i < this.documentEnd; i++) {
      const lineStart = this.lines.start[i] as number;
      const lineIndent = this.indent(i);
      if (this.lines.content[i] === this.lines.end[i]) {
        if (contentIndent >= 0 && lineIndent > contentIndent) giveUp(); // spaces that would be content
        if (contentIndent < 0 && lineIndent > 0) giveUp();
        pendingEmpty++;
        continue;
      }
      if (contentIndent < 0) {
        if (lineIndent <= indent) break;
        contentIndent = lineIndent;
      }
      if (lineIndent < contentIndent) break;
      for (; pendingEmpty > 0; pendingEmpty--) contentLines.push('');
      contentLines.push(text.slice(lineStart + contentIndent, this.lines.end[i]));
      lastContentEnd = this.lines.end[i] as number;
    }
    if (contentIndent < 0) giveUp(); // empty block scalar
    const body = contentLines.join('\n');
    // Clip keeps one final newline, also at the end of a file without one (as the general parser does).
    const ended = i < this.documentEnd && this.lines.insignificant[i] === 1 ? { endingComment: i } : {};
    return { value: strip ? body : `${body}\n`, start: at, end: Math.min(lastContentEnd + 1, text.length), next: i, ...ended };
  }

  // ── flow collections and quoted scalars (one line) ──

  private flowNode(at: number, lineEnd: number): Node {
    const text = this.text;
    const c = text[at];
    if (c === '[') return this.flowSequence(at, lineEnd);
    if (c === '{') return this.flowMapping(at, lineEnd);
    this.count(1);
    if (c === '"' || c === "'") return this.quoted(at, lineEnd);
    return this.flowPlain(at, lineEnd);
  }

  private flowSequence(open: number, lineEnd: number): Node {
    this.enter();
    this.count(2); // `[` and `]`
    const text = this.text;
    const out: unknown[] = [];
    const pendingFrom = this.pending.length;
    let at = this.skipSpaces(open + 1, lineEnd);
    if (text[at] !== ']') {
      for (;;) {
        const item = this.flowNode(at, lineEnd);
        this.pending.push(item.start, item.end);
        out.push(item.value);
        at = this.skipSpaces(item.end, lineEnd);
        if (text[at] === ',') {
          this.count(1);
          at = this.skipSpaces(at + 1, lineEnd);
          if (text[at] === ']' || at >= lineEnd) giveUp();
          continue;
        }
        if (text[at] === ']') break;
        giveUp();
      }
    }
    attachSpans(out, this.closeNode(open, at + 1, pendingFrom));
    this.depth--;
    return { value: out, start: open, end: at + 1 };
  }

  private flowMapping(open: number, lineEnd: number): Node {
    this.enter();
    this.count(2); // `{` and `}`
    const text = this.text;
    const out: Record<string, unknown> = {};
    const pendingFrom = this.pending.length;
    const keysFrom = this.pendingKeys.length;
    let at = this.skipSpaces(open + 1, lineEnd);
    if (text[at] !== '}') {
      for (;;) {
        const keyStart = at;
        let keyEnd: number;
        let name: string;
        let colon: number;
        if (text[at] === '"' || text[at] === "'") {
          const quoted = this.quoted(at, lineEnd);
          keyEnd = quoted.end;
          name = quoted.value as string;
          colon = this.skipSpaces(keyEnd, lineEnd);
          if (text[colon] !== ':') giveUp();
        } else {
          // A key is its text, as in a block mapping: not read as a number or a boolean.
          keyEnd = this.flowPlainEnd(at, lineEnd);
          name = text.slice(keyStart, keyEnd);
          colon = this.skipSpaces(keyEnd, lineEnd);
          if (text[colon] !== ':' || text[colon + 1] !== ' ') giveUp();
        }
        if (name === '<<' || Object.hasOwn(out, name)) giveUp();
        this.count(2); // the key and its `:`
        const valueAt = this.skipSpaces(colon + 1, lineEnd);
        if (valueAt >= lineEnd || ',}'.includes(text[valueAt] as string)) giveUp(); // an empty value
        const value = this.flowNode(valueAt, lineEnd);
        setOwn(out, name, value.value);
        this.pendingKeys.push(name);
        this.pending.push(keyStart, keyEnd, value.start, value.end);
        at = this.skipSpaces(value.end, lineEnd);
        if (text[at] === ',') {
          this.count(1);
          at = this.skipSpaces(at + 1, lineEnd);
          if (text[at] === '}' || at >= lineEnd) giveUp();
          continue;
        }
        if (text[at] === '}') break;
        giveUp();
      }
    }
    attachSpans(out, this.closeNode(open, at + 1, pendingFrom, keysFrom));
    this.depth--;
    return { value: out, start: open, end: at + 1 };
  }

  /** A plain scalar inside a flow collection: ends at `,`, `]`, `}`, `: ` or a comment. */
  private flowPlain(start: number, lineEnd: number): Node {
    const end = this.flowPlainEnd(start, lineEnd);
    return { value: plainValue(this.text.slice(start, end)), start, end };
  }

  /** Where the flow plain scalar at `start` ends, trailing spaces left out. */
  private flowPlainEnd(start: number, lineEnd: number): number {
    if (!this.plainMayStartAt(start, lineEnd, true)) giveUp();
    const text = this.text;
    let end = start;
    for (; end < lineEnd; end++) {
      const c = text[end] as string;
      if (c === ',' || c === ']' || c === '}' || c === '[' || c === '{') break;
      if (c === ':' && (end + 1 === lineEnd || ' ,]}'.includes(text[end + 1] as string))) break;
      if (c === '#' && text[end - 1] === ' ') giveUp();
    }
    let trimmed = end;
    while (trimmed > start && text[trimmed - 1] === ' ') trimmed--;
    if (trimmed === start || text[end] === '[' || text[end] === '{') giveUp();
    return trimmed;
  }

  private quoted(start: number, lineEnd: number): Node {
    const text = this.text;
    if (text[start] === "'") {
      let out = '';
      let from = start + 1;
      for (;;) {
        const close = text.indexOf("'", from);
        if (close === -1 || close >= lineEnd) giveUp();
        if (text[close + 1] === "'") {
          out += text.slice(from, close + 1);
          from = close + 2;
          continue;
        }
        return { value: out + text.slice(from, close), start, end: close + 1 };
      }
    }
    let out = '';
    let from = start + 1;
    for (let i = from; i < lineEnd; i++) {
      const c = text[i];
      if (c === '"') return { value: out + text.slice(from, i), start, end: i + 1 };
      if (c !== '\\') continue;
      out += text.slice(from, i);
      const escape = text[i + 1];
      const simple = escape === undefined ? undefined : SIMPLE_ESCAPES[escape];
      if (simple !== undefined) {
        out += simple;
        i++;
      } else if (escape === 'u' && /^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
        out += String.fromCharCode(Number.parseInt(text.slice(i + 2, i + 6), 16));
        i += 5;
      } else {
        giveUp();
      }
      from = i + 1;
    }
    return giveUp();
  }

  private skipSpaces(at: number, lineEnd: number): number {
    let i = at;
    while (i < lineEnd && this.text.charCodeAt(i) === 32) i++;
    return i;
  }
}

const SIMPLE_ESCAPES: Record<string, string> = { '\\': '\\', '"': '"', '/': '/', n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', '0': '\0' };

/** A plain scalar's value under the YAML 1.2 core schema, in the general parser's order of tests. */
export function resolvePlain(text: string): unknown {
  // Most plain scalars are words: only these first characters can start a null, a boolean or a number.
  if (text !== '' && !'0123456789+-.~nNtTfF'.includes(text[0] as string)) return text;
  if (/^(?:~|[Nn]ull|NULL)?$/.test(text)) return null;
  if (/^(?:[Tt]rue|TRUE)$/.test(text)) return true;
  if (/^(?:[Ff]alse|FALSE)$/.test(text)) return false;
  if (/^0o[0-7]+$/.test(text)) return Number.parseInt(text.slice(2), 8);
  if (/^[-+]?[0-9]+$/.test(text)) return Number.parseInt(text, 10);
  if (/^0x[0-9a-fA-F]+$/.test(text)) return Number.parseInt(text.slice(2), 16);
  if (/^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/.test(text)) {
    return text.slice(-3).toLowerCase() === 'nan' ? Number.NaN : text[0] === '-' ? Number.NEGATIVE_INFINITY : Number.POSITIVE_INFINITY;
  }
  if (/^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/.test(text)) return Number.parseFloat(text);
  if (/^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/.test(text)) return Number.parseFloat(text);
  return text;
}
