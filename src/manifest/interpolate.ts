/**
 * `${env:NAME}` and `${env:NAME:-default}` in string values; the default applies when the variable
 * is unset or empty (as in the shell), and `$${env:NAME}` is literal text. Every substituted value
 * is a secret: the caller hears the paths that received one and the values (to redact). Every read
 * goes through the operator's policy (secrets/env-policy.ts): a refused one is never read.
 */
import { ENV_REFERENCE, ENV_REFERENCE_BODY, hasEnvReference } from '../secrets/env-reference.js';
import { MIN_SEARCHABLE_SECRET } from '../secrets/redact.js';
import { MIN_FILLED_ENV_VALUE_CHARS } from '../project-files/limits.js';
import { WITHHELD } from '../secrets/withhold.js';
import { urlTokenRanges } from '../secrets/url-tokens.js';
import { writtenByAuthor } from '../secrets/author-variables.js';
import type { DiagnosticList, Placement } from './diagnostics.js';
import type { FilledTextBudget } from './filled-text-budget.js';
import { envPolicyOf, FORBIDDEN_PLACE_FIX, refusalMessage, type EnvPolicy } from '../secrets/env-policy.js';
import { childOf, shallowCopy, spansOf, type PathPart } from './positions.js';
import { setOwn } from '../util/json-object.js';
import { VoxformError } from '../errors.js';
import type { SourceText, Span } from './source.js';
import { formatDotted } from '../util/field-path.js';

type Env = Readonly<Record<string, string | undefined>>;

export interface InterpolationContext {
  env: Env;
  diagnostics: DiagnosticList;
  /** Receives every value that came from the environment (never a `:-` default, nor a variable the change's author writes: their text). */
  onSecret(value: string): void;
  /** Receives the name of every variable a reference reads (once per reference). */
  onEnvName?(name: string): void;
  /** Which variables may be read; by default the policy `env` itself sets (`VOXFORM_ENV_ALLOW`). */
  policy?: EnvPolicy;
  /**
   * An unset variable without a fallback reads as `WITHHELD` instead of an error, its place still
   * marked as from the environment: for a run that withholds every such value anyway (LoadOptions).
   */
  unsetAsWithheld?: boolean;
  /** With `unsetAsWithheld`: receives the name of each variable read as withheld (once per reference). */
  onWithheld?(name: string): void;
  /** What filling in may build; without it, texts are built at any length (the operator's own files). */
  filledText?: FilledTextBudget;
  /** What holds the references: a manifest, or a history record, which no one edits (its refusals say what else to do). */
  from?: 'manifest' | 'record';
}

/** One policy per environment object: parsed once, however many strings are interpolated. */
const policies = new WeakMap<Env, EnvPolicy>();

function policyOf(ctx: InterpolationContext): EnvPolicy {
  if (ctx.policy) return ctx.policy;
  let policy = policies.get(ctx.env);
  if (!policy) {
    policy = envPolicyOf(ctx.env);
    policies.set(ctx.env, policy);
  }
  return policy;
}

interface StringInterpolation {
  value: string;
  /** Whether any part of the value came from the environment. */
  fromEnv: boolean;
}

/**
 * Interpolates one string; `span` is where it was written (for diagnostics). With `forbiddenPlace`
 * (what the place is called: "an agent's id") every reference is refused there, and nothing is read.
 * `unsetFix` says what to do about a variable not set; by default: set it, or give the reference a
 * default — but only set it where the reference sits in a URL's user info or query value, where
 * tokens ride (secrets/url-tokens.ts), as in a place the schema marks secret, or in a history record.
 */
