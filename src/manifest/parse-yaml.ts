/**
 * YAML text → plain values with source spans (see positions.ts). Each document of a file is one
 * value. Syntax errors become diagnostics at their position; a document with errors yields no
 * value, because what follows a syntax error is guesswork.
 */
import type { Document, Node, YAMLError } from 'yaml';
import type { DiagnosticCode, DiagnosticList } from './diagnostics.js';
import { attachSpans, setOwn, spansOf, type EntrySpans, type PathPart } from './positions.js';
import { parseYamlSubset } from './parse-yaml-subset.js';
import { countLines, positionOf, type SourceText, type Span } from './source.js';

export interface ParsedDocument {
  value: unknown;
  /** The whole document (for "this document must be a mapping"). */
  span: Span;
}

export interface ParseOutcome {
  documents: ParsedDocument[];
  /** Whether any document had a syntax error. */
  syntaxErrors: boolean;
}

/** Aliases expanded per document at most: a guard against "billion laughs" documents. */
const MAX_ALIAS_EXPANSIONS = 10_000;

/**
 * Parses a YAML source. Plain block-style YAML (nearly every manifest) takes the fast subset reader;
 * anything else, errors included, the general parser. `subset: false` forces the general parser.
 */
export async function parseYaml(source: SourceText, diagnostics: DiagnosticList, options: { subset?: boolean } = {}): Promise<ParseOutcome> {
  if (options.subset !== false) {
    const fast = parseYamlSubset(source);
    if (fast) {
      countLines(source.lines, source.text);
      return { documents: fast, syntaxErrors: false };
    }
  }
  // The general parser is loaded only when needed: most runs never pay for it.
  const yaml = await import('yaml');
  const documents: ParsedDocument[] = [];
  let syntaxErrors = false;
  const parsed = yaml.parseAllDocuments(source.text, { lineCounter: source.lines, prettyErrors: false, merge: true, uniqueKeys: true });
  for (const doc of parsed) {
    if (doc.errors.length > 0) {
      syntaxErrors = true;
      reportYamlErrors(doc.errors, source, diagnostics);
      continue;
    }
    for (const warning of doc.warnings) {
      diagnostics.warning('yaml_warning', sentence(warning.message), spanOf(source, warning.pos[0], warning.pos[1]));
    }
    const converter = new Converter(yaml, source, doc, diagnostics);
    const value = converter.convert(doc.contents);
    if (converter.failed) {
      syntaxErrors = true;
      continue;
    }
    const range = doc.range ?? [0, source.text.length];
    documents.push({ value, span: spanOf(source, doc.contents?.range?.[0] ?? range[0], range[1]) });
  }
  return { documents, syntaxErrors };
}

function reportYamlErrors(errors: readonly YAMLError[], source: SourceText, diagnostics: DiagnosticList): void {
  // One error per line: the parser's follow-on errors after the first mistake on a line are noise.
  const lines = new Set<number>();
  for (const error of errors) {
    const line = positionOf(source, error.pos[0]).line;
    if (lines.has(line)) continue;
    lines.add(line);
    const span = spanOf(source, error.pos[0], error.pos[1]);
    switch (error.code) {
      case 'TAB_AS_INDENT':
        diagnostics.error('yaml_tab_indent', 'tabs are not allowed in YAML indentation; indent with spaces', span);
        break;
      case 'DUPLICATE_KEY':
        diagnostics.error('duplicate_key', 'this key appears twice in the same mapping; YAML keys must be unique', span);
        break;
      default:
        diagnostics.error('yaml_syntax', `YAML syntax error: ${sentence(error.message)}`, span);
    }
  }
}

type YamlModule = typeof import('yaml');

class Converter {
  failed = false;
  private aliasExpansions = 0;

  constructor(
    private readonly yaml: YamlModule,
    private readonly source: SourceText,
    private readonly doc: Document.Parsed,
    private readonly diagnostics: DiagnosticList,
  ) {}

  convert(node: unknown): unknown {
    if (node === null || node === undefined) return null;
    if (this.yaml.isScalar(node)) return this.scalar(node.value);
    if (this.yaml.isAlias(node)) {
      if (++this.aliasExpansions > MAX_ALIAS_EXPANSIONS) {
        this.fail('yaml_alias_limit', `more than ${MAX_ALIAS_EXPANSIONS} alias expansions in one document`, node);
        return null;
      }
      // An alias is a copy of its anchor's value; positions point at the anchor's definition.
      return this.convert(node.resolve(this.doc));
    }
    if (this.yaml.isSeq(node)) {
      const out: unknown[] = [];
      const entries = new Map<PathPart, EntrySpans>();
      for (const item of node.items) {
        entries.set(out.length, { key: undefined, value: this.spanOfNode(item as Node | null, node) });
        out.push(this.convert(item));
      }
      attachSpans(out, { self: this.spanOfNode(node), entries });
      return out;
    }
    if (this.yaml.isMap(node)) {
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
        const valueNode = pair.value as Node | null;
        entries.set(key, { key: keySpan, value: valueNode ? this.spanOfNode(valueNode) : keySpan });
        setOwn(out, key, this.convert(valueNode));
      }
      for (const source of merged) this.mergeInto(out, entries, source);
      attachSpans(out, { self: this.spanOfNode(node), entries });
      return out;
    }
    return null;
  }

  private scalar(value: unknown): unknown {
    if (typeof value === 'bigint') return Number(value);
    return value ?? null;
  }

  /**
   * Keys are text. A plain key that YAML reads as a number keeps its written form, so that
   * `+15551230001:` stays "+15551230001" rather than becoming 15551230001.
   */
  private keyText(keyNode: Node | null): string | undefined {
    if (keyNode === null) return '';
    if (this.yaml.isScalar(keyNode)) {
      if (typeof keyNode.value === 'string') return keyNode.value;
      if (keyNode.value === null) return keyNode.source ?? '';
      return keyNode.source ?? String(keyNode.value);
    }
    this.fail('yaml_complex_key', 'a key must be plain text, not a list or a mapping', keyNode);
    return undefined;
  }

  private mergeInto(out: Record<string, unknown>, entries: Map<PathPart, EntrySpans>, source: unknown): void {
    const targets = this.yaml.isSeq(source) ? source.items : [source];
    for (const target of targets) {
      const value = this.convert(target);
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        this.fail('yaml_merge', 'a merge key (<<) takes a mapping or a list of mappings', target as Node);
        continue;
      }
      const record = value as Record<string, unknown>;
      const from = this.spanOfNode(target as Node);
      const written = spansOf(record)?.entries;
      for (const key of Object.keys(record)) {
        if (Object.hasOwn(out, key)) continue;
        setOwn(out, key, record[key]);
        entries.set(key, written?.get(key) ?? { key: from, value: from });
      }
    }
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

/** The parser's message, first line only, without a trailing period (the diagnostic adds context). */
function sentence(message: string): string {
  const first = (message.split('\n')[0] ?? message).replace(/ at line \d+, column \d+:?$/, '');
  return first.replace(/[.:]$/, '').replace(/^\w/, (c) => c.toLowerCase());
}
