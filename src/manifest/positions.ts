/**
 * Source positions that travel with plain values: each object or array carries, out of sight, where
 * it and its entries were written. Every step that builds a new object copies the spans of the
 * entries it keeps, so a problem found after merging still points at the line that wrote the value.
 */
import type { SourceText, Span } from './source.js';
import { isPlainObject } from '../util/json-object.js';
import type { FieldPath, PathSegment } from '../util/field-path.js';

/** A segment of a path into a parsed value: the one field-path type of src/util/field-path.ts. */
export type PathPart = PathSegment;
export type ValuePath = FieldPath;

export interface EntrySpans {
  /** The key as written (`flow:`); undefined for array elements. */
  readonly key: Span | undefined;
  /** The value as written (for `key:` with nothing after it, the key). */
  readonly value: Span;
  /** When a template wrote the value and the manifest's `vars` filled it in: who is to blame for it. */
  readonly filledBy?: FilledBy;
}

/** A template's value made from variables the manifest gave (`phone: "{{transfer_number}}"`). */
export interface FilledBy {
  template: string;
  /** The variables in the value that the manifest's `vars` set, in order of use. */
  variables: string[];
  /** Where the manifest sets the first of them (its value under `vars`). */
  span: Span;
}

export interface NodeSpans {
  /** The object or array itself. */
  readonly self: Span;
  readonly entries: Map<PathPart, EntrySpans>;
}

/** An entry's positions kept as numbers, its Spans made only when asked for: few entries are ever pointed at. */
export class PackedEntry implements EntrySpans {
  constructor(
    private readonly source: SourceText,
    /** -1 for an array element (no key). */
    private readonly keyStart: number,
    private readonly keyEnd: number,
    private readonly valueStart: number,
    private readonly valueEnd: number,
  ) {}

  get key(): Span | undefined {
    return this.keyStart < 0 ? undefined : { source: this.source, start: this.keyStart, end: this.keyEnd };
  }

  get value(): Span {
    return { source: this.source, start: this.valueStart, end: this.valueEnd };
  }
}

/** A node's own positions as numbers (see PackedEntry). */
export class PackedNode implements NodeSpans {
  constructor(
    private readonly source: SourceText,
    private readonly start: number,
    private readonly end: number,
    readonly entries: Map<PathPart, EntrySpans>,
  ) {}

  get self(): Span {
    return { source: this.source, start: this.start, end: this.end };
  }
}

/**
 * Spans live in a non-enumerable symbol property: invisible to Object.keys, JSON, spreads,
 * structuredClone and test equality, and cheaper than a large WeakMap.
 */
const SPANS: unique symbol = Symbol('voxform.spans');

export function attachSpans(node: object, spans: NodeSpans): void {
  Object.defineProperty(node, SPANS, { value: spans, writable: true, configurable: true, enumerable: false });
}

export function spansOf(node: unknown): NodeSpans | undefined {
  return node !== null && typeof node === 'object' ? (node as { [SPANS]?: NodeSpans })[SPANS] : undefined;
}

/** Sets an own property, also for the key `__proto__` (which plain assignment would treat as the prototype). */
export function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}

/** The child of an object or array, or undefined when the path leaves the value. */
export function childOf(value: unknown, part: PathPart): unknown {
  if (Array.isArray(value)) return typeof part === 'number' ? value[part] : undefined;
  if (isPlainObject(value)) return Object.hasOwn(value, part) ? value[String(part)] : undefined;
  return undefined;
}

/**
 * Where the value at `path` was written (or, with `which: 'key'`, its key). When the path runs past
 * what was written, the deepest place that exists answers: better a nearby line than none.
 */
export function spanAt(root: unknown, path: ValuePath, which: 'key' | 'value' = 'value'): Span | undefined {
  let current: unknown = root;
  let best = spansOf(root)?.self;
  for (let i = 0; i < path.length; i++) {
    const part = path[i] as PathPart;
    const entry = spansOf(current)?.entries.get(part);
    if (!entry) return best;
    const last = i === path.length - 1;
    best = last && which === 'key' ? (entry.key ?? entry.value) : entry.value;
    current = childOf(current, part);
  }
  return best;
}

/** The spans of the entry at `path` itself (not of the deepest place that exists), if it was written. */
export function entryAt(root: unknown, path: ValuePath): EntrySpans | undefined {
  const parent = path.slice(0, -1).reduce<unknown>((node, part) => childOf(node, part), root);
  const last = path[path.length - 1];
  return last === undefined ? undefined : spansOf(parent)?.entries.get(last);
}

/**
 * Builds a new object or array from `source`, mapping each child through `mapChild` and keeping the
 * spans. `mapChild` returns `undefined` to drop an entry (objects only).
 */
export function mapChildren(source: unknown, mapChild: (value: unknown, part: PathPart) => unknown): unknown {
  const spans = spansOf(source);
  if (Array.isArray(source)) {
    const out = source.map((item, index) => mapChild(item, index));
    if (spans) attachSpans(out, { self: spans.self, entries: spans.entries });
    return out;
  }
  if (!isPlainObject(source)) return source;
  const out: Record<string, unknown> = {};
  const entries = new Map<PathPart, EntrySpans>();
  for (const key of Object.keys(source)) {
    const mapped = mapChild(source[key], key);
    if (mapped === undefined) continue;
    setOwn(out, key, mapped);
    const entry = spans?.entries.get(key);
    if (entry) entries.set(key, entry);
  }
  if (spans) attachSpans(out, { self: spans.self, entries });
  return out;
}