export function interpolateString(text: string, span: Span | undefined, ctx: InterpolationContext, forbiddenPlace?: string, unsetFix?: UnsetFix): StringInterpolation {
  if (span && text.includes('${')) warnMiscasedReferences(text, span, ctx.diagnostics);
  if (!text.includes('{env:')) return { value: text, fromEnv: false };
  let fromEnv = false;
  const inUrlToken = urlTokenTest(text);
  const locate = span && referenceLocator(span, ENV_REFERENCE);
  const fill = (whole: string, escape: string, body: string, at: number): string => {
    if (escape) return whole.slice(1);
    if (forbiddenPlace !== undefined) {
      if (locate) ctx.diagnostics.error('env_forbidden', `\${env:…} cannot be used in ${forbiddenPlace}; ${FORBIDDEN_PLACE_FIX}`, ...locate(whole));
      return whole;
    }
    const parsed = ENV_REFERENCE_BODY.exec(body);
    if (!parsed) {
      if (locate) ctx.diagnostics.error('env_syntax', `"${withoutFallback(whole)}" is not a valid reference; write \${env:NAME} or \${env:NAME:-default}`, ...locate(whole));
      return whole;
    }
    const name = parsed[1] as string;
    const verdict = policyOf(ctx).check(name);
    if (verdict !== 'allowed') {
      if (locate) ctx.diagnostics.error('env_not_allowed', refusalMessage(name, verdict, ctx.from), ...locate(whole));
      return whole;
    }
    ctx.onEnvName?.(name);
    const fallback = parsed[2];
    const set = ctx.env[name];
    // Read only where a reference names it (the environment is never walked: a variable not named is
    // never read): a library caller's `{ HOME: 5 }` is no value a manifest can hold.
    if (set !== undefined && typeof set !== 'string') throw new VoxformError('invalid_option', `The environment given holds ${name} as ${Array.isArray(set) ? 'a list' : `a ${typeof set}`}, where a manifest reads text (a string, or unset).`, { hint: 'Pass an object of strings (or unset variables), as process.env is.' });
    const fromFallback = fallback !== undefined && (set === undefined || set === '');
    const resolved = fromFallback ? fallback : set;
    if (resolved === undefined && ctx.unsetAsWithheld) {
      fromEnv = true;
      ctx.onWithheld?.(name);
      return WITHHELD;
    }
    if (resolved === undefined) {
      if (locate) {
        ctx.diagnostics.error(
          'env_missing',
          `environment variable ${name} is not set; ${(unsetFix ?? (ctx.from === 'record' ? setWhereThisRuns : inUrlToken(at, whole.length) ? setSecret : setOrDefault))(name)}`,
          ...locate(whole),
        );
      }
      return whole;
    }
    fromEnv = true;
    // A fallback is the manifest's own text, in git already, and a variable the change's author writes
    // (secrets/author-variables.ts) is the author's: searched for, either would hide whatever words the
    // pull request chose from every output. Its place is still masked as one filled from ${env:…}.
    const authorsText = fromFallback || writtenByAuthor(name);
    if (!authorsText) ctx.onSecret(resolved);
    if (locate && !authorsText && resolved.length > 0 && resolved.length < MIN_SEARCHABLE_SECRET && firstWarning(ctx.diagnostics, name)) {
      ctx.diagnostics.warning(
        'env_value_short',
        `the value of ${name} is under ${MIN_SEARCHABLE_SECRET} characters, too short to search for in output without garbling ordinary words: it is hidden where it stands as a value (its config paths, headers), not wherever it occurs in text such as a reply; if it is not secret, it needs no \${env:…}: write it in the manifest as it is, in a header or a URL's query too (x-env: prod; the built-in policy asks for \${env:…} only where a header or query parameter names a credential, such as authorization or ?token=), or under environments: where it differs per environment; if it is secret, make it longer`,
        ...locate(whole),
      );
    }
    return resolved;
  };
  // The pieces are found first and the text built only when their lengths allow it (each value counted
  // as `countedLength` says: the verdict must not tell a secret's length).
  const pieces: string[] = [];
  let length = 0;
  let written = 0;
  for (const match of text.matchAll(ENV_REFERENCE)) {
    const filled = fill(match[0], match[1] as string, match[2] as string, match.index);
    pieces.push(text.slice(written, match.index), filled);
    const fromValue = !match[1] && filled !== match[0];
    length += match.index - written + (fromValue ? countedLength(filled) : filled.length);
    written = match.index + match[0].length;
  }
  length += text.length - written;
  if (ctx.filledText && !ctx.filledText.admit(length, span, '${env:…} references')) return { value: text, fromEnv: false };
  pieces.push(text.slice(written));
  return { value: pieces.join(''), fromEnv };
}

/**
 * What a value filled in from `${env:…}` counts for against the length limits: MIN_FILLED_ENV_VALUE_CHARS,
 * or for a longer value the least power of two times it that holds the value. The pull request that
 * writes the references chooses the text around them, so a count of the value's own length would let
 * it read that length off the verdict to the character; counted so, a verdict tells at most which of
 * those sizes a long value (a key file, a JSON credential) falls in.
 */
