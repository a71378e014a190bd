/**
 * YAML text → plain values with source spans (see positions.ts). Each document of a file is one
 * value. Syntax errors become diagnostics at their position; a document with errors yields no
 * value, because what follows a syntax error is guesswork.
 */
import type { Document, Node, YAMLError } from 'yaml';
import type { DiagnosticCode, DiagnosticList } from './diagnostics.js';
import { blockNestingPastLimitAt, MAX_ALIAS_EXPANDED_CHARACTERS, MAX_ALIAS_EXPANDED_VALUES, MAX_ALIAS_EXPANSIONS, MAX_NESTING_DEPTH, MAX_YAML_TOKENS, MAX_YAML_TOKENS_PER_LOAD } from '../yaml/limits.js';
import { attachSpans, spansOf, type EntrySpans, type PathPart } from './positions.js';
import { setOwn } from '../util/json-object.js';
import { findMisindentation, parseYamlSubset, type Misindentation } from './parse-yaml-subset.js';
import { positionOf, type ParsedDocument, type SourceText, type Span } from './source.js';
import { countLines, LineCounter } from '../util/text-position.js';
import { formatCount, plural } from '../util/plural.js';
import { yamlErrorSentence } from '../yaml/error-sentence.js';
import { numberProblem } from '../yaml/numbers.js';

export type { ParsedDocument } from './source.js';

interface ParseOutcome {
  documents: ParsedDocument[];
  /** Whether any document had a syntax error (or broke a limit). */
  syntaxErrors: boolean;
}

/**
 * The tokens the manifest files of one load may still have together (MAX_YAML_TOKENS_PER_LOAD):
 * each file read takes its own, and a file passing what is left is reported, with nothing of it kept.
 */
export class YamlTokenBudget {
  constructor(public left = MAX_YAML_TOKENS_PER_LOAD) {}

  /** Set once a file passed the budget: the load reads no further file. */
  exceeded = false;
}

/**
 * Parses a YAML source. Plain block-style YAML (nearly every manifest) takes the fast subset reader;
 * anything else, errors included, the general parser. `subset: false` forces the general parser;
 * `budget` is the load's, shared by its manifest files.
 */
export async function parseYaml(
  source: SourceText,
  diagnostics: DiagnosticList,
  options: { subset?: boolean; budget?: YamlTokenBudget } = {},
): Promise<ParseOutcome> {
  const budget = options.budget ?? new YamlTokenBudget(MAX_YAML_TOKENS);
  const fast = options.subset === false ? { misindented: () => undefined } : fastRead(source, budget);
  if ('outcome' in fast) return fast.outcome;
  // The general parser is loaded only when needed: most runs never pay for it.
  const [yaml, yamlDocuments] = await Promise.all([import('yaml'), import('../yaml/documents.js')]);
  return parseYamlGeneral({ yaml, yamlDocuments }, source, diagnostics, fast.misindented, budget);
}

/**
 * parseYaml for a caller that has loaded the general parser already (fmt, which needs it anyway):
 * the same reading, every problem the same diagnostic.
 */
export function parseYamlLoaded(modules: YamlModules, source: SourceText, diagnostics: DiagnosticList): ParseOutcome {
  const budget = new YamlTokenBudget(MAX_YAML_TOKENS);
  const fast = fastRead(source, budget);
  return 'outcome' in fast ? fast.outcome : parseYamlGeneral(modules, source, diagnostics, fast.misindented, budget);
}

/**
 * The fast reader's documents, or the wrongly indented line it gave up on, if any: in a text it
 * does not read for its tabs or `\r`, looked for only when asked, when the general parser found errors.
 */
function fastRead(source: SourceText, budget: YamlTokenBudget): { outcome: ParseOutcome } | { misindented: () => Misindentation | undefined } {
  let misindented: Misindentation | undefined;
  const fast = parseYamlSubset(source, (reason) => (misindented = reason), Math.min(MAX_YAML_TOKENS, budget.left), (tokens) => (budget.left -= tokens));
  if (fast) return { outcome: { documents: fast, syntaxErrors: false } };
  let looked = false;
  return {
    misindented: () => {
      if (!looked) {
        looked = true;
        misindented ??= findMisindentation(source);
      }
      return misindented;
    },
  };
}

