/**
 * Schema issues (from Ajv, via src/schema/validate-manifest.ts) → diagnostics a person can act on: at the
 * key for an unknown field, at the value for a wrong one; with "did you mean", the expected and
 * found types, and for fields only the service sets, the reason they cannot be written.
 */
import { flaggedPaths, knownProperties, nodeAt, schemaNode } from '../schema/introspect.js';
import type { SchemaIssue } from '../schema/issues.js';
import { validateAgainstManifestDef } from '../schema/validate-manifest.js';
import { isSecretManifestPath } from '../secrets/schema-paths.js';
import { formatIndexed, PatternSet, valueAtPath } from '../util/field-path.js';
import { didYouMean } from '../util/did-you-mean.js';
import { configPathOf, describeContainer, describePlace } from './describe.js';
import { describeExpected, describeFound, quote } from '../util/describe-value.js';
import type { DiagnosticList } from './diagnostics.js';
import { phoneNumberAdvice } from './names.js';
import { resolvePlain } from './parse-yaml-subset.js';
import { entryAt, spanAt, type FilledBy, type PathPart, type ValuePath } from './positions.js';
import { isPlainObject, setOwn, withoutNullFields } from '../util/json-object.js';
import { spanText, type Span } from './source.js';
import { LineCounter } from '../util/text-position.js';

interface SchemaCheck {
  /** A manifest definition (`AgentSpec`, `PhoneSpec`, …) or `Manifest`. */
  definition: string;
  /** The value to check as written (nulls and all), spans attached. */
  value: unknown;
  /** Where the value sits in the manifest: `['agents', 'front-desk']`. */
  at: PathPart[];
  /** A fragment checked on its own (an environment overlay, defaults): required fields may come from elsewhere. */
  partial?: boolean;
  /** Whether the value at a path (relative to `value`) is a secret that must not be echoed. */
  isSecret?: (path: ValuePath) => boolean;
  /** Issues the caller handles itself (e.g. key patterns it reports with its own words). */
  skip?: (issue: SchemaIssue) => boolean;
  /** Where to point when the value has no spans of its own. */
  fallback: Span;
}

let readOnlyPatterns: PatternSet | undefined;

/** Config paths only the service sets (`voice.provider`, `tools[].response_mode`, …). */
function readOnlyConfigPatterns(): PatternSet {
  readOnlyPatterns ??= new PatternSet(flaggedPaths('AgentConfigRead', 'readOnly'));
  return readOnlyPatterns;
}

/** Validates `check.value` (nulls inside agent configs removed first) and reports what is wrong. */
export function checkAgainstSchema(check: SchemaCheck, diagnostics: DiagnosticList): void {
  const candidate = withoutConfigNulls(check.value, check.at);
  for (const issue of validateAgainstManifestDef(check.definition, candidate)) {
    if (check.skip?.(issue)) continue;
    if (check.partial && issue.keyword === 'missing_property') continue;
    reportIssue(issue, check, diagnostics);
  }
}

/** Where issues are reported: the loader's list, or one that rewrites them (see blameVariables). */
type ErrorSink = Pick<DiagnosticList, 'error'>;

/**
 * Validate's wording of each schema issue of `value`, for a caller with no source text to point at
 * (`voxform init` checking the agent it is about to write); no value is quoted, as for a secret
 * (what a person typed may be one). `at` is where the value would sit in a manifest.
 */
export function schemaIssueMessages(definition: string, value: unknown, at: PathPart[]): Array<{ issue: SchemaIssue; message: string }> {
  const nowhere: Span = { source: { path: '', display: '', text: '', lines: new LineCounter(), order: 0, root: '' }, start: 0, end: 0 };
  const check: SchemaCheck = { definition, value, at, fallback: nowhere, isSecret: () => true };
  const messages: Array<{ issue: SchemaIssue; message: string }> = [];
  for (const issue of validateAgainstManifestDef(definition, withoutConfigNulls(value, at))) {
    reportIssue(issue, check, { error: (_code, message) => messages.push({ issue, message }) });
  }
  return messages;
}

/** An issue at the key it is with (reportKeyIssue), else at the value. */
function reportIssue(issue: SchemaIssue, check: SchemaCheck, list: ErrorSink): void {
  if (issue.propertyName !== undefined) reportKeyIssue(issue, issue.propertyName, check, list);
  else reportValueIssue(issue, check, list);
}