function countedLength(filled: string): number {
  let counted = MIN_FILLED_ENV_VALUE_CHARS;
  while (counted < filled.length) counted *= 2;
  return counted;
}

/** A reference as a message quotes it: a fallback shown as `…`, as code frames hide it where it stands (docs/manifest.md), also where the reference is malformed. */
function withoutFallback(reference: string): string {
  const fallback = reference.indexOf(':-');
  return fallback === -1 ? reference : `${reference.slice(0, fallback)}:-…}`;
}

/** What to do about an unset variable `name`, as the end of the `env_missing` message. */
type UnsetFix = (name: string) => string;

const setOrDefault: UnsetFix = (name) => `set it, or give a default with \${env:${name}:-default}`;

/** In a place that holds a secret, a default would be a secret written in the manifest, for version control. */
const setSecret: UnsetFix = () => 'set it where plan and apply run (the place holds a secret: a default would write the secret into the manifest)';

/** A history record is never changed: a default written in the manifests would not reach it. */
const setWhereThisRuns: UnsetFix = () => 'set it where this command runs';

/**
 * Whether the reference at `start` of `text` (`length` characters long) sits in a URL's user info or
 * a query value, asked of the references in their order. The URL is split once per text, when first
 * asked, and each answer goes on from where the last one stopped: a text of many references unset
 * costs no more than reading it.
 */
function urlTokenTest(text: string): (start: number, length: number) => boolean {
  let ranges: Array<[number, number]> | undefined;
  let next = 0;
  return (start, length) => {
    // The URL as written, each reference read as plain text of its length: a fallback's `@` or `&` splits nothing.
    ranges ??= urlTokenRanges(text.replace(ENV_REFERENCE, (reference) => 'x'.repeat(reference.length)));
    // The ranges are in order and apart: one ending before this reference ends before every later one too.
    while (next < ranges.length && (ranges[next] as [number, number])[1] <= start) next++;
    const range = ranges[next];
    return range !== undefined && start + length > range[0];
  };
}

/** `${ENV:NAME}`, `${Env:NAME}`: `env` in another case, which makes no reference (group 1: as written, group 2: the name, group 3: `:-` and a fallback). */
const MISCASED_REFERENCE = /\$\{(?!env:)([Ee][Nn][Vv]):([^}:]*)(:-[^}]*)?\}/g;

/**
 * A reference written in the wrong case is sent as its text, which no one means: a warning at it,
 * with the reference it was meant to be. A warning, not an error, because that text is valid
 * and the manifest's reference syntax has no escape for it.
 */
function warnMiscasedReferences(text: string, span: Span, diagnostics: DiagnosticList): void {
  const locate = referenceLocator(span, MISCASED_REFERENCE);
  for (const [whole, env, name, fallback] of text.matchAll(MISCASED_REFERENCE)) {
    // A fallback is shown as `…`: were the reference right, its text would be a secret.
    const rest = `${name}${fallback === undefined ? '' : ':-…'}}`;
    diagnostics.warning(
      'env_case',
      `"\${${env}:${rest}" is not a reference, so it is sent as this text: references are written in lower case; write \${env:${rest} to read the variable`,
      ...locate(whole),
    );
  }
}

/** The variables already warned about as too short, per load: one warning per variable. */
const warnedShort = new WeakMap<DiagnosticList, Set<string>>();

function firstWarning(diagnostics: DiagnosticList, name: string): boolean {
  let names = warnedShort.get(diagnostics);
  if (!names) warnedShort.set(diagnostics, (names = new Set()));
  if (names.has(name)) return false;
  names.add(name);
  return true;
}

