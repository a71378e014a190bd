/**
 * What a document's aliases expand to, counted without expanding them. `fmt` checks that its layout
 * keeps a manifest's meaning by comparing the values before and after; the yaml library's `toJS`
 * shares one value per anchor, but comparing walks every path through the shares, so a "billion
 * laughs" file (ten aliases of ten aliases of …) took exponential time. The library's own
 * `maxAliasCount` is no guard either: it walks the whole document again for many aliases. So the
 * loader's limits (src/project-files/limits.ts) are checked here first, in one pass over the nodes.
 */
import { isAlias, isCollection, isPair, isScalar, visit, type Document, type Node } from 'yaml';
import { MAX_ALIAS_EXPANDED_VALUES, MAX_ALIAS_EXPANSIONS } from '../project-files/limits.js';

interface Expansion {
  /** Aliases expanded when the node is expanded whole. */
  aliases: number;
  /** Values those expansions make (a value made inside a copy counted once). */
  made: number;
  /** Values in the node expanded whole (itself included). */
  values: number;
}

const NOTHING: Expansion = { aliases: 0, made: 0, values: 0 };

/** Whether the document's aliases stay within the loader's limits (10,000 expansions, 100,000 values made). */
export function aliasesWithinLimits(doc: Document): boolean {
  const targets = aliasTargets(doc);
  if (targets.size === 0) return true;
  const known = new Map<unknown, Expansion>();
  const expanding = new Set<unknown>();
  const measure = (node: unknown): Expansion => {
    const seen = known.get(node);
    if (seen) return seen;
    // An alias inside its own anchor: the library makes a reference, not a copy.
    if (expanding.has(node)) return NOTHING;
    expanding.add(node);
    const result = measureNode(node, measure, targets);
    expanding.delete(node);
    known.set(node, result);
    return result;
  };
  const total = measure(doc.contents);
  return total.aliases <= MAX_ALIAS_EXPANSIONS && total.made <= MAX_ALIAS_EXPANDED_VALUES;
}

function measureNode(node: unknown, measure: (node: unknown) => Expansion, targets: Map<unknown, Node | undefined>): Expansion {
  if (isAlias(node)) {
    const target = measure(targets.get(node));
    // The copy is every value of the target expanded (its own aliases' copies included).
    return { aliases: target.aliases + 1, made: target.values, values: target.values };
  }
  if (isScalar(node)) return { aliases: 0, made: 0, values: 1 };
  const parts: unknown[] = isPair(node) ? [node.key, node.value] : isCollection(node) ? node.items : [];
  const sum = { aliases: 0, made: 0, values: isPair(node) ? 0 : 1 };
  for (const part of parts) {
    if (part === null || part === undefined) continue;
    const child = measure(part);
    sum.aliases += child.aliases;
    sum.made += child.made;
    sum.values += child.values;
  }
  return sum;
}

/** Each alias → the last node anchored with its name before it, in document order (as the library resolves it), in one walk. */
function aliasTargets(doc: Document): Map<unknown, Node | undefined> {
  const targets = new Map<unknown, Node | undefined>();
  const latest = new Map<string, Node>();
  visit(doc, {
    Node: (_key, node) => {
      if (isAlias(node)) targets.set(node, latest.get(node.source));
      else if (node.anchor) latest.set(node.anchor, node);
    },
  });
  return targets;
}
