/**
 * Turns schema issues into the service's 422 body: FastAPI/pydantic style, `{detail: [{type, loc,
 * msg}]}`, `loc` starting with where the value came from (`body`, `query`, `header`, `path`).
 */
import type { SchemaIssue } from '../schema/issues.js';
import { validateAgainst } from '../schema/validate.js';
import { loadSchemas } from '../schema/load.js';
import { isPlainObject } from '../util/json-object.js';
import { formatDotted, valueAtPath } from '../util/field-path.js';

export interface ValidationDetail {
  type: string;
  loc: Array<string | number>;
  msg: string;
}

type Source = 'body' | 'query' | 'header' | 'path';

/** A 422 to answer: thrown by handlers for checks the schemas cannot express (an unknown referenced id). */
export class ValidationFailure extends Error {
  constructor(readonly detail: ValidationDetail[]) {
    super(detail.map((d) => `${formatDotted(d.loc)}: ${d.msg}`).join('; '));
  }
}

/** A value error at one place of the body, worded like pydantic's custom validators. */
export function bodyValueError(path: Array<string | number>, message: string): ValidationFailure {
  return new ValidationFailure([{ type: 'value_error', loc: ['body', ...path], msg: `Value error, ${message}` }]);
}

const TYPE_ERRORS: Record<string, { type: string; msg: string }> = {
  string: { type: 'string_type', msg: 'Input should be a valid string' },
  number: { type: 'float_type', msg: 'Input should be a valid number' },
  integer: { type: 'int_type', msg: 'Input should be a valid integer' },
  boolean: { type: 'bool_type', msg: 'Input should be a valid boolean' },
  object: { type: 'dict_type', msg: 'Input should be a valid dictionary' },
  array: { type: 'list_type', msg: 'Input should be a valid list' },
  null: { type: 'none_required', msg: 'Input should be None' },
};

const quote = (value: unknown): string => (typeof value === 'string' ? `'${value}'` : JSON.stringify(value));

function describe(issue: SchemaIssue, value: unknown, source: Source): Omit<ValidationDetail, 'loc'> {
  const params = issue.params;
  switch (issue.keyword) {
    case 'missing_property':
      return { type: 'missing', msg: 'Field required' };
    case 'unknown_property':
      return { type: 'extra_forbidden', msg: 'Extra inputs are not permitted' };
    case 'type': {
      const expected = String(params.type ?? '').split(',').find((t) => t !== 'null') ?? 'string';
      // Query values arrive as text: a value that could not be read as a number is a parsing error.
      if (source !== 'body' && typeof value === 'string' && (expected === 'integer' || expected === 'number')) {
        return expected === 'integer'
          ? { type: 'int_parsing', msg: 'Input should be a valid integer, unable to parse string as an integer' }
          : { type: 'float_parsing', msg: 'Input should be a valid number, unable to parse string as a number' };
      }
      if (expected === 'integer' && typeof value === 'number') return { type: 'int_from_float', msg: 'Input should be a valid integer, got a number with a fractional part' };
      return TYPE_ERRORS[expected] ?? { type: `${expected}_type`, msg: `Input should be a valid ${expected}` };
    }
    case 'enum': {
      const allowed = (params.allowedValues as unknown[]) ?? [];
      const text = allowed.length <= 2 ? allowed.map(quote).join(' or ') : `${allowed.slice(0, -1).map(quote).join(', ')} or ${quote(allowed[allowed.length - 1])}`;
      return { type: 'enum', msg: `Input should be ${text}` };
    }
    case 'const':
      return { type: 'literal_error', msg: `Input should be ${quote(params.allowedValue)}` };
    case 'maxLength':
      return { type: 'string_too_long', msg: `String should have at most ${String(params.limit)} character${params.limit === 1 ? '' : 's'}` };
    case 'minLength':
      return { type: 'string_too_short', msg: `String should have at least ${String(params.limit)} character${params.limit === 1 ? '' : 's'}` };
    case 'minimum':
      return { type: 'greater_than_equal', msg: `Input should be greater than or equal to ${String(params.limit)}` };
    case 'maximum':
      return { type: 'less_than_equal', msg: `Input should be less than or equal to ${String(params.limit)}` };
    case 'exclusiveMinimum':
      return { type: 'greater_than', msg: `Input should be greater than ${String(params.limit)}` };
    case 'exclusiveMaximum':
      return { type: 'less_than', msg: `Input should be less than ${String(params.limit)}` };
    case 'pattern':
      return { type: 'string_pattern_mismatch', msg: `String should match pattern '${String(params.pattern)}'` };
    case 'maxItems':
      return { type: 'too_long', msg: `List should have at most ${String(params.limit)} items` };
    case 'minItems':
      return { type: 'too_short', msg: `List should have at least ${String(params.limit)} items` };
    case 'anyOf': {
      const expected = ((params.expected as string[]) ?? []).map((e) => e.replace(/^an object with .*/, 'object'));
      return { type: 'union_type', msg: `Input should be a valid ${[...new Set(expected)].join(' or ')}` };
    }
    default:
      return { type: 'value_error', msg: `Value error, ${issue.message}` };
  }
}

/** The 422 detail for the issues of one value that came from `source`. */
function issuesToDetail(issues: readonly SchemaIssue[], source: Source, value: unknown): ValidationDetail[] {
  const details: ValidationDetail[] = [];
  for (const issue of issues) {
    const at = valueAtPath(value, issue.path);
    // A union such as WebhookTarget (a URL or {url, headers}): when the value is an object, the
    // object branch is what was meant, and its one missing property is the precise complaint.
    if (issue.keyword === 'anyOf' && isPlainObject(at)) {
      const wanted = ((issue.params.expected as string[]) ?? []).map((e) => /^an object with (\S+)$/.exec(e)?.[1]).find(Boolean);
      if (wanted) {
        details.push({ type: 'missing', loc: [source, ...issue.path, wanted], msg: 'Field required' });
        continue;
      }
    }
    const described = describe(issue, at, source);
    details.push({ type: described.type, loc: [source, ...issue.path], msg: described.msg });
  }
  return details;
}

/** Validates a request body against a service definition; the 422 detail, empty when valid. */
export function checkBody(defName: string, body: unknown): ValidationDetail[] {
  return issuesToDetail(validateAgainst(defName, body), 'body', body);
}

type PropertyTypes = Map<string, string[]>;

/** The JSON types of each property of a query definition. */
function typesOf(defName: string): PropertyTypes {
  const types: PropertyTypes = new Map();
  const defs = loadSchemas().service.$defs as Record<string, { properties?: Record<string, { type?: string | string[] }> }>;
  for (const [name, schema] of Object.entries(defs[defName]?.properties ?? {})) {
    types.set(name, schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type]);
  }
  return types;
}

/** Reads a query into the typed object its definition describes (the last of repeats kept), and validates it. */
export function readQuery(defName: string, params: URLSearchParams): { value: Record<string, unknown>; detail: ValidationDetail[] } {
  const types = typesOf(defName);
  const value: Record<string, unknown> = {};
  for (const [name, raw] of params) {
    const expected = types.get(name) ?? [];
    if ((expected.includes('number') || expected.includes('integer')) && raw.trim() !== '' && Number.isFinite(Number(raw))) value[name] = Number(raw);
    else if (expected.includes('boolean') && (raw === 'true' || raw === 'false')) value[name] = raw === 'true';
    else value[name] = raw;
  }
  return { value, detail: issuesToDetail(validateAgainst(defName, value), 'query', value) };
}