/** How `interpolateTree` walks one tree. */
interface TreeInterpolation {
  /** Hears the path (below the tree's root) of every string that took a value from the environment, and the string as written. */
  onEnvPath?: (path: PathPart[], written: string) => void;
  /** Hears the path of every string that holds escaped `$${env:…}` text and no reference: the escape, as written, shows it holds none. */
  onEscapedPath?: (path: PathPart[]) => void;
  /** Where, inside the tree, references are refused: the place's name (see secrets/env-policy.ts). */
  forbidden?: (path: readonly PathPart[]) => string | undefined;
  /** Where, inside the tree, the schema marks the place secret: a variable not set there is to be set, never given a default. */
  secret?: (path: readonly PathPart[]) => boolean;
  /** Where a string is reported that has no place of its own and no enclosing object with one. */
  span?: Span;
  /**
   * The text of a shipped template merged into the tree: a reference written there cannot be given
   * a default (the file is voxform's, not the user's), so for a variable not set the fix named
   * besides setting it is the tree's own value for the field, which replaces the template's.
   */
  shippedTemplate?: SourceText;
}

/**
 * `value` with every string interpolated, spans kept; copy-on-write (no references: no copies).
 * A string without a place of its own is reported at the nearest enclosing object, else at `how.span`.
 */
export function interpolateTree(value: unknown, ctx: InterpolationContext, how: TreeInterpolation): unknown {
  const { onEnvPath, onEscapedPath, forbidden, secret, span, shippedTemplate } = how;
  const path: PathPart[] = [];
  const ancestors: object[] = [];
  const enclosingSpan = (): Span | undefined => {
    for (let i = ancestors.length - 1; i >= 0; i--) {
      const self = spansOf(ancestors[i] as object)?.self;
      if (self) return self;
    }
    return span;
  };
  // A string's span is looked up (in its parent, the last ancestor) only when it holds a reference.
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') {
      // Every reference starts `${`, so does one in the wrong case (interpolateString warns of it).
      if (!node.includes('${')) return node;
      const parent = ancestors[ancestors.length - 1];
      const written = parent === undefined ? undefined : spansOf(parent)?.entries.get(path[path.length - 1] as PathPart)?.value;
      const at = written ?? enclosingSpan();
      const unsetFix = shippedTemplate !== undefined && at?.source === shippedTemplate ? overrideFix(path) : secret?.(path) ? setSecret : undefined;
      const result = interpolateString(node, at, ctx, forbidden?.(path), unsetFix);
      if (result.fromEnv) onEnvPath?.([...path], node);
      else if (result.value !== node) onEscapedPath?.([...path]);
      return result.value;
    }
    if (node === null || typeof node !== 'object') return node;
    // Copied on the first child that changes; until then the node itself is the answer.
    let copy: Record<string, unknown> | undefined;
    const parts: PathPart[] = Array.isArray(node) ? node.map((_, index) => index) : Object.keys(node);
    ancestors.push(node);
    for (const part of parts) {
      const child = (node as Record<PathPart, unknown>)[part];
      path.push(part);
      const next = walk(child);
      path.pop();
      if (next === child) continue;
      copy ??= shallowCopy(node) as Record<string, unknown>;
      setOwn(copy, String(part), next);
    }
    ancestors.pop();
    return copy ?? node;
  };
  return walk(value);
}

/**
 * The field to write in the agent's own entry instead of a template's: the string's own, or the list
 * holding it, since a list replaces the template's whole (maps merge key by key).
 */
function overrideFix(path: readonly PathPart[]): UnsetFix {
  const list = path.findIndex((part) => typeof part === 'number');
  const own =
    list === -1
      ? `give the agent its own ${formatDotted(path)} (it replaces the template's)`
      : `give the agent its own ${formatDotted(path.slice(0, list))} (the whole list: it replaces the template's)`;
  return () => `set it, or ${own}`;
}

/**
 * `interpolateTree`, the view of its answer the schema checks (the text as written wherever a
 * reference was filled in or an escape unescaped: `writtenAtEnvPlaces`), and the places references
 * were filled in (`envPlaces`: secret places of the check). `how.onEnvPath` still hears each reference.
 */
export function interpolateForCheck(value: unknown, ctx: InterpolationContext, how: Omit<TreeInterpolation, 'onEscapedPath'>): { resolved: unknown; checked: unknown; envPlaces: PathPart[][] } {
  const envPlaces: PathPart[][] = [];
  const escapedPlaces: PathPart[][] = [];
  const onEnvPath = (path: PathPart[], written: string): void => {
    envPlaces.push(path);
    how.onEnvPath?.(path, written);
  };
  const resolved = interpolateTree(value, ctx, { ...how, onEnvPath, onEscapedPath: (path) => void escapedPlaces.push(path) });
  return { resolved, checked: writtenAtEnvPlaces(resolved, value, [...envPlaces, ...escapedPlaces]), envPlaces };
}

