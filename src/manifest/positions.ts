/**
 * Source positions that travel with plain values: each object or array carries, out of sight, where
 * it and its entries were written. Every step that builds a new object copies the spans of the
 * entries it keeps, so a problem found after merging still points at the line that wrote the value.
 */
import type { SourceText, Span } from './source.js';
import { isPlainObject, setOwn } from '../util/json-object.js';
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
  /**
   * The value still holds the placeholder of a template variable the manifest does not give: that
   * is reported once, at `template:`, and the value is not checked further.
   */
  readonly unfilled?: true;
}

/** A template's value made from variables the manifest gave (`phone: "{{transfer_number}}"`). */
export interface FilledBy {
  template: string;
  /** The variables in the value that the manifest's `vars` set, in order of use. */
  variables: string[];
  /** Where the manifest sets the first of them (its value under `vars`). */
  span: Span;
}

/** The spans of a node's entries by key (objects) or index (arrays); a Map satisfies it. */
interface EntryTable {
  get(part: PathPart): EntrySpans | undefined;
  [Symbol.iterator](): Iterator<[PathPart, EntrySpans]>;
}

export interface NodeSpans {
  /** The object or array itself. */
  readonly self: Span;
  readonly entries: EntryTable;
}

/**
 * The spans of every node a reader builds from one text, kept as numbers in one growing array (and
 * the mappings' keys in one list) rather than as objects per entry: few entries are ever pointed
 * at, so their Spans are made only when asked for.
 */
export class PackedSpans {
  data = new Int32Array(1024);
  length = 0;
  readonly keys: string[] = [];

  constructor(readonly source: SourceText) {}

  push(value: number): void {
    if (this.length === this.data.length) {
      const grown = new Int32Array(this.data.length * 2);
      grown.set(this.data);
      this.data = grown;
    }
    this.data[this.length++] = value;
  }

  /** Gives back the room grown past what was written. */
  trim(): void {
    this.data = this.data.slice(0, this.length);
  }

  span(start: number, end: number): Span {
    return { source: this.source, start, end };
  }
}

/** Above this many keys, a node finds a key through an index (built on first use) rather than by scanning. */
const SCANNED_KEYS = 16;

/**
 * A node's spans inside a PackedSpans table. From `at` in its numbers: the node's start and end,
 * then per entry its key's start and end (mappings only) and its value's start and end. A mapping's
 * keys sit in the table's keys from `keysAt`; a sequence has `keysAt` -1.
 */
export class PackedNode implements NodeSpans, EntryTable {
  private index: Map<PathPart, number> | undefined;

  constructor(
    private readonly table: PackedSpans,
    private readonly at: number,
    private readonly keysAt: number,
    private readonly count: number,
  ) {}

  get self(): Span {
    const data = this.table.data;
    return this.table.span(data[this.at] as number, data[this.at + 1] as number);
  }

  get entries(): EntryTable {
    return this;
  }

  get(part: PathPart): EntrySpans | undefined {
    const i = this.indexOf(part);
    return i < 0 ? undefined : this.entry(i);
  }

  *[Symbol.iterator](): Iterator<[PathPart, EntrySpans]> {
    for (let i = 0; i < this.count; i++) yield [this.keysAt < 0 ? i : (this.table.keys[this.keysAt + i] as string), this.entry(i)];
  }

  private indexOf(part: PathPart): number {
    if (this.keysAt < 0) return typeof part === 'number' && Number.isInteger(part) && part >= 0 && part < this.count ? part : -1;
    if (typeof part !== 'string') return -1;
    const keys = this.table.keys;
    if (this.count <= SCANNED_KEYS) {
      for (let i = 0; i < this.count; i++) if (keys[this.keysAt + i] === part) return i;
      return -1;
    }
    this.index ??= new Map(keys.slice(this.keysAt, this.keysAt + this.count).map((key, i) => [key, i]));
    return this.index.get(part) ?? -1;
  }

  private entry(i: number): EntrySpans {
    const { data } = this.table;
    if (this.keysAt < 0) {
      const at = this.at + 2 + 2 * i;
      return { key: undefined, value: this.table.span(data[at] as number, data[at + 1] as number) };
    }
    const at = this.at + 2 + 4 * i;
    return { key: this.table.span(data[at] as number, data[at + 1] as number), value: this.table.span(data[at + 2] as number, data[at + 3] as number) };
  }
}

/** The entries of a node made by laying one node over another (a merge): an entry of `over` wins. */
export class LayeredEntries implements EntryTable {
  constructor(
    private readonly under: EntryTable | undefined,
    private readonly over: EntryTable | undefined,
  ) {}

  get(part: PathPart): EntrySpans | undefined {
    return this.over?.get(part) ?? this.under?.get(part);
  }

  *[Symbol.iterator](): Iterator<[PathPart, EntrySpans]> {
    const seen = new Set<PathPart>();
    for (const [part] of this.under ?? []) {
      seen.add(part);
      yield [part, this.get(part) as EntrySpans];
    }
    for (const [part, entry] of this.over ?? []) if (!seen.has(part)) yield [part, entry];
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

/** Gives `copy` the spans of `source`, if it has any: for a copy with the same keys in the same places. */
export function shareSpans(source: object, copy: object): void {
  const spans = spansOf(source);
  if (spans) attachSpans(copy, spans);
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

/** A shallow copy of an object or array: the same keys in the same places, so it shares the spans. */
export function shallowCopy(source: object): object {
  let out: object;
  if (Array.isArray(source)) {
    out = source.slice();
  } else {
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(source)) setOwn(copy, key, (source as Record<string, unknown>)[key]);
    out = copy;
  }
  shareSpans(source, out);
  return out;
}
