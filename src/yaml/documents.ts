/** The one way voxform reads YAML with the general parser: every file is untrusted, so ./limits.ts holds for all. */
import { Composer, Lexer, Parser, YAMLParseError, isAlias, isCollection, isPair, isScalar, visit, type Document, type DocumentOptions, type Node, type ParseOptions, type Scalar, type SchemaOptions, type YAMLError } from 'yaml';
import { MAX_ALIAS_EXPANDED_CHARACTERS, MAX_ALIAS_EXPANDED_VALUES, MAX_ALIAS_EXPANSIONS, MAX_YAML_TOKENS } from './limits.js';
import { didYouMean, SuggestionBudget } from '../util/did-you-mean.js';
import { formatCount } from '../util/plural.js';
import { countLines, LineCounter } from '../util/text-position.js';
import { replaceTabFollowOns } from './tab-indent.js';

interface YamlDocuments {
  documents: Document.Parsed[];
  /** Set when the text has more than `maxTokens` tokens: the offset where reading stopped (no documents then). */
  tooLargeAt?: number;
  /** The tokens read (all of the text's unless `tooLargeAt`). */
  tokens: number;
}

/**
 * The text's YAML documents, token by token, stopping past `maxTokens` (at most MAX_YAML_TOKENS). `onNewLine` hears each
 * line start, the first one included. An alias with no anchor before it is an error of its document
 * (see undefinedAliases); a tab in indentation is one error, not one on every line after it (see
 * ./tab-indent.ts).
 */
export function parseYamlDocuments(text: string, options: YamlReadOptions = {}): YamlDocuments {
  const read = readDocuments(text, options);
  // Only a text with a tab in indentation is read twice (see ./tab-indent.ts).
  if (read.tooLargeAt === undefined) replaceTabFollowOns(read.documents, text, (reindented) => {
    const again = readDocuments(reindented, { document: options.document, maxTokens: options.maxTokens, suggestions: options.suggestions });
    return again.tooLargeAt === undefined ? again.documents : undefined;
  });
  return read;
}

interface YamlReadOptions {
  onNewLine?: ((offset: number) => unknown) | undefined;
  document?: ParseOptions & DocumentOptions & SchemaOptions;
  maxTokens?: number;
  /** What the "did you mean" of aliases without an anchor may spend: the load's, when the text is one of its files; else the text's own. */
  suggestions?: SuggestionBudget | undefined;
}

function readDocuments(text: string, options: YamlReadOptions): YamlDocuments {
  const maxTokens = Math.min(options.maxTokens ?? MAX_YAML_TOKENS, MAX_YAML_TOKENS);
  const parser = new Parser(options.onNewLine);
  const composer = new Composer({ prettyErrors: false, ...options.document });
  const documents: Document.Parsed[] = [];
  const take = (tokens: Iterable<Parameters<typeof composer.next>[0]>): void => {
    for (const token of tokens) for (const doc of composer.next(token)) documents.push(doc);
  };
  options.onNewLine?.(0);
  const counter = new TokenCounter();
  for (const lexeme of new Lexer().lex(text)) {
    if (counter.add(lexeme) > maxTokens) return { documents: [], tooLargeAt: Math.min(parser.offset, text.length), tokens: counter.tokens };
    take(parser.next(lexeme));
  }
  take(parser.end());
  for (const doc of composer.end(false, text.length)) documents.push(doc);
  const suggestions = options.suggestions ?? new SuggestionBudget();
  for (const doc of documents) {
    // One at a time: a file's aliases are more than a call takes arguments.
    if (doc.errors.length === 0) for (const error of undefinedAliases(doc, suggestions)) doc.errors.push(error);
  }
  const unclosed = documents.filter((doc) => doc.errors.some(isUnclosedQuote));
  if (unclosed.length > 0) {
    // One count of the text's lines for every document: counted per document, a file of many cost their square.
    const lines = new LineCounter();
    countLines(lines, text);
    for (const doc of unclosed) pointAtOpeningQuotes(doc, text, lines);
  }
  return { documents, tokens: counter.tokens };
}

