/**
 * Field paths: a path is its segments (`['config', 'tools', 0, 'header']`), indexes as numbers.
 * Written forms: the dotted form of plans, state and `ignore:` (`tools.0.header`; `.`, `\`, `[`, `]`
 * and `*` in a name escaped by `\`, so it always reads back as the same path), and the indexed form
 * of diagnostics (`tools[0].header`). A pattern names many paths: `[]` is any index, `*` any name.
 */
import { isPlainObject, setOwn, type JsonObject } from './json-object.js';

export type PathSegment = string | number;
/** A place inside a JSON value, outermost segment first. */
export type FieldPath = readonly PathSegment[];

const ESCAPED = /[.\\[\]*]/;
const ESCAPED_ALL = /[.\\[\]*]/g;

/** One segment as the dotted form writes it: an index as digits, a name with its special characters escaped. */
function formatSegment(segment: PathSegment): string {
  if (typeof segment === 'number') return String(segment);
  return ESCAPED.test(segment) ? segment.replace(ESCAPED_ALL, '\\$&') : segment;
}

/**
 * The segments of a dotted path (`''` is the root), `\` escapes undone. Every segment is a string:
 * the dotted form cannot tell an index from a name of digits, so `valueAtPath` enters no list by
 * one (a caller that knows its digits name an item turns them into a number: secrets/trusted.ts).
 */
export function parseDotted(dotted: string): string[] {
  if (dotted === '') return [];
  if (!dotted.includes('\\')) return dotted.split('.');
  const segments: string[] = [];
  let current = '';
  for (let i = 0; i < dotted.length; i++) {
    const ch = dotted[i] as string;
    if (ch === '\\' && i + 1 < dotted.length) current += dotted[++i];
    else if (ch === '.') {
      segments.push(current);
      current = '';
    } else current += ch;
  }
  segments.push(current);
  return segments;
}

/**
 * A dotted place as the deploy ledger and the manifests' `${env:…}` references write it
 * (`config.tools.0.header`), its digit steps a list's index: the path `valueAtPath` and the
 * schema's secret patterns (`tools[].header`) read.
 */
export function placePath(place: string): FieldPath {
  return parseDotted(place).map((step) => (/^(?:0|[1-9]\d*)$/.test(step) ? Number(step) : step));
}

/** The dotted form: `config.tools.0.header`, `config.voice.settings.api\.key`. */
export function formatDotted(path: FieldPath): string {
  return path.map(formatSegment).join('.');
}

/** A path under a dotted prefix: `joinDotted('config', 'voice')` is `config.voice`; `''` is a segment too. */
export function joinDotted(prefix: string, ...rest: PathSegment[]): string {
  if (rest.length === 0) return prefix;
  const tail = formatDotted(rest);
  return prefix === '' ? tail : `${prefix}.${tail}`;
}

/** The indexed form diagnostics show: `tools[0].header.x-token`. */
export function formatIndexed(path: FieldPath): string {
  let out = '';
  for (const segment of path) {
    if (typeof segment === 'number') out += `[${segment}]`;
    else out += out === '' ? segment : `.${segment}`;
  }
  return out;
}

/** Whether dotted `path` is dotted `base` or lies under it. */
export function isDottedAtOrUnder(path: string, base: string): boolean {
  return path === base || path.startsWith(`${base}.`);
}

/** The value at a path, or undefined. Arrays are entered only by a numeric segment, never by a dotted path. */
export function valueAtPath(value: unknown, path: FieldPath): unknown {
  let current = value;
  for (const segment of path) {
    if (Array.isArray(current) && typeof segment === 'number') current = current[segment];
    else if (isPlainObject(current)) current = Object.hasOwn(current, segment) ? current[segment] : undefined;
    else return undefined;
  }
  return current;
}

