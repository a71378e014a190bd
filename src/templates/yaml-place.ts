/**
 * Places in a parsed template.yaml (a `yaml` Document, positions kept), named by field path: how
 * the catalog and the expansion point an error at the line it is about.
 */
import { isMap, isNode, isScalar, isSeq, type Document, type LineCounter, type Node } from 'yaml';
import type { SourceLocation } from '../errors.js';
import type { FieldPath } from '../util/field-path.js';

/** A mapping key as text (a number key as its digits), or undefined for a key that is no scalar. */
export function keyText(key: unknown): string | undefined {
  if (isScalar(key) && (typeof key.value === 'string' || typeof key.value === 'number')) return String(key.value);
  return undefined;
}

/**
 * The node at exactly `path`: the value there, or with `at: 'key'` (or a key left without a value) the
 * key naming it; undefined when the document has no such place.
 */
export function nodeAtPlace(document: Document.Parsed, path: FieldPath, at: 'key' | 'value'): Node | undefined {
  let node: unknown = document.contents;
  for (const [i, segment] of path.entries()) {
    const last = i === path.length - 1;
    if (isSeq(node) && typeof segment === 'number') {
      node = node.items[segment];
      continue;
    }
    if (!isMap(node)) return undefined;
    const pair = node.items.find((item) => keyText(item.key) === String(segment));
    if (!pair) return undefined;
    if (last && (at === 'key' || !isNode(pair.value) || isUnwritten(pair.value))) return isNode(pair.key) ? pair.key : undefined;
    node = pair.value;
  }
  return isNode(node) ? node : undefined;
}

/** A value left empty (`a:`): it has no text of its own to point at. */
function isUnwritten(node: Node): boolean {
  return isScalar(node) && node.value === null && node.range !== undefined && node.range !== null && node.range[0] === node.range[1];
}

/** The place, else the deepest value that exists along its path, else the document. */
export function nodeAlong(document: Document.Parsed, path: FieldPath, at: 'key' | 'value'): Node | undefined {
  for (let depth = path.length; depth >= 0; depth--) {
    const found = nodeAtPlace(document, path.slice(0, depth), depth === path.length ? at : 'value');
    if (found) return found;
  }
  return undefined;
}

/** `file:line:col` of a node (the document's start when there is none). */
export function locationOf(file: string, lineCounter: LineCounter, node: Node | null | undefined): SourceLocation {
  const { line, col } = lineCounter.linePos(node?.range?.[0] ?? 0);
  return { file, line, col };
}