/**
 * The tokens of MAX_YAML_TOKENS in the lexer's pieces of a text: a scalar, each mark and each line
 * end; not the spaces, comments and the lexer's own control pieces between them.
 */
class TokenCounter {
  tokens = 0;
  /** The lexer sets a scalar's source after this piece of its own. */
  private scalarNext = false;

  add(lexeme: string): number {
    for (let at = lexeme.indexOf('\n'); at !== -1; at = lexeme.indexOf('\n', at + 1)) this.tokens++;
    if (this.scalarNext) {
      this.scalarNext = false;
      this.tokens++;
    } else if (lexeme === SCALAR) this.scalarNext = true;
    else if (!isBetweenTokens(lexeme)) this.tokens++;
    return this.tokens;
  }
}

const SCALAR = '\u001f';
/** The lexer's control pieces: a document's start, a flow collection's end at an error, a byte order mark. */
const CONTROL = new Set(['\u0002', '\u0018', '\ufeff']);

function isBetweenTokens(lexeme: string): boolean {
  const first = lexeme.charCodeAt(0);
  return CONTROL.has(lexeme) || first === 35 /* # */ || first === 10 || first === 13 || /^[ \t]+$/.test(lexeme);
}

/** The tokens of `text` that MAX_YAML_TOKENS counts (as the fast reader counts them for the text it reads). */
export function yamlTokenCount(text: string): number {
  const counter = new TokenCounter();
  for (const lexeme of new Lexer().lex(text)) counter.add(lexeme);
  return counter.tokens;
}

/** A document without errors as a plain value, aliases expanded, when within the limits; else why not, in a phrase. */
export function plainYamlValue(doc: Document): { ok: true; value: unknown } | { ok: false; problem: string } {
  if (!aliasesWithinLimits(doc)) {
    const problem = `its aliases expand past what voxform reads (${formatCount(MAX_ALIAS_EXPANSIONS)} alias expansions or ${formatCount(MAX_ALIAS_EXPANDED_VALUES)} values made by them in one document)`;
    return { ok: false, problem };
  }
  // The limits were checked above, in one pass; the library's own count walks the document per alias.
  return { ok: true, value: doc.toJS({ maxAliasCount: -1 }) as unknown };
}

/**
 * The text of a scalar key, as every reader of a manifest takes it. Keys are text: a plain key that
 * YAML reads as a number keeps its written form, so that `+15551230001:` stays "+15551230001"
 * rather than becoming 15551230001.
 */
export function keyText(key: Scalar): string {
  if (typeof key.value === 'string') return key.value;
  if (key.value === null) return key.source ?? '';
  return key.source ?? String(key.value);
}

interface Expansion {
  /** Aliases expanded when the node is expanded whole. */
  aliases: number;
  /** Values those expansions make (a value made inside a copy counted once). */
  made: number;
  /** Values in the node expanded whole (itself included). */
  values: number;
  /** Characters of text those expansions make. */
  madeCharacters: number;
  /** Characters of text in the node expanded whole. */
  characters: number;
}

const NOTHING: Expansion = { aliases: 0, made: 0, values: 0, madeCharacters: 0, characters: 0 };

/**
 * Whether the document's aliases stay within the limits, counted in one pass without expanding
 * them: `toJS` shares one value per anchor, but walking that value follows every path through the
 * shares, so a "billion laughs" file takes exponential time.
 */
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
  return total.aliases <= MAX_ALIAS_EXPANSIONS && total.made <= MAX_ALIAS_EXPANDED_VALUES && total.madeCharacters <= MAX_ALIAS_EXPANDED_CHARACTERS;
}

