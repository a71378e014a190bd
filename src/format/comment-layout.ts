/**
 * Where comments and blank lines go so that `voxform fmt` is idempotent: yaml may print a comment
 * back where, read again, it belongs to another node. Each function puts one kind where yaml reads it back.
 */
import { isCollection, isMap, isPair, isScalar, isSeq, visit, type Document, type Node } from 'yaml';

export function isNodeWithSpace(value: unknown): value is Node {
  return isScalar(value) || isCollection(value);
}

/** Several blank lines in a row inside a comment become one, as yaml reads some of them back. */
export function collapseBlankLinesInComments(doc: Document): void {
  const collapse = (comment: string | null | undefined): string | undefined => (comment ? oneBlankLine(comment) : undefined);
  doc.commentBefore = collapse(doc.commentBefore) ?? null;
  doc.comment = collapse(doc.comment) ?? null;
  visit(doc, {
    Node(_key, node) {
      if (node.commentBefore) node.commentBefore = collapse(node.commentBefore);
      if (node.comment) node.comment = collapse(node.comment);
    },
  });
}

/**
 * yaml keeps the blank lines after a block's closing comment inside that comment; printed back,
 * the blank line between sections may be added once more on every run. They are given to the key
 * that follows instead (its `spaceBefore`), or dropped at the end of the document.
 */
export function moveBlankLinesAfterClosingComments(root: unknown): void {
  let pending = false;
  const walk = (node: unknown): void => {
    if (isMap(node) || isSeq(node)) {
      for (const item of node.items) {
        const first = isPair(item) ? item.key : item;
        if (pending && isNodeWithSpace(first)) {
          first.spaceBefore = true;
          pending = false;
        }
        walk(isPair(item) ? item.value : item);
      }
    }
    if (isEmptyValue(node) || isBlockCollection(node)) {
      if (node.comment && /\n\s*$/.test(node.comment)) {
        node.comment = node.comment.replace(/\n\s*$/, '');
        pending = true;
      }
    }
  };
  walk(root);
}

/**
 * The closing comment of a document's root is printed at the first column, where yaml reads it back
 * as the document's own; blank lines after that are dropped.
 */
export function moveRootCommentToDocument(doc: Document): void {
  const root = doc.contents;
  if (isBlockCollection(root) && root.comment) {
    doc.comment = doc.comment ? `${root.comment}\n${doc.comment}` : root.comment;
    root.comment = undefined;
  }
  if (doc.comment) doc.comment = doc.comment.replace(/\n+$/, '');
}

/**
 * A comment above the key that sorting made the first of a list item's map would be printed beside
 * the item's dash (`- # …`), which yaml reads back as the item's comment: it goes above the dash now.
 */
export function hoistFirstKeyComment(item: unknown): void {
  if (!isMap(item) || item.flow) return;
  const key = item.items[0]?.key;
  if (!isNodeWithSpace(key) || !key.commentBefore) return;
  item.commentBefore = stackComments(item.commentBefore, key.commentBefore);
  key.commentBefore = undefined;
}

/**
 * yaml reads every comment line after a block's closing comment, or after an empty value (`faq:`
 * and nothing), as part of that comment. When sorting puts another comment right after one, the
 * next run would read it in and indent it: it is joined now, after a blank line, as yaml reads it.
 */
export function joinCommentRuns(doc: Document): void {
  let open: Node | undefined;
  const join = (comment: string): void => {
    if (open) open.comment = open.comment ? `${open.comment}\n\n${comment}` : comment;
  };
  const walk = (node: unknown): void => {
    if (isMap(node) || isSeq(node)) {
      for (const item of node.items) {
        const first = isPair(item) ? item.key : item;
        if (open && isNodeWithSpace(first) && first.commentBefore) {
          join(first.commentBefore.replace(/\n+$/, ''));
          first.spaceBefore = first.commentBefore.endsWith('\n');
          first.commentBefore = undefined;
        }
        open = undefined;
        walk(isPair(item) ? item.value : item);
      }
    }
    if (isEmptyValue(node)) {
      open = node;
    } else if (isBlockCollection(node) && node.comment) {
      // A block's closing comment printed right after the closing comment (or the empty value) it ends on.
      if (open) {
        join(node.comment);
        node.comment = undefined;
      } else {
        open = node;
      }
    }
  };
  walk(doc.contents);
  if (open && doc.comment) {
    join(doc.comment);
    doc.comment = null;
  }
}

/** One comment above another (either may be missing), with one blank line between them at most. */
export function stackComments(above: string | null | undefined, below: string | null | undefined): string | undefined {
  if (!above || !below) return above || below || undefined;
  return oneBlankLine(`${above}\n${below}`);
}

/** A comment's text with one blank line at most in a row: between lines, and at its end (a trailing `\n`). */
function oneBlankLine(comment: string): string {
  return comment.replace(/\n{3,}/g, '\n\n').replace(/\n+$/, '\n');
}

function isBlockCollection(node: unknown): node is Node {
  return (isMap(node) || isSeq(node)) && !node.flow;
}

/** `key:` with nothing after it (no `null`, `~`, anchor or tag): yaml prints its comment below it. */
function isEmptyValue(node: unknown): node is Node {
  return isScalar(node) && node.value === null && !node.source && !node.anchor && !node.tag;
}