function reportValueIssue(issue: SchemaIssue, check: SchemaCheck, list: ErrorSink): void {
  const path = issue.path;
  const full = [...check.at, ...path];
  const value = valueAtPath(check.value, path);
  const secret = (check.isSecret?.(path) ?? false) || isSecretManifestPath(full);
  const entry = entryAt(check.value, path);
  if (entry?.unfilled) return;
  const filledBy = entry?.filledBy;
  const diagnostics = filledBy ? blameVariables(list, filledBy) : list;
  const valueSpan = filledBy?.span ?? spanAt(check.value, path) ?? check.fallback;
  const found = describeFound(value, secret ? 'kind' : 'value');
  const place = describePlace(full);

  switch (issue.keyword) {
    case 'unknown_property':
      reportUnknownProperty(path, check, diagnostics);
      return;
    case 'missing_property': {
      const parent = path.slice(0, -1);
      const name = String(path[path.length - 1]);
      const span = spanAt(check.value, parent, 'key') ?? check.fallback;
      diagnostics.error('missing_field', `${describePlace([...check.at, ...parent])} needs "${name}"`, span);
      return;
    }
    case 'type': {
      const expected = ([] as string[]).concat(issue.params.type as string | string[]);
      diagnostics.error('type_mismatch', `${place}: expected ${describeExpected(expected)}, found ${found}${quoteHint(expected, value, valueSpan, secret)}`, valueSpan);
      return;
    }
    case 'anyOf': {
      reportAnyOf(issue, check, { value, found, place, valueSpan, path }, diagnostics);
      return;
    }
    case 'enum': {
      const allowed = (issue.params.allowedValues as unknown[]) ?? [];
      const suggestion = typeof value === 'string' && !secret ? didYouMean(value, allowed.map(String)) : undefined;
      diagnostics.error(
        'invalid_value',
        `${place}: expected one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}, found ${found}${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
        valueSpan,
      );
      return;
    }
    case 'const': {
      diagnostics.error('invalid_value', `${place}: expected ${JSON.stringify(issue.params.allowedValue)}, found ${found}`, valueSpan);
      return;
    }
    case 'pattern': {
      const shown = typeof value === 'string' && !secret ? `${quote(value)} ` : '';
      const pattern = String(issue.params.pattern);
      const advice = typeof value === 'string' && !secret && PHONE_PATTERNS.has(pattern) ? phoneNumberAdvice(value) : '';
      diagnostics.error('invalid_value', `${place}: ${shown}is not ${describePattern(pattern)}${advice}`, valueSpan);
      return;
    }
    case 'format': {
      const shown = typeof value === 'string' && !secret ? `${quote(value)} ` : '';
      diagnostics.error('invalid_value', `${place}: ${shown}is not ${describeFormat(String(issue.params.format))}`, valueSpan);
      return;
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'minLength':
    case 'maxLength':
      diagnostics.error('invalid_value', outOfBounds(issue, place, typeof value === 'number' && !secret ? String(value) : found), valueSpan);
      return;
    case 'uniqueItems': {
      const later = Math.max(Number(issue.params.i), Number(issue.params.j));
      const item = valueAtPath(check.value, [...path, later]);
      const shown = typeof item === 'string' && !secret ? quote(item) : 'the same value';
      diagnostics.error('duplicate_item', `${place} lists ${shown} twice`, spanAt(check.value, [...path, later]) ?? valueSpan);
      return;
    }
    default:
      diagnostics.error('invalid_value', `${place} ${issue.message}`, valueSpan);
  }
}

/** A number or a text past one of its schema's bounds, in words; `shown`: the value found, as it may be shown. */
function outOfBounds(issue: SchemaIssue, place: string, shown: string): string {
  const limit = Number(issue.params.limit);
  if (issue.keyword === 'minLength') return limit <= 1 ? `${place} must not be empty` : `${place} must be at least ${limit} characters long`;
  if (issue.keyword === 'maxLength') return `${place} is too long: at most ${limit} characters`;
  return `${place} must be ${BOUND_WORDS[String(issue.params.comparison)] ?? String(issue.params.comparison)} ${limit}, found ${shown}`;
}

/** A key the schema constrains (`propertyNames`, such as a rule id of `policy.rules`): at the key, naming it. */
function reportKeyIssue(issue: SchemaIssue, key: string, check: SchemaCheck, list: ErrorSink): void {
  const span = spanAt(check.value, [...issue.path, key], 'key') ?? spanAt(check.value, issue.path) ?? check.fallback;
  const problem =
    issue.keyword === 'pattern' ? `is not ${describePattern(String(issue.params.pattern))}` : issue.keyword === 'maxLength' ? `is longer than ${Number(issue.params.limit)} characters` : issue.message;
  list.error('invalid_value', `${describePlace([...check.at, ...issue.path])}: ${quote(key)} ${problem}`, span);
}

/** A value a template wrote and the manifest's `vars` filled in: reported where `vars` sets it, naming the variable. */
function blameVariables(diagnostics: ErrorSink, filledBy: FilledBy): ErrorSink {
  const names = filledBy.variables.map((name) => `vars.${name}`);
  const given = names.length === 1 ? `the value of ${names[0]} does` : `the values of ${names.join(', ')} do`;
  return {
    error: (code, message) => diagnostics.error(code, `${given} not fit template "${filledBy.template}": ${message}`, filledBy.span),
  };
}

/** A field the schema does not know: read-only fields, suggestions, and config fields written outside `config`. */
function reportUnknownProperty(path: readonly PathPart[], check: SchemaCheck, diagnostics: ErrorSink): void {
  const full = [...check.at, ...path];
  const parent = path.slice(0, -1);
  const key = String(path[path.length - 1]);
  const keySpan = spanAt(check.value, path, 'key') ?? check.fallback;
  const configPath = configPathOf(full);
  if (configPath && readOnlyConfigPatterns().matches(configPath)) {
    diagnostics.error(
      'read_only_field',
      `${formatIndexed(configPath)} is set by the service and cannot be changed by the update operation; remove it`,
      keySpan,
    );
    return;
  }
  const node = nodeAt(schemaNode(check.definition, 'manifest'), parent);
  const known = node ? knownProperties(node) : [];
  const suggestion = didYouMean(key, known);
  const configField = suggestion ? undefined : configFieldNamed(full, key);
  const hint = suggestion
    ? `; did you mean "${suggestion}"?`
    : configField
      ? configField === key
        ? `; ${key} is a config field: put it under config`
        : `; did you mean "${configField}" (a config field, which goes under config)?`
      : known.length > 0 && known.length <= 8
        ? ` (known fields: ${known.join(', ')})`
        : '';
  diagnostics.error('unknown_field', `unknown field "${key}" ${describeContainer([...check.at, ...parent])}${hint}`, keySpan);
}

/**
 * `anyOf` failures (a prompt that is a string or a file include): for an object value the object
 * branch was meant, so name its unknown keys or missing field; otherwise the kinds accepted.
 */
function reportAnyOf(
  issue: SchemaIssue,
  check: SchemaCheck,
  at: { value: unknown; found: string; place: string; valueSpan: Span; path: ValuePath },
  diagnostics: ErrorSink,
): void {
  const expected = ((issue.params.expected as string[] | undefined) ?? []).map(String);
  if (isPlainObject(at.value)) {
    const node = nodeAt(schemaNode(check.definition, 'manifest'), at.path);
    const known = node ? knownProperties(node) : [];
    const unknown = Object.keys(at.value).filter((key) => known.length > 0 && !known.includes(key));
    for (const key of unknown) {
      const suggestion = didYouMean(key, known);
      diagnostics.error(
        'unknown_field',
        `unknown field "${key}" in ${at.place}${suggestion ? `; did you mean "${suggestion}"?` : ` (known fields: ${known.join(', ')})`}`,
        spanAt(check.value, [...at.path, key], 'key') ?? at.valueSpan,
      );
    }
    if (unknown.length > 0) return;
    const needed = expected.map((e) => /^an object with (.+)$/.exec(e)?.[1]).filter((name): name is string => Boolean(name));
    if (needed.length > 0 && !check.partial) {
      const span = spanAt(check.value, at.path, 'key') ?? at.valueSpan;
      diagnostics.error('missing_field', `${at.place} needs "${needed[0]}"`, span);
      return;
    }
    if (needed.length > 0) return;
  }
  diagnostics.error('type_mismatch', `${at.place}: expected ${describeExpected(expected)}, found ${at.found}`, at.valueSpan);
}

/** The config field an unknown agent-level key names (`prompt:` beside `id:`, a slip of indentation). */
function configFieldNamed(full: ValuePath, key: string): string | undefined {
  const path = full[0] === 'environments' ? full.slice(2) : full;
  if (path.length !== 3 || path[0] !== 'agents') return undefined;
  const fields = knownProperties(schemaNode('AgentConfigSpec', 'manifest'));
  return fields.includes(key) ? key : didYouMean(key, fields);
}

/** A number or boolean where text was expected: YAML read it unquoted; show the quoted form. */
function quoteHint(expected: string[], value: unknown, span: Span, secret: boolean): string {
  if (secret || !expected.includes('string') || (typeof value !== 'number' && typeof value !== 'boolean')) return '';
  const written = spanText(span).trim();
  // Only where the text itself reads as this value: not an alias (`*i`), nor a quoted placeholder a template filled.
  if (resolvePlain(written) !== value) return '';
  return `; write it in quotes if you meant text: "${written.replaceAll('"', '\\"')}"`;
}

const PHONE_PATTERN = '^\\+[1-9][0-9]{6,14}$';
// The same, where a value may come from `${env:…}`: such a value is checked as written, never filled in.
const PHONE_OR_REFERENCE_PATTERN = '^(?:\\+[1-9][0-9]{6,14}|(?:.*[^$])?\\$\\{env:[^}]*\\}.*)$';
/**
 * The schema's `ServiceId`: the service promises no form for its ids, but none holds a space or a
 * control character, and none is "." or "..", which a request's path would read as another endpoint.
 */
const SERVICE_ID_PATTERN = '^(?!\\.{1,2}$)[^\\s\\u0000-\\u001f\\u007f-\\u009f]*$';
/** The schemas' phone number patterns: a value that breaks one gets the advice every phone number gets (phoneNumberAdvice). */
const PHONE_PATTERNS = new Set([PHONE_PATTERN, PHONE_OR_REFERENCE_PATTERN]);

const PATTERN_WORDS: Record<string, string> = {
  '^[A-Za-z0-9][A-Za-z0-9_.-]*$': 'a valid name (letters, digits, "-", "_" and ".", starting with a letter or digit)',
  [PHONE_PATTERN]: 'an E.164 phone number ("+", the country code and the number, digits only, no spaces: "+15551230001")',
  [PHONE_OR_REFERENCE_PATTERN]: 'an E.164 phone number ("+", the country code and the number, digits only, no spaces: "+15551230001") or ${env:NAME}',
  [SERVICE_ID_PATTERN]: 'an id as the service gives it, such as -OKdqbqetEcM4ak369ym: no spaces, line breaks or other control characters, and not "." or ".." (copy it again, whole)',
  '^[1-9][0-9]{0,5}[mhd]$': 'a duration: a whole number from 1 to 999999 and m (minutes), h (hours) or d (days), such as "30m" or "2h"',
  '^(name|config(\\.[A-Za-z0-9_]+)*)$': 'a field path: name, config, or config followed by dotted fields such as config.voice.settings',
  '^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$': 'a rule id (lower-case letters and digits, words joined by "-", such as speech-url)',
};

/** Ajv's comparisons of a number with its schema's limit, in words. */
const BOUND_WORDS: Record<string, string> = { '>=': 'at least', '<=': 'at most', '>': 'more than', '<': 'less than' };

/** The schemas' `format`s in words. */
const FORMAT_WORDS: Record<string, string> = {
  date: 'a calendar date written YYYY-MM-DD, such as "2027-06-30" (a month from 01 to 12, a day the month has)',
};

function describeFormat(format: string): string {
  return FORMAT_WORDS[format] ?? `in the expected form (${format})`;
}

function describePattern(pattern: string): string {
  return PATTERN_WORDS[pattern] ?? `in the expected form (${pattern})`;
}

/** A copy without the `null`s ("clear this field") inside agent configs, unknown to the schema; paths unchanged. */
function withoutConfigNulls(value: unknown, at: PathPart[]): unknown {
  const hasNull = (node: unknown): boolean => {
    if (node === null) return true;
    if (Array.isArray(node)) return node.some((item) => item !== null && hasNull(item));
    if (isPlainObject(node)) for (const key in node) if (hasNull(node[key])) return true;
    return false;
  };
  const walk = (node: unknown, path: PathPart[]): unknown => {
    if (!isPlainObject(node)) return node;
    if (path.length > 0 && path[path.length - 1] === 'config' && configPathOf(path)?.length === 0) return withoutNullFields(node);
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (child === null && key === 'config' && configPathOf([...path, key])?.length === 0) continue;
      setOwn(out, key, walk(child, [...path, key]));
    }
    return out;
  };
  // A value without a null (the common case) is validated as it is: there is nothing to remove.
  return hasNull(value) ? walk(value, at) : value;
}