function parseYamlGeneral(
  { yaml, yamlDocuments }: YamlModules,
  source: SourceText,
  diagnostics: DiagnosticList,
  misindented: () => Misindentation | undefined,
  budget: YamlTokenBudget,
): ParseOutcome {
  // Duplicate keys are found by the Converter: the library's own check compares every key with every
  // earlier one, which a mapping of many keys turns into minutes.
  const maxTokens = Math.min(MAX_YAML_TOKENS, budget.left);
  const { documents: parsed, tooLargeAt, tokens } = yamlDocuments.parseYamlDocuments(source.text, { onNewLine: source.lines.addNewLine, document: { merge: true, uniqueKeys: false }, maxTokens, suggestions: diagnostics.suggestions });
  budget.left -= tokens;
  if (tooLargeAt !== undefined) {
    // The parser recorded line starts only up to there: count them all, so positions stay right.
    source.lines = new LineCounter();
    countLines(source.lines, source.text);
    const message =
      maxTokens < MAX_YAML_TOKENS
        ? `the manifest files read up to here have more than ${formatCount(MAX_YAML_TOKENS_PER_LOAD)} YAML tokens together (keys, values, punctuation and lines; ten thousand agents have about 2,100,000), the most voxform reads in one run, so the files after this one were not parsed; load fewer or smaller manifest files`
        : `this file has more than ${formatCount(MAX_YAML_TOKENS)} YAML tokens (keys, values, punctuation and lines; a thousand-agent manifest has about 200,000); split it into several files`;
    diagnostics.error('yaml_too_large', message, spanOf(source, tooLargeAt, tooLargeAt));
    budget.exceeded = maxTokens < MAX_YAML_TOKENS;
    return { documents: [], syntaxErrors: true };
  }
  const documents: ParsedDocument[] = [];
  let syntaxErrors = false;
  for (const doc of parsed) {
    if (doc.errors.length > 0) {
      syntaxErrors = true;
      reportYamlErrors(doc, source, diagnostics, misindented());
      continue;
    }
    for (const warning of doc.warnings) {
      diagnostics.warning('yaml_warning', yamlWarningSentence(warning), spanOf(source, warning.pos[0], warning.pos[1]));
    }
    if (doc.directives?.yaml.version === '1.1') {
      // YAML 1.1 reads `yes` as true, `010` as 8 and a date as a time: not what the manifest means in 1.2.
      const at = Math.max(0, source.text.lastIndexOf('%YAML', doc.range[0]));
      diagnostics.error('yaml_unsupported', 'voxform reads YAML 1.2, not 1.1 (where `yes` is true and `010` is 8); remove the %YAML 1.1 line', spanOf(source, at, lineEndAt(source.text, at)));
      syntaxErrors = true;
      continue;
    }
    const converter = new Converter(yaml, yamlDocuments, source, doc, diagnostics);
    const value = converter.convert(doc.contents, 0);
    if (converter.failed || value === LEFT_OUT) {
      syntaxErrors = true;
      continue;
    }
    const range = doc.range ?? [0, source.text.length];
    documents.push({ value, span: spanOf(source, doc.contents?.range?.[0] ?? range[0], range[1]) });
  }
  return { documents, syntaxErrors };
}

type YamlModule = typeof import('yaml');
type YamlDocumentsModule = typeof import('../yaml/documents.js');
/** The general parser and voxform's one way of running it. */
interface YamlModules {
  yaml: YamlModule;
  yamlDocuments: YamlDocumentsModule;
}

/** The general parser's errors of one document as diagnostics (exported for its tests). */
export function reportYamlErrors(doc: Pick<Document.Parsed, 'errors' | 'range'>, source: SourceText, diagnostics: DiagnosticList, misindented: Misindentation | undefined): void {
  let errors: readonly YAMLError[] = doc.errors;
  const range = doc.range;
  if (misindented && misindented.at >= range[0] && misindented.at <= range[2]) {
    // The general parser notices a wrong indentation where the structure breaks, often lines away:
    // point at the line that is wrong, and keep only the errors after it (mistakes of their own).
    const lineEnd = lineEndAt(source.text, misindented.at);
    if (errors.some((error) => error.pos[0] <= lineEnd)) {
      reportMisindentation(misindented, source, diagnostics);
      errors = errors.filter((error) => error.pos[0] > lineEnd);
    }
  }
  // One error per line: the parser's follow-on errors after the first mistake on a line are noise.
  const lines = new Set<number>();
  // Running out of stack is one problem of the document, however many places the parser meets it.
  let outOfStack = false;
  for (const error of errors) {
    const line = positionOf(source, error.pos[0]).line;
    if (lines.has(line)) continue;
    lines.add(line);
    const span = spanOf(source, error.pos[0], error.pos[1]);
    switch (error.code) {
      case 'TAB_AS_INDENT':
        diagnostics.error('yaml_tab_indent', 'tabs are not allowed in YAML indentation; indent with spaces', span);
        break;
      case 'BAD_INDENT':
        if (/must start at the same column/.test(error.message)) {
          // The parser points at the line's start: the key that is out of line is what to show.
          const at = firstNonSpace(source.text, error.pos[0]);
          diagnostics.error('yaml_indentation', `wrong indentation: ${yamlErrorSentence(error.message)}`, spanOf(source, at, Math.max(at, error.pos[1])));
          break;
        }
        diagnostics.error('yaml_syntax', `YAML syntax error: ${yamlErrorSentence(error.message)}`, span);
        break;
      default:
        if (/call stack/i.test(error.message)) {
          // The general parser recurses per block level and reports running out of stack as an error of its own.
          const deepAt = blockNestingPastLimitAt(source.text);
          const where = deepAt === undefined ? span : spanOf(source, deepAt, lineEndAt(source.text, deepAt));
          if (!outOfStack) diagnostics.error('yaml_too_deep', `this YAML is nested too deeply to read (more than ${MAX_NESTING_DEPTH} levels are refused)`, where);
          outOfStack = true;
          break;
        }
        diagnostics.error('yaml_syntax', `YAML syntax error: ${yamlErrorSentence(error.message)}`, span);
    }
  }
}

