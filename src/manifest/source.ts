/**
 * The text of every file the loader reads (manifests, templates, prompt files), kept so that any
 * position can become `file:line:col` and a code frame, and a span type pointing into it.
 */
import path from 'node:path';
import type { SourceLocation } from '../errors.js';
import { countLines, LineCounter } from '../util/text-position.js';

export interface SourceText {
  /** Absolute path. */
  path: string;
  /** The path as diagnostics show it: relative to the working directory. */
  display: string;
  text: string;
  /** Line starts of `text`; for YAML files the parser's own counter, filled while parsing. */
  lines: LineCounter;
  /** Load order, so diagnostics sort by file the way the files were read. */
  order: number;
  /** The real folder every file this source names must be inside: the project root, or a template's own folder. */
  root: string;
}

/** One YAML document of a source: its value (spans attached, see positions.ts) and where it is. */
export interface ParsedDocument {
  value: unknown;
  /** The whole document (for "this document must be a mapping"). */
  span: Span;
}

/** A place in a source text: offsets in UTF-16 code units, `end` exclusive. */
export interface Span {
  source: SourceText;
  start: number;
  end: number;
}

/** Creates the SourceText records of one load, numbering them in creation order. */
export class SourceRegistry {
  private next = 0;

  constructor(private readonly cwd: string) {}

  /** A source whose line starts the YAML parser will record (pass `lines` to it); `root` defaults to its folder. */
  forYaml(absolutePath: string, text: string, root = path.dirname(absolutePath)): SourceText {
    return { path: absolutePath, display: this.display(absolutePath), text, lines: new LineCounter(), order: this.next++, root };
  }

  /** A source for a plain text file: line starts computed here. */
  forText(absolutePath: string, text: string, root?: string): SourceText {
    const source = this.forYaml(absolutePath, text, root);
    countLines(source.lines, text);
    return source;
  }

  display(absolutePath: string): string {
    const relative = path.relative(this.cwd, absolutePath);
    return (relative === '' ? path.basename(absolutePath) : relative).split(path.sep).join('/');
  }
}

/** 1-based line and column of an offset. */
export function positionOf(source: SourceText, offset: number): { line: number; col: number } {
  const { line, col } = source.lines.linePos(offset);
  // LineCounter answers line 0 for an empty text or an offset before the first recorded line.
  return line === 0 ? { line: 1, col: offset + 1 } : { line, col };
}

export function locationOf(span: Span): SourceLocation {
  return { file: span.source.display, ...positionOf(span.source, span.start) };
}

/** The raw source text a span covers. */
export function spanText(span: Span): string {
  return span.source.text.slice(span.start, span.end);
}