/**
 * `resolved` with the text as written (`+1555${env:TOKEN}`) at each of `places`, the strings that
 * took a value from the environment (as `onEnvPath` heard them): the view the schema checks. A
 * pull request writes the text around a reference and reads the verdict, so a check of the filled-in
 * value would tell it the value's length and characters (docs/security.md §5). The places of escaped
 * text (`onEscapedPath`) are checked as written too: unescaped, `$${env:X}` would read as the
 * reference `${env:X}` where a phone number may be one. Copy-on-write, spans kept.
 */
function writtenAtEnvPlaces(resolved: unknown, written: unknown, places: readonly PathPart[][]): unknown {
  // Each node on the way to a place is copied once, however many places lie below it.
  const copies = new Set<object>();
  const replaced = (node: unknown, path: readonly PathPart[], text: unknown): unknown => {
    const [head, ...rest] = path;
    if (head === undefined) return text;
    if (node === null || typeof node !== 'object') return node;
    const copy = (copies.has(node) ? node : shallowCopy(node)) as Record<string, unknown>;
    copies.add(copy);
    setOwn(copy, String(head), replaced(childOf(node, head), rest, childOf(text, head)));
    return copy;
  };
  return places.reduce((view, place) => replaced(view, place, written), resolved);
}

/** Reports every reference in a forbidden place of `value`, reading nothing: for the overlays not in use. */
export function reportForbiddenReferences(
  value: unknown,
  forbidden: (path: readonly PathPart[]) => string | undefined,
  diagnostics: DiagnosticList,
  span: Span,
): void {
  const ctx: InterpolationContext = { env: {}, diagnostics, onSecret: () => undefined };
  const walk = (node: unknown, path: PathPart[], at: Span): void => {
    if (typeof node === 'string') {
      const place = forbidden(path);
      if (place !== undefined && hasEnvReference(node)) interpolateString(node, at, ctx, place);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const entries = spansOf(node)?.entries;
    const parts: PathPart[] = Array.isArray(node) ? node.map((_, index) => index) : Object.keys(node);
    for (const part of parts) walk((node as Record<PathPart, unknown>)[part], [...path, part], entries?.get(part)?.value ?? at);
  };
  walk(value, [], spansOf(value)?.self ?? span);
}

/**
 * Where the references of one written value are reported, asked of them in their order: each at its
 * own place in the source (a reference repeated: where it is first written, one problem), else, when
 * it is written otherwise there (an escape or `''` in a quoted string, a line folded), at the value's
 * first reference, or at the value: a place that stands in for several, which the answer says, so
 * that each problem there is still reported. The source is read once, when a first problem is
 * reported, for every place where `written` (the pattern that found the references in the value)
 * finds one: an escaped `$${env:NAME}` is text of its own, passed over as the interpolation passes
 * over it. Each reference then takes the first place of its text after the last one placed: a value
 * of many references costs about one reading, however many of them are written otherwise.
 */
function referenceLocator(span: Span, written: RegExp): (reference: string) => [Span, Placement?] {
  // Read when a first problem is reported: most values have none.
  let places: Map<string, number[]> | undefined;
  let fallback = -1;
  /** Where each reference was placed, -1 for one written otherwise. */
  const placed = new Map<string, number>();
  let searchFrom = 0;
  const at = (offset: number, length: number): Span => ({ source: span.source, start: span.start + offset, end: span.start + offset + length });
  return (reference) => {
    if (places === undefined) {
      places = new Map();
      for (const match of span.source.text.slice(span.start, span.end).matchAll(written)) {
        if (fallback === -1 && !match[0].startsWith('$$')) fallback = match.index;
        const offsets = places.get(match[0]);
        if (offsets) offsets.push(match.index);
        else places.set(match[0], [match.index]);
      }
    }
    let offset = placed.get(reference);
    if (offset === undefined) {
      offset = places.get(reference)?.find((candidate) => candidate >= searchFrom) ?? -1;
      placed.set(reference, offset);
      if (offset !== -1) searchFrom = offset + reference.length;
    }
    if (offset !== -1) return [at(offset, reference.length)];
    return [fallback === -1 ? span : at(fallback, reference.length), { standIn: true }];
  };
}
