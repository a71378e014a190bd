/**
 * What the generated validators (src/schema/validators/) find, as issues with the instance path as a
 * list; shared by the validators of each schema file (validate.ts, validate-manifest.ts, validate-tests.ts).
 */
import type { ErrorObject } from 'ajv';
import type { PathSegment } from '../util/field-path.js';

/** An Ajv validate function, as generated ahead of time into src/schema/validators/. */
interface ValidateFunction {
  (value: unknown): boolean;
  errors?: ErrorObject[] | null;
}

/** One problem found by a schema, with the instance path as a list (FastAPI's `loc` style). */
export interface SchemaIssue {
  /** Path to the offending value; for an unknown or missing property it ends with that property's name. */
  path: PathSegment[];
  /** `unknown_property`, `missing_property`, `type`, `enum`, `const`, `pattern`, `maxLength`, … (Ajv's keyword otherwise). */
  keyword: string;
  /** A short sentence without the path, e.g. "must be string". */
  message: string;
  /** Ajv's params for the keyword (expected type, allowed values, limit, …). */
  params: Record<string, unknown>;
  /** The key at fault, when the issue is with a key of the map at `path` (`propertyNames`) rather than a value. */
  propertyName?: string;
}

/** The issues of `value` against the validator a generated module exports as `name`. */
export function issuesAgainst(validators: object, name: string, what: string, value: unknown): SchemaIssue[] {
  const fn = (validators as Record<string, ValidateFunction | undefined>)[name];
  if (!fn) throw new Error(`unknown ${what}: ${name} (run \`npm run gen\` after editing schemas/)`);
  if (fn(value)) return [];
  return normalizeErrors(fn.errors ?? []);
}

/** A JSON pointer (`/config/tools/0`) as a path: `~1` and `~0` decoded, array indexes as numbers. */
export function pointerToPath(pointer: string): PathSegment[] {
  if (pointer === '') return [];
  return pointer
    .slice(1)
    .split('/')
    .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
    .map((part) => (/^(0|[1-9][0-9]*)$/.test(part) ? Number(part) : part));
}

/**
 * Turns Ajv's errors into issues: unknown/missing properties point at the property itself, and the
 * noise of `anyOf` branches is dropped when a more specific error explains the same place.
 */
function normalizeErrors(errors: readonly ErrorObject[]): SchemaIssue[] {
  const issues: SchemaIssue[] = [];
  const seen = new Set<string>();
  for (const error of pruneAnyOfBranches(errors)) {
    const path = pointerToPath(error.instancePath);
    let keyword = error.keyword;
    let message = error.message ?? 'is invalid';
    const params = error.params as Record<string, unknown>;
    if (keyword === 'unevaluatedProperties' || keyword === 'additionalProperties') {
      const name = (params.unevaluatedProperty ?? params.additionalProperty) as string;
      path.push(name);
      keyword = 'unknown_property';
      message = 'is not a known field';
    } else if (keyword === 'required') {
      path.push(params.missingProperty as string);
      keyword = 'missing_property';
      message = 'is required';
    } else if (keyword === 'propertyNames') {
      continue; // the nested error before it names the key itself (its propertyName)
    }
    const dedupeKey = `${JSON.stringify(path)}|${error.propertyName ?? ''}|${keyword}|${message}`;
    if (seen.has(dedupeKey)) continue;
    seen.add(dedupeKey);
    issues.push(error.propertyName === undefined ? { path, keyword, message, params } : { path, keyword, message, params, propertyName: error.propertyName });
  }
  return issues;
}

/**
 * Of an `anyOf`'s branch errors, keeps the branch that got furthest into the value (the one most
 * likely meant); when every branch failed at the value itself, they fold into "must be A or B".
 */
function pruneAnyOfBranches(errors: readonly ErrorObject[]): ErrorObject[] {
  const dropped = new Set<ErrorObject>();
  const replaced = new Map<ErrorObject, ErrorObject>();
  errors.forEach((anyOf, index) => {
    if (anyOf.keyword !== 'anyOf') return;
    // Ajv reports a branch's errors just before the anyOf itself; a branch reached through a $ref
    // carries the target's schema path, so the window is found by instance path instead.
    const window: ErrorObject[] = [];
    for (let i = index - 1; i >= 0; i--) {
      const error = errors[i] as ErrorObject;
      if (!error.instancePath.startsWith(anyOf.instancePath) || error.keyword === 'anyOf') break;
      window.push(error);
    }
    const atValue = window.filter((e) => e.instancePath === anyOf.instancePath);
    const deeper = window.filter((e) => e.instancePath !== anyOf.instancePath);
    if (deeper.length > 0) {
      // One branch got into the value: its errors explain the problem, the others are noise.
      atValue.forEach((e) => dropped.add(e));
      dropped.add(anyOf);
      return;
    }
    // A branch whose type the value has failed on something else (a string one of `minLength: 1`
    // given ""): that is the problem, and the other branches' types are noise.
    const ofItsType = atValue.filter((e) => !WRONG_SHAPE_KEYWORDS.has(e.keyword));
    if (ofItsType.length > 0) {
      atValue.filter((e) => !ofItsType.includes(e)).forEach((e) => dropped.add(e));
      dropped.add(anyOf);
      return;
    }
    // Every branch failed at the value itself: one sentence naming what would have been accepted.
    const expected = atValue.map(describeExpectation).filter((text, i, all) => all.indexOf(text) === i).reverse();
    atValue.forEach((e) => dropped.add(e));
    replaced.set(anyOf, { ...anyOf, message: `must be ${expected.join(' or ')}`, params: { expected } });
  });
  return errors.filter((e) => !dropped.has(e)).map((e) => replaced.get(e) ?? e);
}

/** The keywords a branch fails on when the value is not of its shape at all: the "must be A or B" of an anyOf. */
const WRONG_SHAPE_KEYWORDS: ReadonlySet<string> = new Set(['type', 'const', 'enum', 'required']);

function describeExpectation(error: ErrorObject): string {
  if (error.keyword === 'type') return String((error.params as { type: string }).type);
  if (error.keyword === 'const') return JSON.stringify((error.params as { allowedValue: unknown }).allowedValue);
  if (error.keyword === 'required') return `an object with ${(error.params as { missingProperty: string }).missingProperty}`;
  return (error.message ?? 'valid').replace(/^must (be |have |match )?/, '');
}
