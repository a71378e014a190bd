/**
 * A fast reader for the plain block-style YAML that manifests are made of, so that a manifest of a
 * thousand agents validates in well under a second (the general parser spends most of that time
 * building a full document model, comments and styles included, that the loader does not need).
 *
 * It accepts a strict subset and gives up on anything else, returning undefined: then the caller
 * uses the general parser, which also reports every error. The subset: spaces for indentation (no
 * tabs, no CR), block mappings and sequences (also a mapping inside a sequence item), comments,
 * `---` between documents, one-line flow collections, plain scalars on one line (resolved by the
 * YAML 1.2 core schema, as the general parser does), one-line quoted scalars with the common
 * escapes, and `|` / `|-` literal block scalars. Anchors, aliases, tags, merge keys, duplicate
 * keys, multi-line plain or quoted scalars, folded scalars and anything unusual make it give up.
 * test/manifest/parse-yaml-subset.test.ts checks it gives the same values and positions as the
 * general parser.
 */
import { attachSpans, setOwn, type EntrySpans, type PathPart } from './positions.js';
import type { ParsedDocument } from './parse-yaml.js';
import type { SourceText, Span } from './source.js';

/** Thrown inside the reader to give up; never escapes it. */
const GIVE_UP = Symbol('outside the subset');

interface Line {
  start: number;
  /** Offset of the line end (the `\n`, or the text's end). */
  end: number;
  indent: number;
  /** Offset of the first non-space character (== end for a blank line). */
  content: number;
  /** Blank or a comment only. */
  insignificant: boolean;
}

interface Node {
  value: unknown;
  start: number;
  end: number;
}

interface BlockNode extends Node {
  /** Index of the first line after the node. */
  next: number;
}

const MAX_KEY_LENGTH = 1000;

/** The documents of `source`, or undefined when the text is outside the subset. */
export function parseYamlSubset(source: SourceText): ParsedDocument[] | undefined {
  const text = source.text;
  if (text.includes('\t') || text.includes('\r')) return undefined;
  try {
    return new SubsetReader(text, source).documents();
  } catch (error) {
    if (error === GIVE_UP) return undefined;
    throw error;
  }
}

function giveUp(): never {
  throw GIVE_UP;
}

class SubsetReader {
  private readonly lines: Line[] = [];
  /** One past the last line of the document being read. */
  private documentEnd = 0;

