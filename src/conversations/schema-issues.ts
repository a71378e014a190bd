/**
 * Schema issues of a test file → diagnostics at the offending key or value, with "did you mean"
 * for misspelt fields (the manifest's own reporter is tied to the manifest format; this one reads
 * schemas/tests.schema.json for the field names).
 */
import { readFileSync } from 'node:fs';
import { schemasDir, type JsonSchema } from '../schema/load.js';
import type { SchemaIssue } from '../schema/issues.js';
import { describeExpected, describeFound } from '../util/describe-value.js';
import { formatIndexed, valueAtPath } from '../util/field-path.js';
import type { DiagnosticList } from '../manifest/diagnostics.js';
import { spanAt } from '../manifest/positions.js';
import type { Span } from '../manifest/source.js';
import { didYouMean } from '../util/did-you-mean.js';
import { formatCount } from '../util/plural.js';

let schema: JsonSchema | undefined;
function testsSchema(): JsonSchema {
  schema ??= JSON.parse(readFileSync(`${schemasDir}tests.schema.json`, 'utf8')) as JsonSchema;
  return schema;
}

function resolve(node: JsonSchema | undefined): JsonSchema | undefined {
  const ref = node?.$ref;
  if (typeof ref !== 'string') return node;
  const defs = testsSchema().$defs as Record<string, JsonSchema>;
  return defs[ref.slice(ref.lastIndexOf('/') + 1)];
}

/** The field names the schema allows at a path of a test file. */
export function knownFields(path: ReadonlyArray<string | number>): string[] {
  let node = resolve(testsSchema());
  for (const part of path) {
    if (!node) return [];
    if (typeof part === 'number') node = resolve(node.items as JsonSchema | undefined);
    else node = resolve(((node.properties as Record<string, JsonSchema> | undefined) ?? {})[part]);
  }
  return Object.keys((node?.properties as Record<string, unknown> | undefined) ?? {});
}

/** "tests[2].turns[0]", or "the test file" at the root. */
export function describeTestPlace(path: ReadonlyArray<string | number>): string {
  return path.length === 0 ? 'the test file' : formatIndexed(path);
}

/** How to stay under a cap of the format (docs/testing.md, Budgets), by the field capped. */
const WITHIN_CAP: Record<string, string> = {
  repeat: 'lower it (the operator may run more with --repeat N)',
  max_turns: 'lower it, or split the goal over several tests',
  turns: 'split the conversation into shorter tests',
  tests: 'split the file into several *.test.yaml files',
  expect: 'split the checks over several turns or tests',
};

/** Why a field must be above its least value, and how to give one, by the field (the schema's exclusiveMinimum). */
const ABOVE_LEAST: Record<string, string> = {
  pass_rate: 'no run would need to pass, so the test would pass whatever the agent says; give the share of runs that must pass, above 0 and at most 1 (0.5: half of them), or leave it out for every run',
};

/** How to give a field at least its least value, by the field (the schema's minimum). */
const AT_LEAST: Record<string, string> = {
  repeat: 'give how many times to run the test, 1 or more, or leave it out to run it once',
  max_turns: 'give how many caller turns the conversation may take, 1 or more, or leave it out for 10',
};

/** The field a path ends in, past any index: `repeat` of tests[2].repeat, `turns` of tests[0].turns[3]. */
const fieldOf = (path: ReadonlyArray<string | number>): string => [...path].reverse().find((part): part is string => typeof part === 'string') ?? '';

function overCap(path: ReadonlyArray<string | number>, found: string, limit: unknown): string {
  const fix = WITHIN_CAP[fieldOf(path)] ?? 'lower it';
  return `${describeTestPlace(path)} ${found}, over the cap of ${formatCount(Number(limit))}; ${fix}`;
}

export function reportTestSchemaIssue(issue: SchemaIssue, root: unknown, fallback: Span, diagnostics: DiagnosticList): void {
  const path = issue.path;
  const place = describeTestPlace(path);
  const span = spanAt(root, path) ?? fallback;
  const value = valueAtPath(root, path);
  switch (issue.keyword) {
    case 'unknown_property': {
      const key = String(path[path.length - 1]);
      const known = knownFields(path.slice(0, -1));
      const suggestion = didYouMean(key, known);
      const hint = suggestion ? `; did you mean "${suggestion}"?` : known.length > 0 ? ` (known fields: ${known.join(', ')})` : '';
      diagnostics.error('unknown_field', `unknown field "${key}" in ${describeTestPlace(path.slice(0, -1))}${hint}`, spanAt(root, path, 'key') ?? span);
      return;
    }
    case 'missing_property': {
      const parent = path.slice(0, -1);
      diagnostics.error('missing_field', `${describeTestPlace(parent)} needs "${String(path[path.length - 1])}"`, spanAt(root, parent, 'key') ?? fallback);
      return;
    }
    case 'type': {
      const expected = ([] as string[]).concat(issue.params.type as string | string[]);
      diagnostics.error('type_mismatch', `${place}: expected ${describeExpected(expected)}, found ${describeFound(value, 'value')}`, span);
      return;
    }
    case 'minProperties':
    case 'maxProperties': {
      const fields = knownFields(path);
      diagnostics.error('invalid_value', `${place} must have exactly one of ${fields.join(', ')}`, span);
      return;
    }
    case 'minLength':
      diagnostics.error('invalid_value', `${place} must not be empty`, span);
      return;
    case 'maxLength':
      diagnostics.error('invalid_value', `${place} is too long: at most ${Number(issue.params.limit)} characters`, span);
      return;
    case 'maximum':
      diagnostics.error('invalid_value', overCap(path, `is ${String(value)}`, issue.params.limit), span);
      return;
    case 'minimum': {
      const fix = AT_LEAST[fieldOf(path)] ?? `give ${String(issue.params.limit)} or more`;
      diagnostics.error('invalid_value', `${place} is ${String(value)}, under the least of ${String(issue.params.limit)}; ${fix}`, span);
      return;
    }
    case 'exclusiveMinimum': {
      const why = ABOVE_LEAST[fieldOf(path)] ?? `it must be above ${String(issue.params.limit)}`;
      diagnostics.error('invalid_value', `${place} is ${String(value)}: ${why}`, span);
      return;
    }
    case 'maxItems':
      diagnostics.error('invalid_value', overCap(path, `has ${Array.isArray(value) ? formatCount(value.length) : 'too many'} items`, issue.params.limit), span);
      return;
    default:
      diagnostics.error('invalid_value', `${place} ${issue.message}`, span);
  }
}
