/**
 * `${env:NAME}` and `${env:NAME:-default}` in string values. The default applies when the variable
 * is unset or empty (as in the shell); `$${env:NAME}` is a literal `${env:NAME}`. A missing
 * variable is a diagnostic at the place it is used. Every substituted value is a secret: the
 * caller hears of the paths that received one (to mark them sensitive) and the values (to redact).
 */
import type { DiagnosticList } from './diagnostics.js';
import { mapChildren, spansOf, type EntrySpans, type PathPart } from './positions.js';
import type { Span } from './source.js';

export interface InterpolationContext {
  env: Readonly<Record<string, string | undefined>>;
  diagnostics: DiagnosticList;
  /** Receives every value that came from the environment (or from a `:-` default). */
  onSecret(value: string): void;
}

const REFERENCE = /\$(\$?)\{env:([^}]*)\}/g;
const BODY = /^([A-Za-z_][A-Za-z0-9_]*)(?::-([\s\S]*))?$/;

export interface StringInterpolation {
  value: string;
  /** Whether any part of the value came from the environment. */
  fromEnv: boolean;
}

/** Interpolates one string; `span` is where it was written (for diagnostics). */
export function interpolateString(text: string, span: Span | undefined, ctx: InterpolationContext): StringInterpolation {
  if (!text.includes('{env:')) return { value: text, fromEnv: false };
  let fromEnv = false;
  const value = text.replace(REFERENCE, (whole: string, escape: string, body: string) => {
    if (escape) return whole.slice(1);
    const parsed = BODY.exec(body);
    if (!parsed) {
      if (span) ctx.diagnostics.error('env_syntax', `"${whole}" is not a valid reference; write \${env:NAME} or \${env:NAME:-default}`, locate(span, whole));
      return whole;
    }
    const name = parsed[1] as string;
    const fallback = parsed[2];
    const set = ctx.env[name];
    let resolved: string | undefined;
    if (fallback !== undefined) resolved = set === undefined || set === '' ? fallback : set;
    else resolved = set;
    if (resolved === undefined) {
      if (span) {
        ctx.diagnostics.error(
          'env_missing',
          `environment variable ${name} is not set; set it, or give a default with \${env:${name}:-default}`,
          locate(span, whole),
        );
      }
      return whole;
    }
    fromEnv = true;
    ctx.onSecret(resolved);
    return resolved;
  });
  return { value, fromEnv };
}

/**
 * `value` with every string interpolated, spans kept. Copy-on-write: an object or list is copied
 * only when something inside it changed, so the common case (no references) allocates nothing.
 * `onEnvPath` hears the path (below `value`) of every string that took a value from the environment.
 */
export function interpolateTree(
  value: unknown,
  ctx: InterpolationContext,
  onEnvPath: (path: PathPart[]) => void = () => undefined,
  span?: Span,
): unknown {
  const path: PathPart[] = [];
  // The entry is passed rather than its span: a span is looked up only for a string that needs it.
  const walk = (node: unknown, entry: EntrySpans | undefined): unknown => {
    if (typeof node === 'string') {
      if (!node.includes('{env:')) return node;
      const result = interpolateString(node, entry ? entry.value : span, ctx);
      if (result.fromEnv) onEnvPath([...path]);
      return result.value;
    }
    if (node === null || typeof node !== 'object') return node;
    const entries = spansOf(node)?.entries;
    let changed: Map<PathPart, unknown> | undefined;
    const parts: PathPart[] = Array.isArray(node) ? node.map((_, index) => index) : Object.keys(node);
    for (const part of parts) {
      const child = (node as Record<PathPart, unknown>)[part];
      path.push(part);
      const next = walk(child, entries?.get(part));
      path.pop();
      if (next !== child) (changed ??= new Map()).set(part, next);
    }
    if (!changed) return node;
    const replacements = changed;
    return mapChildren(node, (child, part) => (replacements.has(part) ? replacements.get(part) : child));
  };
  return walk(value, undefined);
}

/** The reference's own place inside the written value (searched in the source), else the value's start. */
function locate(span: Span, reference: string): Span {
  const raw = span.source.text.slice(span.start, span.end);
  let at = raw.indexOf(reference);
  if (at < 0) at = raw.indexOf('${env:');
  if (at < 0) return span;
  return { source: span.source, start: span.start + at, end: span.start + at + reference.length };
}
