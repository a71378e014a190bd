/**
 * The canonical layout of a manifest (`voxform fmt`): keys in schema order, multi-line strings as
 * block scalars, 2-space indentation, comments kept (yaml's Document carries them with their keys).
 */
import { isDeepStrictEqual } from 'node:util';
import * as yaml from 'yaml';
import {
  isCollection,
  isMap,
  isScalar,
  isSeq,
  Scalar,
  visit,
  type Document,
  type Pair,
  type ScalarTag,
  type SchemaOptions,
  type ToStringOptions,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import { VoxformError } from '../errors.js';
import * as yamlDocuments from '../yaml/documents.js';
import { aliasesWithinLimits, keyText, parseYamlDocuments } from '../yaml/documents.js';
import { DiagnosticList } from '../manifest/diagnostics.js';
import { parseYamlLoaded } from '../manifest/parse-yaml.js';
import type { Diagnostic } from '../manifest/types.js';
import { LineCounter as LineStarts } from '../util/text-position.js';
import { collapseBlankLinesInComments, hoistFirstKeyComment, isNodeWithSpace, joinCommentRuns, moveBlankLinesAfterClosingComments, moveRootCommentToDocument, stackComments } from './comment-layout.js';
import { knownProperties, propertyNode, schemaNode, type SchemaNode } from '../schema/introspect.js';
import { escapeHiddenCharactersInComments, printHiddenCharactersEscaped } from './hidden-characters.js';

/** How every manifest is printed: also what `init` and `export` write (`generatedManifestText`). */
const TO_STRING_OPTIONS: ToStringOptions = {
  indent: 2,
  indentSeq: true,
  // Never fold long lines: a prompt sentence or a URL stays on the line it was written on.
  lineWidth: 0,
  minContentWidth: 0,
  // Flow maps padded, `{ a: 1 }`; flow lists not, `[a, b]`: manifestTags sets each.
  flowCollectionPadding: true,
};

/**
 * The text of a YAML file a command made (`init`'s and `export`'s manifests, `test capture`'s test
 * file). Their values and comments quote text nobody reviewed in this file (a template's description
 * and comments, the service's keys and values, a caller's words), so each value and comment is
 * written with its hidden characters escaped: one printer, so no value or comment a writer adds can
 * miss it.
 */
export function generatedManifestText(doc: Document): string {
  printHiddenCharactersEscaped(doc);
  escapeHiddenCharactersInComments(doc);
  return doc.toString(TO_STRING_OPTIONS);
}

interface FormatResult {
  text: string;
  /** Whether `text` differs from the source. */
  changed: boolean;
}

/**
 * Formats a manifest's text, each YAML document on its own; the result means the same as the source
 * (checked). It keeps the file's line ending: a file whose first line ends in CRLF (a Windows
 * checkout) is written with CRLF throughout.
 */
export function formatManifest(source: string, file: string): FormatResult {
  const problems = yamlProblems(source, file);
  if (problems.some((problem) => problem.severity === 'error')) throw unreadable(file, problems);
  const crlf = /^[^\n]*\r\n/.test(source);
  // YAML reads a CRLF as one line break, in a scalar too: the text means the same with LF.
  const formatted = formatLines(crlf ? source.replaceAll('\r\n', '\n') : source, file);
  const text = crlf ? formatted.replaceAll('\n', '\r\n') : formatted;
  assertSameMeaning(source, text, file);
  return { text, changed: text !== source };
}

/**
 * What the loader reports of the text's YAML, as `validate` shows it (codes, messages, frames): fmt
 * formats only a file the loader reads, and says why not in the loader's own words.
 */
function yamlProblems(text: string, file: string): Diagnostic[] {
  const diagnostics = new DiagnosticList();
  parseYamlLoaded({ yaml, yamlDocuments }, { path: file, display: file, text, lines: new LineStarts(), order: 0, root: '' }, diagnostics);
  return diagnostics.toList();
}

/** The canonical layout of a text whose lines end in LF (one the loader reads: see yamlProblems). */
function formatLines(source: string, file: string): string {
  const { documents: docs, tooLargeAt } = parseYamlDocuments(source, { document: { customTags: manifestTags } });
  // The loader read the text without an error; the layout's reading (keys unique) finds none either.
  if (tooLargeAt !== undefined || docs.some((doc) => doc.errors.length > 0)) throw unsafe(file);
  if (docs.every((doc) => doc.contents === null)) return source;
  for (const doc of docs) if (!isEmptyDocument(doc)) formatDocument(doc, source);
  try {
    return docs.map(renderDocument).join('');
  } catch {
    // yaml refuses to print an alias that sorting moved above its anchor.
    throw unsafe(file);
  }
}

/**
 * A plain number prints as it was written (`+15551230001`, `012`, `.5e1`), not as yaml spells the
 * value it holds: a phone key that lost its `+` would name another phone. Only text the tag itself
 * reads back is kept; true, null and the like already print as written.
 */
const printedAsWritten: NonNullable<SchemaOptions['customTags']> = (tags) =>
  tags.map((tag): typeof tag => {
    if (typeof tag === 'string' || !isScalarTag(tag) || !tag.test || !tag.stringify) return tag;
    const { test, stringify } = tag;
    return {
      ...tag,
      stringify: (node, ctx, onComment, onChompKeep) =>
        node.type === Scalar.PLAIN && typeof node.source === 'string' && test.test(node.source) ? node.source : stringify(node, ctx, onComment, onChompKeep),
    };
  });

function isScalarTag(tag: object): tag is ScalarTag {
  return !('collection' in tag) || tag.collection === undefined;
}

/**
 * A flow map is written `{ a: 1 }` and a flow list `[a, b]`, wherever it sits (a list inside a map
 * inside a list…): the padding is the printer's one setting for both, so each collection sets it
 * for itself and what it holds. yaml prints a collection through its tag's `stringify` as it does a
 * scalar, though its types declare that for scalar tags only: hence the cast.
 */
const flowPadding: NonNullable<SchemaOptions['customTags']> = (tags) =>
  tags.map((tag): typeof tag => {
    if (typeof tag === 'string' || isScalarTag(tag)) return tag;
    const padding = { [MAP_TAG]: ' ', [SEQ_TAG]: '' }[tag.tag];
    if (padding === undefined) return tag;
    const stringify = (node: YAMLMap | YAMLSeq, ctx: NonNullable<Parameters<YAMLSeq['toString']>[0]>, onComment?: () => void, onChompKeep?: () => void) =>
      node.toString({ ...ctx, flowCollectionPadding: padding }, onComment, onChompKeep);
    return { ...tag, stringify } as unknown as typeof tag;
  });

const MAP_TAG = 'tag:yaml.org,2002:map';
const SEQ_TAG = 'tag:yaml.org,2002:seq';

const MERGE = '<<';

/**
 * A plain `<<` key is a merge key, as the loader reads it (`<<: *shared`): parsed as one, so that fmt
 * sorts and prints it as one. yaml's own merge tag (its `merge` option) also claims the text "<<"
 * when printing, so a quoted `"<<"` key would lose its quotes and become a merge key: this one
 * claims merge keys alone.
 */
const mergeKeyTag: ScalarTag = {
  tag: 'tag:yaml.org,2002:merge',
  default: 'key',
  test: /^<<$/,
  identify: (value) => isMergeKeyValue(value),
  resolve: () => new Scalar(Symbol(MERGE)),
  stringify: () => MERGE,
};

function isMergeKeyValue(value: unknown): boolean {
  return typeof value === 'symbol' && value.description === MERGE;
}

function isMergeKey(pair: Pair): boolean {
  return isScalar(pair.key) && isMergeKeyValue(pair.key.value);
}

/** The tags every manifest is read and printed with (`fmt`, and the documents `init` and `export` build). */
export const manifestTags: NonNullable<SchemaOptions['customTags']> = (tags) => [...flowPadding(printedAsWritten(tags)), mergeKeyTag];

/**
 * Puts a parsed manifest into the canonical layout, in place. With the source text, a comment
 * written on a key's own line (`import:   # …`) stays on that line.
 */
export function formatDocument(doc: Document, source?: string): void {
  const root = doc.contents;
  // Blank lines at the start of a document are at the start of a block.
  if (isNodeWithSpace(root)) root.spaceBefore = false;
  collapseBlankLinesInComments(doc);
  moveRootCommentToDocument(doc);
  moveBlankLinesAfterClosingComments(root);
  if (isMap(root)) keepHeaderOnTop(doc, root, manifestNode());
  orderNode(root, manifestNode(), source);
  joinCommentRuns(doc);
  if (isMap(root)) separateSections(root);
  useBlockScalars(doc);
  quoteMergeLookalikes(doc);
  printHiddenCharactersEscaped(doc);
}

/**
 * A key that is the text `<<` (quoted in the source, or a name in a document export builds) is
 * written quoted: plain, it would be a merge key. A merge key itself holds no text and stays plain.
 */
function quoteMergeLookalikes(doc: Document): void {
  visit(doc, {
    Pair(_, pair) {
      if (isScalar(pair.key) && pair.key.value === '<<') pair.key.type = Scalar.QUOTE_DOUBLE;
    },
  });
}

/**
 * A document holding nothing but comments: yaml would print its implicit null as an empty line
 * after `---`, a blank line more on each run, so it is printed as its marker and its comments.
 */
export function isEmptyDocument(doc: Document): boolean {
  const root = doc.contents;
  return root === null || (isScalar(root) && root.value === null && root.source === '' && !root.anchor && !root.tag);
}

function renderDocument(doc: Document): string {
  if (!isEmptyDocument(doc)) return doc.toString(TO_STRING_OPTIONS);
  const root = doc.contents;
  const comments = [doc.commentBefore, isScalar(root) ? root.commentBefore : undefined, isScalar(root) ? root.comment : undefined, doc.comment];
  const lines = comments.flatMap((comment) => (comment ? comment.split('\n').map((line) => (line === '' ? '' : `#${line}`)) : []));
  if (doc.directives?.docStart) lines.unshift('---');
  return lines.length > 0 ? `${lines.join('\n')}\n` : '';
}

let rootNode: SchemaNode | undefined;
function manifestNode(): SchemaNode {
  rootNode ??= schemaNode('Manifest', 'manifest');
  return rootNode;
}

function keyName(pair: Pair): string | undefined {
  const key = pair.key;
  if (isScalar(key) && (typeof key.value === 'string' || typeof key.value === 'number')) return String(key.value);
  return undefined;
}

/**
 * Sorts a map's pairs by the schema's property order (unknown keys after, in their order; maps keyed
 * by name keep the author's order) and recurses with the schema node of each value.
 */
function orderNode(node: unknown, schema: SchemaNode | undefined, source: string | undefined): void {
  if (isMap(node)) {
    if (schema) {
      const rank = rankBy(schema);
      node.items.sort((a, b) => rank(a) - rank(b));
    }
    node.items.forEach((pair, index) => {
      if (index === 0 && isNodeWithSpace(pair.key)) pair.key.spaceBefore = false;
      // A blank line between `key:` and its block is at the start of that block.
      if (!node.flow && isNodeWithSpace(pair.value)) pair.value.spaceBefore = false;
      if (source !== undefined && !node.flow) keepKeyLineComment(pair, source);
      hangLeadingCommentOnFirstKey(pair.value);
      const name = keyName(pair);
      orderNode(pair.value, schema && name !== undefined ? propertyNode(schema, name) : undefined, source);
    });
    return;
  }
  if (isSeq(node)) {
    node.items.forEach((item, index) => {
      if (index === 0 && isNodeWithSpace(item)) item.spaceBefore = false;
      orderNode(item, schema?.items, source);
      if (!node.flow) hoistFirstKeyComment(item);
    });
  }
}

/**
 * yaml keeps the comment above the first key of a nested map on the map, not on that key, so
 * sorting would leave it above whichever key comes first. Hung on its key, it moves with it.
 */
function hangLeadingCommentOnFirstKey(node: unknown): void {
  if (!isMap(node) || node.flow || !node.commentBefore) return;
  const key = node.items[0]?.key;
  if (!isNodeWithSpace(key)) return;
  key.commentBefore = stackComments(node.commentBefore, key.commentBefore);
  node.commentBefore = undefined;
}

/**
 * A pair's place in the schema's property order; keys the schema does not know all rank last. Merge
 * keys rank first, in their order: a key of the mapping overrides a merged one wherever it is
 * written, and below the merge key it reads that way; of two merge keys the first one wins.
 */
function rankBy(schema: SchemaNode): (pair: Pair) => number {
  const order = knownProperties(schema);
  return (pair) => {
    if (isMergeKey(pair)) return -1;
    const index = order.indexOf(keyName(pair) ?? '');
    return index < 0 ? order.length : index;
  };
}

/**
 * yaml hangs the comments above the first key on that key; when sorting moves another key to the
 * top, the file's header (up to the last blank line) must stay at the top, modeline above all.
 */
function keepHeaderOnTop(doc: Document, root: YAMLMap, schema: SchemaNode): void {
  const first = root.items[0];
  const key = first?.key;
  if (!first || !isNodeWithSpace(key) || !key.commentBefore) return;
  const rank = rankBy(schema);
  const staysFirst = root.items.every((pair) => rank(first) <= rank(pair));
  if (staysFirst) return;
  const lines = key.commentBefore.split('\n');
  const lastBlank = lines.lastIndexOf('');
  const header = lastBlank < 0 ? lines : lines.slice(0, lastBlank);
  const rest = lastBlank < 0 ? [] : lines.slice(lastBlank + 1);
  doc.commentBefore = [doc.commentBefore, header.join('\n')].filter((part) => part).join('\n\n');
  key.commentBefore = rest.length > 0 ? rest.join('\n') : undefined;
}

/**
 * A comment on the key's own line above a nested block (`import:   # why`) is parsed as the
 * comment before the nested block; put it back on the key, or it would drop to the next line.
 */
function keepKeyLineComment(pair: Pair, source: string): void {
  const key = pair.key;
  const value = pair.value;
  if (!isNodeWithSpace(key) || !isCollection(value) || value.flow || !value.commentBefore || key.comment) return;
  const end = key.range?.[1];
  if (end === undefined) return;
  const lineEnd = source.indexOf('\n', end);
  const restOfLine = source.slice(end, lineEnd < 0 ? source.length : lineEnd);
  if (!/^[ \t]*:[ \t]*#/.test(restOfLine)) return;
  const [onKeyLine, ...below] = value.commentBefore.split('\n');
  key.comment = onKeyLine;
  value.commentBefore = below.length > 0 ? below.join('\n') : undefined;
}

/** Top-level sections holding a block of their own are set apart by one blank line. */
function separateSections(root: YAMLMap): void {
  root.items.forEach((pair, index) => {
    if (index === 0 || !isNodeWithSpace(pair.key)) return;
    if (isCollection(pair.value) && !pair.value.flow) pair.key.spaceBefore = true;
  });
}

/**
 * Multi-line strings as literal block scalars (`|`), unless already a block scalar (`>` kept). A
 * block scalar holds text by its lines: one of nothing but whitespace (`" \n"`) it cannot hold
 * exactly, so such a string is double-quoted.
 */
function useBlockScalars(doc: Document): void {
  visit(doc, {
    Scalar(key, node) {
      if (key === 'key' || typeof node.value !== 'string' || !node.value.includes('\n')) return;
      if (node.value.trim() === '') {
        node.type = Scalar.QUOTE_DOUBLE;
        return;
      }
      if (node.type === Scalar.BLOCK_FOLDED || node.type === Scalar.BLOCK_LITERAL) return;
      // yaml falls back to a quoted string where a block scalar cannot go (inside a flow collection).
      node.type = Scalar.BLOCK_LITERAL;
    },
  });
}

/** A formatter that changed what a manifest means would be a silent disaster: refuse instead. */
function assertSameMeaning(source: string, formatted: string, file: string): void {
  // The loader read the source within its limits: its reading here is no symbol.
  const before = loaderReading(source);
  if (typeof before === 'symbol' || !isDeepStrictEqual(before, loaderReading(formatted))) throw unsafe(file);
}

/** Whether two manifest texts read the same to the loader: keys as text, values as data. */
export function sameManifestMeaning(a: string, b: string): boolean {
  return isDeepStrictEqual(loaderReading(a), loaderReading(b));
}

const UNPARSABLE = Symbol('unparsable');
const TOO_MANY_ALIASES = Symbol('too many aliases');

/**
 * A text's documents as the loader reads them, keys as text (`+15551230001` and `15551230001` are
 * the same number to YAML, two phones to voxform); or why they cannot be read.
 */
function loaderReading(text: string): unknown[] | typeof UNPARSABLE | typeof TOO_MANY_ALIASES {
  // Read with merge keys, as the loader reads them: a `<<` that became a key would mean something else.
  const { documents: docs, tooLargeAt } = parseYamlDocuments(text, { document: { customTags: manifestTags } });
  if (tooLargeAt !== undefined || docs.some((doc) => doc.errors.length > 0)) return UNPARSABLE;
  // Compared value by value below: aliases past the loader's limits would take exponential time.
  if (!docs.every(aliasesWithinLimits)) return TOO_MANY_ALIASES;
  for (const doc of docs) {
    visit(doc, {
      Pair(_key, pair) {
        if (isScalar(pair.key) && typeof pair.key.value !== 'string' && !isMergeKey(pair)) pair.key.value = keyText(pair.key);
      },
    });
  }
  try {
    return docs.map((doc) => doc.toJS({ maxAliasCount: -1 }) as unknown);
  } catch {
    // yaml throws for a merge key given no mapping (`<<: 1`), which the loader refuses (yaml_merge).
    return UNPARSABLE;
  }
}

function unreadable(file: string, problems: Diagnostic[]): VoxformError {
  const errors = problems.filter((problem) => problem.severity === 'error').length;
  return new VoxformError('yaml_syntax', `${file} has ${errors === 1 ? 'a YAML error' : `${errors} YAML errors`} (listed above), so it was left as it is.`, {
    hint: 'Fix the YAML first: voxform fmt formats a file once `voxform validate` reads its YAML.',
    details: { diagnostics: problems },
  });
}

function unsafe(file: string): VoxformError {
  return new VoxformError('fmt_unsafe', `${file} cannot be put in the canonical layout without changing its meaning, so it was left as it is.`, {
    hint: 'This happens with anchors and aliases (&name, *name) that sorting would reorder; replace them with plain values, or report the file as a bug.',
  });
}