function reportMisindentation(misindented: Misindentation, source: SourceText, diagnostics: DiagnosticList): void {
  const { found, expected, previousLine, endingComment } = misindented;
  const previousIndent = firstNonSpace(source.text, previousLine) - previousLine;
  const previousNumber = positionOf(source, previousLine).line;
  const comment = endingComment === undefined ? undefined : positionOf(source, endingComment);
  const message = comment
    ? `wrong indentation: this line is indented ${found} spaces, but the comment on line ${comment.line}, indented less than the | text above it, ended that text; indent the comment as the text is (${previousIndent} spaces), or remove it`
    : previousIndent === expected
      ? `wrong indentation: this line is indented ${found} spaces, but the block it continues is indented ${expected} (as on line ${previousNumber}); line it up with it`
      : `wrong indentation: this line is indented ${found} spaces, which lines up with no block above it: line ${previousNumber} is indented ${previousIndent} and the block around it ${expected}; line it up with one of them`;
  diagnostics.error('yaml_indentation', message, spanOf(source, misindented.at, lineEndAt(source.text, misindented.at)));
}

function lineEndAt(text: string, offset: number): number {
  const end = text.indexOf('\n', offset);
  return end === -1 ? text.length : end;
}

function firstNonSpace(text: string, offset: number): number {
  let at = offset;
  while (text.charCodeAt(at) === 32) at++;
  return at;
}

/** YAML's own tags (`!!name`) begin with this. */
const CORE_TAG = 'tag:yaml.org,2002:';
/**
 * The tags of the kinds of value JSON has, with the values each takes: any other tag (`!!timestamp`,
 * `!!binary`, `!!set`) makes a kind JSON has not.
 */
const JSON_KINDS = new Map([
  ['str', 'text'],
  ['int', 'a whole number'],
  ['float', 'a number'],
  ['bool', 'true or false'],
  ['null', 'null, ~ or nothing'],
  ['map', 'a mapping'],
  ['seq', 'a list'],
]);
/**
 * What a value no manifest field takes converts to: reported where it stands and left out of its
 * mapping (null in a list, whose later items keep their places), so the rest of the document is
 * still checked and every other problem reported in the same run.
 */
const LEFT_OUT = Symbol('left out');

/**
 * yaml nodes → plain values with spans. Aliases are expanded here, so this keeps the limits on
 * expansion and nesting: past one, the document is abandoned with one diagnostic.
 */
class Converter {
  failed = false;
  /** Set when a limit was hit: nothing more is converted or reported. */
  private stopped = false;
  private aliasExpansions = 0;
  /** Values produced inside alias expansions. */
  private expandedValues = 0;
  /** Characters of the text values produced inside alias expansions. */
  private expandedCharacters = 0;
  /**
   * The alias written outside any expansion that is being expanded now. A limit is reported there:
   * the nodes inside an expansion stand at their anchor's definition, often the file's first aliases.
   */
  private outermostAlias: Node | undefined;
  /** Anchored nodes being expanded now: an alias to one of them refers to itself. */
  private readonly expanding = new Set<unknown>();
  /** Each alias of the document → the node it refers to, made at the first alias. */
  private anchors: Map<unknown, Node | undefined> | undefined;

  constructor(
    private readonly yaml: YamlModule,
    private readonly documents: YamlDocumentsModule,
    private readonly source: SourceText,
    private readonly doc: Document.Parsed,
    private readonly diagnostics: DiagnosticList,
  ) {}

