/**
 * A manifest is read by people in editors and reviews: a string holding a character they cannot see
 * is printed with that character escaped, so what a reviewer reads is what the service gets. A
 * right-to-left override written raw reorders the text around it ("Trojan Source"); an author who
 * wrote `\u202e` to make it visible must not find fmt writing it back invisible.
 */
import { isNode, Scalar, visit, type Document, type ScalarTag } from 'yaml';
import { holdsWorkflowCommand, INVISIBLE } from '../util/printable.js';

/**
 * What a reader cannot see: control characters (the tab and the line feed aside, which YAML writes
 * as they are), DEL and C1 (NEL too), the invisible characters the printing rule escapes (format and
 * tag characters, see ../util/printable.ts), and the line and paragraph separators, which editors
 * break lines at where YAML does not.
 */
const HIDDEN_CHARACTER = new RegExp(`[\\x00-\\x08\\x0b-\\x1f\\x7f-\\x9f${INVISIBLE}\\u2028\\u2029]`, 'u');
const HIDDEN_CHARACTERS = new RegExp(HIDDEN_CHARACTER.source, 'gu');

/** Whether `text` holds a character the manifest writes escaped: a file that holds it raw would hide it. */
export function holdsHiddenCharacter(text: string): boolean {
  return HIDDEN_CHARACTER.test(text);
}

const STRING_TAG = 'tag:yaml.org,2002:str';

/**
 * From now on the document prints a string holding a hidden character double-quoted (never plain,
 * single-quoted or as a block scalar, where YAML has no escapes), that character escaped
 * (`\u202e`, `\U000e0041`); and one a terminal or a job log is printed with an escape in
 * (`holdsWorkflowCommand`: `##[` reads `##\u005b`), where the escape printed means what the file holds.
 */
export function printHiddenCharactersEscaped(doc: Document): void {
  doc.schema.tags = doc.schema.tags.map((tag) => (tag.tag === STRING_TAG && tag.stringify && !ESCAPING_TAGS.has(tag) ? escapingHiddenCharacters(tag, tag.stringify) : tag));
}

/** The string tags that escape already: a document set to escape twice (fmt's layout, then a command's printer) wraps its tag once. */
const ESCAPING_TAGS = new WeakSet<ScalarTag>();

function escapingHiddenCharacters(tag: ScalarTag, stringify: NonNullable<ScalarTag['stringify']>): ScalarTag {
  const escaping: ScalarTag = {
    ...tag,
    stringify(node, ctx, onComment, onChompKeep) {
      if (typeof node.value !== 'string' || !(HIDDEN_CHARACTER.test(node.value) || holdsWorkflowCommand(node.value))) return stringify(node, ctx, onComment, onChompKeep);
      const quoted = node.clone() as Scalar;
      quoted.type = Scalar.QUOTE_DOUBLE;
      // yaml escapes C0 itself; what it leaves raw inside the quotes is each such character as written.
      return hiddenCharactersEscaped(stringify(quoted, ctx, onComment, onChompKeep));
    },
  };
  ESCAPING_TAGS.add(escaping);
  return escaping;
}

/**
 * Every comment of `doc` (above and below the document, before and after each node) with each
 * hidden character escaped. A comment holds no escape YAML reads back, so the escape stays as text:
 * for the comments a command writes itself (from a template, from the service), never an author's.
 */
export function escapeHiddenCharactersInComments(doc: Document): void {
  if (doc.commentBefore) doc.commentBefore = hiddenCharactersEscaped(doc.commentBefore);
  if (doc.comment) doc.comment = hiddenCharactersEscaped(doc.comment);
  visit(doc, (_, node) => {
    if (!isNode(node)) return;
    if (node.commentBefore) node.commentBefore = hiddenCharactersEscaped(node.commentBefore);
    if (node.comment) node.comment = hiddenCharactersEscaped(node.comment);
  });
}

/** `text` with each hidden character as its escape (`\u202e`). */
function hiddenCharactersEscaped(text: string): string {
  return text.replace(HIDDEN_CHARACTERS, escapeSequence);
}

/** The YAML double-quoted escape of one character: `\uXXXX`, or `\UXXXXXXXX` beyond the BMP. */
function escapeSequence(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  return code > 0xffff ? `\\U${code.toString(16).padStart(8, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