/**
 * Sets a value deep in an object, creating (or replacing non-object) parents; `undefined` deletes,
 * and changes nothing where a parent is missing or no object: there is nothing to delete there, and
 * a parent made for it would put an empty object where the value was (a nested `null` under a live
 * string would replace the string with `{}`).
 * Own properties only: a manifest may hold a `__proto__` key, which must not reach Object.prototype.
 */
export function setAtPath(target: JsonObject, path: FieldPath, value: unknown): void {
  if (path.length === 0) return;
  let current = target;
  for (const segment of path.slice(0, -1)) {
    const key = String(segment);
    const child = Object.hasOwn(current, key) ? current[key] : undefined;
    if (!isPlainObject(child)) {
      if (value === undefined) return;
      setOwn(current, key, {});
    }
    current = current[key] as JsonObject;
  }
  const last = String(path[path.length - 1]);
  if (value === undefined) {
    if (Object.hasOwn(current, last)) delete current[last];
  } else {
    setOwn(current, last, value);
  }
}

/** Every leaf of a value by dotted path under `prefix`; arrays and `null` ("clear") are leaves. */
export function dottedLeaves(value: unknown, prefix: string, out = new Map<string, unknown>()): Map<string, unknown> {
  if (isPlainObject(value)) {
    for (const [key, child] of Object.entries(value)) dottedLeaves(child, joinDotted(prefix, key), out);
  } else {
    out.set(prefix, value);
  }
  return out;
}

/** A pattern segment: a literal, any array index (`[]`), or any property name (`*`). */
type PatternSegment = { kind: 'literal'; text: string } | { kind: 'index' } | { kind: 'key' };

const ANY_INDEX: PatternSegment = { kind: 'index' };
const ANY_KEY: PatternSegment = { kind: 'key' };

function segmentMatches(part: PatternSegment, actual: PathSegment | undefined): boolean {
  if (actual === undefined) return false;
  if (part.kind === 'index') return typeof actual === 'number';
  if (part.kind === 'key') return typeof actual === 'string';
  return String(actual) === part.text;
}

/** The segments of a written pattern: `tools[].header` → tools, [], header; `\*` is a name, not any. */
function parsePatternSegments(source: string): PatternSegment[] {
  const segments: PatternSegment[] = [];
  let name = '';
  let escaped = false;
  const endName = (): void => {
    if (name === '*' && !escaped) segments.push(ANY_KEY);
    else if (name !== '' || escaped) segments.push({ kind: 'literal', text: name });
    name = '';
    escaped = false;
  };
  for (let i = 0; i < source.length; i++) {
    const ch = source[i] as string;
    if (ch === '\\' && i + 1 < source.length) {
      name += source[++i];
      escaped = true;
    } else if (ch === '.') endName();
    else if (ch === '[' && source[i + 1] === ']') {
      endName();
      segments.push(ANY_INDEX);
      i++;
    } else name += ch;
  }
  endName();
  return segments;
}

export class FieldPattern {
  private constructor(
    readonly source: string,
    readonly segments: readonly PatternSegment[],
  ) {}

  /** Compiles a written pattern (`config.tools[].header`, `phones.*.import.api_key`, `tools.0.header`). */
  static parse(source: string): FieldPattern {
    return new FieldPattern(source, parsePatternSegments(source));
  }

  /** The pattern naming exactly one path (its segments as literals). */
  static exact(path: FieldPath): FieldPattern {
    return FieldPattern.parse(formatDotted(path));
  }

  /** Whether `path` is a place this pattern names. */
  matches(path: FieldPath): boolean {
    return path.length === this.segments.length && this.covers(path);
  }

  /** Whether `path` is a place this pattern names or lies under one. */
  covers(path: FieldPath): boolean {
    if (this.segments.length > path.length) return false;
    for (let i = 0; i < this.segments.length; i++) if (!segmentMatches(this.segments[i] as PatternSegment, path[i])) return false;
    return true;
  }