  /** `depth`: collections around `node` (aliases expanded). */
  convert(node: unknown, depth: number): unknown {
    if (node === null || node === undefined || this.stopped) return null;
    const tag = (node as { tag?: string }).tag;
    if (tag?.startsWith(CORE_TAG) && !JSON_KINDS.has(tag.slice(CORE_TAG.length))) {
      return this.leaveOut(`the tag !!${tag.slice(CORE_TAG.length)} makes a value no manifest field takes (they hold text, numbers, true/false, null, lists and mappings); remove it, and write a date or bytes as text in quotes`, node);
    }
    if (this.expanding.size > 0 && ++this.expandedValues > MAX_ALIAS_EXPANDED_VALUES) {
      const expansions = plural(this.aliasExpansions, 'alias expansion');
      return this.stopAtAlias(`expand to more than ${formatCount(MAX_ALIAS_EXPANDED_VALUES)} values (the limit per document), from ${expansions}`);
    }
    if (this.yaml.isScalar(node)) {
      if (this.expanding.size > 0 && typeof node.value === 'string' && (this.expandedCharacters += node.value.length) > MAX_ALIAS_EXPANDED_CHARACTERS) {
        return this.stopAtAlias(`expand to more than ${formatCount(MAX_ALIAS_EXPANDED_CHARACTERS)} characters of text (the limit per document), from ${plural(this.aliasExpansions, 'alias expansion')}`);
      }
      const problem = typeof node.value === 'number' ? numberProblem(node.source ?? String(node.value), node.value) : undefined;
      if (problem !== undefined) return this.leaveOut(problem, node);
      return this.scalar(node.value);
    }
    if (this.yaml.isAlias(node)) return this.expandAlias(node, depth);
    if (depth >= MAX_NESTING_DEPTH) {
      return this.stop('yaml_too_deep', `this value is nested more than ${MAX_NESTING_DEPTH} levels deep (counting what aliases expand to); a manifest needs a dozen at most`, node);
    }
    if (this.yaml.isSeq(node)) {
      const out: unknown[] = [];
      const entries = new Map<PathPart, EntrySpans>();
      for (const item of node.items) {
        entries.set(out.length, { key: undefined, value: this.spanOfNode(item as Node | null, node) });
        const value = this.convert(item, depth + 1);
        out.push(value === LEFT_OUT ? null : value);
      }
      attachSpans(out, { self: this.spanOfNode(node), entries });
      return out;
    }
    if (this.yaml.isMap(node)) return this.mapping(node, depth);
    return null;
  }

  private expandAlias(node: import('yaml').Alias, depth: number): unknown {
    if (this.expanding.size === 0) this.outermostAlias = node;
    if (++this.aliasExpansions > MAX_ALIAS_EXPANSIONS) {
      return this.stopAtAlias(`are expanded more than ${formatCount(MAX_ALIAS_EXPANSIONS)} times (the limit per document), into ${plural(this.expandedValues, 'value')}`);
    }
    const target = this.anchorOf(node);
    if (target !== undefined && this.expanding.has(target)) {
      return this.stop('yaml_alias_cycle', `the alias *${node.source} is inside the anchor &${node.source} it refers to, so it would repeat forever`, node);
    }
    // An alias is a copy of its anchor's value; positions point at the anchor's definition.
    this.expanding.add(target);
    const value = this.convert(target, depth);
    this.expanding.delete(target);
    return value;
  }

  private anchorOf(alias: import('yaml').Alias): Node | undefined {
    this.anchors ??= this.documents.aliasTargets(this.doc);
    return this.anchors.get(alias);
  }