  constructor(
    private readonly text: string,
    private readonly source: SourceText,
  ) {
    let start = 0;
    while (start <= text.length) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      let content = start;
      while (content < end && text.charCodeAt(content) === 32) content++;
      this.lines.push({ start, end, indent: content - start, content, insignificant: content === end || text[content] === '#' });
      if (end === text.length) break;
      start = end + 1;
    }
  }

  documents(): ParsedDocument[] {
    const documents: ParsedDocument[] = [];
    let first = 0;
    for (let i = 0; i <= this.lines.length; i++) {
      const line = this.lines[i];
      const marker = line ? this.documentMarker(line) : false;
      if (i < this.lines.length && !marker) continue;
      // Lines [first, i) are one document; a marker on the first line only opens the first document.
      if (!(marker && i === 0)) documents.push(...this.document(first, i));
      first = i + 1;
    }
    return documents;
  }

  private documentMarker(line: Line): boolean {
    const text = this.text;
    if (line.indent !== 0) return false;
    if (text.startsWith('---', line.start)) {
      const rest = text.slice(line.start + 3, line.end);
      if (rest.trim() === '' || /^ +#/.test(rest)) return true;
      giveUp(); // content after a marker, or a key starting with ---
    }
    if (text.startsWith('...', line.start) || text[line.start] === '%') giveUp();
    return false;
  }

  private document(first: number, end: number): ParsedDocument[] {
    this.documentEnd = end;
    const start = this.nextSignificant(first);
    if (start >= end) return [{ value: null, span: this.span(this.lines[first]?.start ?? this.text.length, this.lines[first]?.start ?? this.text.length) }];
    const line = this.lines[start] as Line;
    if (line.indent !== 0) giveUp();
    if (this.isSequenceItem(line)) giveUp(); // a manifest document is a mapping; let the general parser explain
    const node = this.mapping(start, 0, line.content);
    if (this.nextSignificant(node.next) < end) giveUp();
    const last = this.lines[end - 1] as Line;
    return [{ value: node.value, span: this.span(node.start, Math.max(node.end, last.end)) }];
  }

  private nextSignificant(index: number): number {
    let i = index;
    while (i < this.documentEnd && (this.lines[i] as Line).insignificant) i++;
    return i;
  }

  private isSequenceItem(line: Line): boolean {
    const text = this.text;
    return text[line.content] === '-' && (line.content + 1 === line.end || text[line.content + 1] === ' ');
  }

  private span(start: number, end: number): Span {
    return { source: this.source, start, end };
  }

  // ── block collections ──

  private blockNode(index: number, parentIndent: number): BlockNode {
    const line = this.lines[index] as Line;
    if (line.indent <= parentIndent) giveUp();
    return this.isSequenceItem(line) ? this.sequence(index, line.indent) : this.mapping(index, line.indent, line.content);
  }

  /** A block mapping whose keys sit at column `indent`; its first key starts at `firstKey` on line `index`. */
  private mapping(index: number, indent: number, firstKey: number): BlockNode {
    const out: Record<string, unknown> = {};
    const entries = new Map<PathPart, EntrySpans>();
    let lineIndex = index;
    let keyStart = firstKey;
    let end = firstKey;
    for (;;) {
      const line = this.lines[lineIndex] as Line;
      const key = this.key(keyStart, line.end);
      if (key.text === '<<' || Object.hasOwn(out, key.text)) giveUp();
      const value = this.entryValue(lineIndex, key.afterColon, indent);
      setOwn(out, key.text, value.value);
      entries.set(key.text, { key: this.span(keyStart, key.end), value: this.span(value.start, value.end) });
      end = value.end;
      const next = this.nextSignificant(value.next);
      if (next >= this.documentEnd) {
        lineIndex = next;
        break;
      }
      const nextLine = this.lines[next] as Line;
      if (nextLine.indent < indent) {
        lineIndex = next;
        break;
      }
      if (nextLine.indent > indent || this.isSequenceItem(nextLine)) giveUp();
      lineIndex = next;
      keyStart = nextLine.content;
    }
    attachSpans(out, { self: this.span(firstKey, end), entries });
    return { value: out, start: firstKey, end, next: lineIndex };
  }

  /** The value after `key:` on line `index`: on the same line, or a block on the lines below. */
  private entryValue(index: number, afterColon: number, indent: number): BlockNode {
    const line = this.lines[index] as Line;
    const at = this.skipSpaces(afterColon, line.end);
    if (at < line.end && this.text[at] !== '#') return this.inlineValue(index, at, indent);
    const next = this.nextSignificant(index + 1);
    if (next < this.documentEnd) {
      const nextLine = this.lines[next] as Line;
      if (nextLine.indent > indent) return this.blockNode(next, indent);
      // A sequence may sit at the same indentation as its key.
      if (nextLine.indent === indent && this.isSequenceItem(nextLine)) return this.sequence(next, indent);
    }
    return { value: null, start: at, end: at, next: index + 1 };
  }

  private sequence(index: number, indent: number): BlockNode {
    const out: unknown[] = [];
    const entries = new Map<PathPart, EntrySpans>();
    const start = (this.lines[index] as Line).content;
    let end = start;
    let lineIndex = index;
    for (;;) {
      const line = this.lines[lineIndex] as Line;
      const dash = line.content;
      const at = this.skipSpaces(dash + 1, line.end);
      let item: BlockNode;
      if (at >= line.end || this.text[at] === '#') {
        const next = this.nextSignificant(lineIndex + 1);
        if (next < this.documentEnd && (this.lines[next] as Line).indent > indent) item = this.blockNode(next, indent);
        else giveUp(); // an empty item
      } else if (this.text[at] === '-' && (at + 1 === line.end || this.text[at + 1] === ' ')) {
        giveUp(); // a sequence directly inside a sequence item
      } else if (this.startsKey(at, line.end)) {
        item = this.mapping(lineIndex, at - line.start, at);
      } else {
        item = this.inlineValue(lineIndex, at, indent);
      }
      entries.set(out.length, { key: undefined, value: this.span(item.start, item.end) });
      out.push(item.value);
      end = item.end;
      const next = this.nextSignificant(item.next);
      if (next >= this.documentEnd) {
        lineIndex = next;
        break;
      }
      const nextLine = this.lines[next] as Line;
      if (nextLine.indent < indent || (nextLine.indent === indent && !this.isSequenceItem(nextLine))) {
        lineIndex = next;
        break;
      }
      if (nextLine.indent > indent) giveUp();
      lineIndex = next;
    }
    attachSpans(out, { self: this.span(start, end), entries });
    return { value: out, start, end, next: lineIndex };
  }

  // ── keys and inline values ──

  private key(start: number, lineEnd: number): { text: string; end: number; afterColon: number } {
    const text = this.text;
    const first = text[start] as string;
    if (first === '"' || first === "'") {
      const quoted = this.quoted(start, lineEnd);
      const colon = this.skipSpaces(quoted.end, lineEnd);
      if (text[colon] !== ':' || !(colon + 1 === lineEnd || text[colon + 1] === ' ')) giveUp();
      return { text: quoted.value as string, end: quoted.end, afterColon: colon + 1 };
    }
    if (!this.plainMayStartAt(start, lineEnd, false)) giveUp();
    for (let i = start; i < lineEnd; i++) {
      const c = text[i];
      if (c === '#' && text[i - 1] === ' ') giveUp();
      if (c === ':' && (i + 1 === lineEnd || text[i + 1] === ' ')) {
        let end = i;
        while (end > start && text[end - 1] === ' ') end--;
        if (end - start > MAX_KEY_LENGTH) giveUp();
        return { text: text.slice(start, end), end, afterColon: i + 1 };
      }
    }
    return giveUp();
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
      const c = text[i];
      if (c === '#' && text[i - 1] === ' ') return false;
      if (c === ':' && (i + 1 === lineEnd || text[i + 1] === ' ')) return true;
    }
    return false;
  }

  /**
   * A scalar or flow collection that starts at `at` on line `index`, with nothing but a comment
   * after it (a block scalar: its content on the lines below).
   */
  private inlineValue(index: number, at: number, indent: number): BlockNode {
    const line = this.lines[index] as Line;
    const text = this.text;
    const first = text[at];
    let node: Node;
    if (first === '|') return this.blockScalar(index, at, indent);
    if (first === '[' || first === '{') node = this.flowNode(at, line.end);
    else if (first === '"' || first === "'") node = this.quoted(at, line.end);
    else node = this.plainBlockScalar(at, line.end);
    this.expectLineEnd(node.end, line.end);
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
      const c = text[i];
      if (c === '#' && text[i - 1] === ' ') {
        end = i;
        break;
      }
      if (c === ':' && (i + 1 === lineEnd || text[i + 1] === ' ')) giveUp(); // a mapping where a scalar must be
    }
    while (end > start && text[end - 1] === ' ') end--;
    return { value: resolvePlain(text.slice(start, end)), start, end };
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
    const line = this.lines[index] as Line;
    const text = this.text;
    let cursor = at + 1;
    let strip = false;
    if (text[cursor] === '-') {
      strip = true;
      cursor++;
    }
    this.expectLineEnd(cursor, line.end);
    const contentLines: string[] = [];
    let contentIndent = -1;
    let pendingEmpty = 0;
    let lastContentEnd = -1;
    let i = index + 1;
    for (; i < this.documentEnd; i++) {
      const current = this.lines[i] as Line;
      const blank = current.content === current.end;
      if (blank) {
        if (contentIndent >= 0 && current.indent > contentIndent) giveUp(); // spaces that would be content
        if (contentIndent < 0 && current.indent > 0) giveUp();
        pendingEmpty++;
        continue;
      }
      if (contentIndent < 0) {
        if (current.indent <= indent) break;
        contentIndent = current.indent;
      }
      if (current.indent < contentIndent) break;
      for (; pendingEmpty > 0; pendingEmpty--) contentLines.push('');
      contentLines.push(text.slice(current.start + contentIndent, current.end));
      lastContentEnd = current.end;
    }
    if (contentIndent < 0) giveUp(); // empty block scalar
    const body = contentLines.join('\n');
    // Clip keeps one final newline, also at the end of a file without one (as the general parser does).
    return { value: strip ? body : `${body}\n`, start: at, end: Math.min(lastContentEnd + 1, text.length), next: i };
  }

  // ── flow collections and quoted scalars (one line) ──

  private flowNode(at: number, lineEnd: number): Node {
    const text = this.text;
    const c = text[at];
    if (c === '[') return this.flowSequence(at, lineEnd);
    if (c === '{') return this.flowMapping(at, lineEnd);
    if (c === '"' || c === "'") return this.quoted(at, lineEnd);
    return this.flowPlain(at, lineEnd);
  }

  private flowSequence(open: number, lineEnd: number): Node {
    const text = this.text;
    const out: unknown[] = [];
    const entries = new Map<PathPart, EntrySpans>();
    let at = this.skipSpaces(open + 1, lineEnd);
    if (text[at] !== ']') {
      for (;;) {
        const item = this.flowNode(at, lineEnd);
        entries.set(out.length, { key: undefined, value: this.span(item.start, item.end) });
        out.push(item.value);
        at = this.skipSpaces(item.end, lineEnd);
        if (text[at] === ',') {
          at = this.skipSpaces(at + 1, lineEnd);
          if (text[at] === ']' || at >= lineEnd) giveUp();
          continue;
        }
        if (text[at] === ']') break;
        giveUp();
      }
    }
    attachSpans(out, { self: this.span(open, at + 1), entries });
    return { value: out, start: open, end: at + 1 };
  }

  private flowMapping(open: number, lineEnd: number): Node {
    const text = this.text;
    const out: Record<string, unknown> = {};
    const entries = new Map<PathPart, EntrySpans>();
    let at = this.skipSpaces(open + 1, lineEnd);
    if (text[at] !== '}') {
      for (;;) {
        let key: Node;
        let colon: number;
        if (text[at] === '"' || text[at] === "'") {
          key = this.quoted(at, lineEnd);
          colon = this.skipSpaces(key.end, lineEnd);
          if (text[colon] !== ':') giveUp();
        } else {
          key = this.flowPlain(at, lineEnd);
          colon = this.skipSpaces(key.end, lineEnd);
          if (text[colon] !== ':' || text[colon + 1] !== ' ') giveUp();
          key = { ...key, value: text.slice(key.start, key.end) };
        }
        const name = key.value as string;
        if (name === '<<' || Object.hasOwn(out, name)) giveUp();
        const valueAt = this.skipSpaces(colon + 1, lineEnd);
        if (valueAt >= lineEnd || ',}'.includes(text[valueAt] as string)) giveUp(); // an empty value
        const value = this.flowNode(valueAt, lineEnd);
        setOwn(out, name, value.value);
        entries.set(name, { key: this.span(key.start, key.end), value: this.span(value.start, value.end) });
        at = this.skipSpaces(value.end, lineEnd);
        if (text[at] === ',') {
          at = this.skipSpaces(at + 1, lineEnd);
          if (text[at] === '}' || at >= lineEnd) giveUp();
          continue;
        }
        if (text[at] === '}') break;
        giveUp();
      }
    }
    attachSpans(out, { self: this.span(open, at + 1), entries });
    return { value: out, start: open, end: at + 1 };
  }

  /** A plain scalar inside a flow collection: ends at `,`, `]`, `}`, `: ` or a comment. */
  private flowPlain(start: number, lineEnd: number): Node {
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
    return { value: resolvePlain(text.slice(start, trimmed)), start, end: trimmed };
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