  /** The places in `value` this pattern names that hold a value, in document order. */
  placesIn(value: unknown): Array<{ path: PathSegment[]; value: unknown }> {
    const found: Array<{ path: PathSegment[]; value: unknown }> = [];
    const visit = (current: unknown, depth: number, path: PathSegment[]): void => {
      if (current === undefined) return;
      const segment = this.segments[depth];
      if (!segment) {
        found.push({ path, value: current });
        return;
      }
      if (segment.kind === 'index') {
        if (Array.isArray(current)) current.forEach((item, i) => visit(item, depth + 1, [...path, i]));
      } else if (!isPlainObject(current)) {
        return;
      } else if (segment.kind === 'key') {
        for (const key of Object.keys(current)) visit(current[key], depth + 1, [...path, key]);
      } else if (Object.hasOwn(current, segment.text)) {
        visit(current[segment.text], depth + 1, [...path, segment.text]);
      }
    };
    visit(value, 0, []);
    return found;
  }

  toString(): string {
    return this.source;
  }
}

/** A node of a pattern set's trie: where each kind of next segment leads, and whether a pattern ends here. */
interface TrieNode {
  end: boolean;
  literal: Map<string, TrieNode>;
  index: TrieNode | undefined;
  key: TrieNode | undefined;
}

const newNode = (): TrieNode => ({ end: false, literal: new Map(), index: undefined, key: undefined });

/** Where a walk into a value stands against a pattern set: `covered` once at or under a pattern. */
export class PatternCursor {
  constructor(
    private readonly nodes: readonly TrieNode[],
    readonly covered: boolean,
  ) {}

  /** Whether a pattern could still cover something deeper (false: nothing below here is named). */
  get open(): boolean {
    return this.covered || this.nodes.length > 0;
  }

  step(segment: PathSegment): PatternCursor {
    if (this.covered) return this;
    if (this.nodes.length === 0) return NOWHERE;
    const next: TrieNode[] = [];
    for (const node of this.nodes) {
      const literal = node.literal.get(String(segment));
      if (literal) next.push(literal);
      const wildcard = typeof segment === 'number' ? node.index : node.key;
      if (wildcard) next.push(wildcard);
    }
    if (next.length === 0) return NOWHERE;
    return new PatternCursor(next, next.some((node) => node.end));
  }
}

const NOWHERE = new PatternCursor([], false);

/** Many patterns compiled into one trie: a path is matched in one pass over its segments. */
export class PatternSet {
  private readonly root: TrieNode = newNode();
  readonly patterns: readonly FieldPattern[];

  constructor(patterns: Iterable<FieldPattern | string>) {
    this.patterns = [...patterns].map((p) => (typeof p === 'string' ? FieldPattern.parse(p) : p));
    for (const pattern of this.patterns) this.add(pattern);
  }

  private add(pattern: FieldPattern): void {
    let node = this.root;
    for (const segment of pattern.segments) {
      if (segment.kind === 'literal') {
        let next = node.literal.get(segment.text);
        if (!next) node.literal.set(segment.text, (next = newNode()));
        node = next;
      } else if (segment.kind === 'index') node = node.index ??= newNode();
      else node = node.key ??= newNode();
    }
    node.end = true;
  }

  /** A cursor at the root (the empty path is covered only by an empty pattern). */
  start(): PatternCursor {
    return new PatternCursor([this.root], this.root.end);
  }

  /** The cursor at a dotted path. */
  cursorAt(dotted: string): PatternCursor {
    let cursor = this.start();
    for (const segment of parseDotted(dotted)) cursor = cursor.step(segment);
    return cursor;
  }

  /** Whether `path` is at or under one of the patterns. */
  covers(path: FieldPath): boolean {
    let cursor = this.start();
    for (const segment of path) {
      if (cursor.covered) return true;
      cursor = cursor.step(segment);
    }
    return cursor.covered;
  }

  /** Whether `path` is exactly a place one of the patterns names. */
  matches(path: FieldPath): boolean {
    return this.patterns.some((pattern) => pattern.matches(path));
  }
}