  private mapping(node: import('yaml').YAMLMap, depth: number): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    const entries = new Map<PathPart, EntrySpans>();
    const merged: unknown[] = [];
    for (const pair of node.items) {
      if (!this.yaml.isPair(pair)) continue;
      const keyNode = pair.key as Node | null;
      if (this.yaml.isScalar(keyNode) && typeof keyNode.value === 'symbol') {
        merged.push(pair.value); // `<<: *anchor`, applied after the explicit keys (which win)
        continue;
      }
      const key = this.keyText(keyNode);
      if (key === undefined) continue;
      const keySpan = this.spanOfNode(keyNode, node);
      if (Object.hasOwn(out, key) || entries.has(key)) {
        // The first is kept and the rest of the document still checked: which one was meant is the user's to say.
        const first = entries.get(key)?.key;
        const firstLine = first ? ` (first on line ${positionOf(this.source, first.start).line})` : '';
        this.diagnostics.error('duplicate_key', `the key ${JSON.stringify(key)} is written twice in this mapping${firstLine}; YAML keys must be unique: keep one`, keySpan);
        continue;
      }
      const valueNode = pair.value as Node | null;
      entries.set(key, { key: keySpan, value: valueNode ? this.spanOfNode(valueNode) : keySpan });
      const value = this.convert(valueNode, depth + 1);
      if (value !== LEFT_OUT) setOwn(out, key, value);
    }
    for (const source of merged) this.mergeInto(out, entries, source, depth);
    attachSpans(out, { self: this.spanOfNode(node), entries });
    return out;
  }

  private stop(code: DiagnosticCode, message: string, node: unknown): null {
    this.fail(code, message, node);
    this.stopped = true;
    return null;
  }

  /** Stops at an alias limit, reported at the alias written in the document whose expansion passed it. */
  private stopAtAlias(howFar: string): null {
    return this.stop('yaml_alias_limit', `with this alias, the aliases of this document ${howFar}; write the repeated part out, or use defaults`, this.outermostAlias);
  }

  private scalar(value: unknown): unknown {
    if (typeof value === 'bigint') return Number(value);
    return value ?? null;
  }

  /** Keys are text (see keyText in ../yaml/documents.ts); a list, a mapping or an alias as a key is an error. */
  private keyText(keyNode: Node | null): string | undefined {
    if (keyNode === null) return '';
    if (this.yaml.isScalar(keyNode)) return this.documents.keyText(keyNode);
    const written = this.yaml.isAlias(keyNode) ? `an alias (*${keyNode.source}): write the key itself` : 'a list or a mapping';
    this.fail('yaml_complex_key', `a key must be plain text, not ${written}`, keyNode);
    return undefined;
  }

  private mergeInto(out: Record<string, unknown>, entries: Map<PathPart, EntrySpans>, source: unknown, depth: number): void {
    const targets = this.yaml.isSeq(source) ? source.items : [source];
    for (const target of targets) {
      const value = this.convert(target, depth);
      if (this.stopped) return;
      if (value === LEFT_OUT) continue;
      // `<<: *list`, an alias of a list of mappings, merges them as `<<: [*a, *b]` would.
      const records = Array.isArray(value) && target === source ? value : [value];
      const from = this.spanOfNode(target as Node);
      for (const record of records) {
        if (record === null || typeof record !== 'object' || Array.isArray(record)) {
          this.fail('yaml_merge', 'a merge key (<<) takes a mapping or a list of mappings', target as Node);
          continue;
        }
        const written = spansOf(record)?.entries;
        for (const key of Object.keys(record)) {
          if (Object.hasOwn(out, key)) continue;
          setOwn(out, key, (record as Record<string, unknown>)[key]);
          entries.set(key, written?.get(key) ?? { key: from, value: from });
        }
      }
    }
  }

  private leaveOut(message: string, node: unknown): typeof LEFT_OUT {
    this.diagnostics.error('yaml_unsupported', message, this.spanOfNode(node as Node | null));
    return LEFT_OUT;
  }

  private fail(code: DiagnosticCode, message: string, node: unknown): void {
    this.failed = true;
    this.diagnostics.error(code, message, this.spanOfNode(node as Node | null));
  }

  private spanOfNode(node: Node | null | undefined, fallback?: Node): Span {
    const range = node?.range ?? fallback?.range;
    if (!range) return spanOf(this.source, 0, 0);
    return spanOf(this.source, range[0], range[1]);
  }
}

function spanOf(source: SourceText, start: number, end: number): Span {
  return { source, start, end: Math.max(start, end) };
}

/**
 * A warning of the parser as voxform says it, with how to fix it. The parser says "unresolved tag"
 * both for a tag it does not know and for one of YAML's own whose value does not fit it
 * (`!!bool yes`, `!!int 1.5`): the second is a mistake in the value, not in the tag's name.
 */
function yamlWarningSentence(warning: YAMLError): string {
  const sentence = yamlErrorSentence(warning.message);
  if (warning.code !== 'TAG_RESOLVE_FAILED') return sentence;
  const kind = /^Unresolved tag: tag:yaml\.org,2002:(\w+)/.exec(warning.message)?.[1];
  const takes = kind === undefined ? undefined : JSON_KINDS.get(kind);
  if (takes === undefined) return `${sentence}: voxform knows no tag of that name, and a manifest needs none; remove it`;
  return `the value tagged !!${kind} is not one (${takes}), and a manifest needs no tag; remove it, and write the value the field takes`;
}