function measureNode(node: unknown, measure: (node: unknown) => Expansion, targets: Map<unknown, Node | undefined>): Expansion {
  if (isAlias(node)) {
    const target = measure(targets.get(node));
    // The copy is every value of the target expanded (its own aliases' copies included).
    return { aliases: target.aliases + 1, made: target.values, values: target.values, madeCharacters: target.characters, characters: target.characters };
  }
  if (isScalar(node)) return { aliases: 0, made: 0, values: 1, madeCharacters: 0, characters: typeof node.value === 'string' ? node.value.length : 0 };
  const parts: unknown[] = isPair(node) ? [node.key, node.value] : isCollection(node) ? node.items : [];
  const sum = { aliases: 0, made: 0, values: isPair(node) ? 0 : 1, madeCharacters: 0, characters: 0 };
  for (const part of parts) {
    if (part === null || part === undefined) continue;
    const child = measure(part);
    sum.aliases += child.aliases;
    sum.made += child.made;
    sum.values += child.values;
    // Text as the manifest reader counts it: values, not keys.
    if (isPair(node) && part === node.key) continue;
    sum.madeCharacters += child.madeCharacters;
    sum.characters += child.characters;
  }
  return sum;
}

function isUnclosedQuote(error: YAMLError): boolean {
  return error.code === 'MISSING_CHAR' && /closing ["']quote/.test(error.message);
}

/**
 * The library reports a quote never closed where the text it swallowed ends, often the end of the
 * file: the error is moved to the quote that opens that text, the mistake to fix. What the parser
 * says after that quote (a flow map it never saw closed, …) follows from the text it swallowed, not
 * from a mistake of its own: only the first unclosed quote is reported, with the errors before it.
 */
function pointAtOpeningQuotes(doc: Document.Parsed, text: string, lines: LineCounter): void {
  const openAt = new Map<number, number>();
  visit(doc, {
    Scalar: (_key, node) => {
      if ((node.type === 'QUOTE_DOUBLE' || node.type === 'QUOTE_SINGLE') && node.range) openAt.set(node.range[1], node.range[0]);
    },
  });
  const unclosed = doc.errors.find((error) => isUnclosedQuote(error) && openAt.has(error.pos[0]));
  const start = unclosed && openAt.get(unclosed.pos[0]);
  if (!unclosed || start === undefined) return;
  const quote = text[start];
  const { line, col } = lines.linePos(start);
  unclosed.pos = [start, start + 1];
  unclosed.message = `The quote ${quote} opened at line ${line}, column ${col} is never closed, so what follows it is read as its text; add the closing ${quote} where the text ends`;
  doc.errors = doc.errors.filter((error) => error === unclosed || error.pos[0] < start);
}

/**
 * An error for each alias with no anchor of its name before it. The library composes such an alias
 * without complaint and makes it null (or throws when printing): a typo (`*greetng`) would silently
 * clear the value it stands for.
 */
function undefinedAliases(doc: Document, suggestions: SuggestionBudget): YAMLParseError[] {
  const anchors = new Set<string>();
  const unresolved: Array<{ name: string; range: readonly number[] | null | undefined; suggestion: string | undefined }> = [];
  visit(doc, {
    Node: (_key, node) => {
      if (isAlias(node)) {
        if (node.source !== '' && !anchors.has(node.source)) unresolved.push({ name: node.source, range: node.range, suggestion: didYouMean(node.source, anchors, suggestions) });
      } else if (node.anchor) anchors.add(node.anchor);
    },
  });
  // `anchors` now holds the anchors set after an alias too.
  return unresolved.map(({ name, range, suggestion }) => {
    const message = anchors.has(name)
      ? `The alias *${name} comes before its anchor &${name}; YAML needs the anchor first: move the value marked &${name} above the alias`
      : `The alias *${name} refers to no anchor &${name} set before it; ${suggestion === undefined ? `mark the value to repeat with &${name}, or write it out` : `did you mean &${suggestion}?`}`;
    return new YAMLParseError([range?.[0] ?? 0, range?.[1] ?? 0], 'BAD_ALIAS', message);
  });
}

/**
 * Each alias → the last node anchored with its name before it, as the library's `Alias.resolve`
 * finds it; that walks the whole document per alias, this walks it once for all of them.
 */
export function aliasTargets(doc: Document): Map<unknown, Node | undefined> {
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
