/**
 * The call records of a call-log answer checked against the service schema, in the client: every
 * reader of the call log (logs, report, webhook send --call, test capture, promotion evidence, …)
 * gets records of the documented shape, or one error naming the first record that is not, instead of
 * a crash wherever a reader meets the odd value (a `cost_breakdown` that is no list, a `ts` no date
 * can be printed for).
 */
import type { SchemaIssue } from '../schema/issues.js';
import { validateAgainst } from '../schema/validate.js';
import { describeExpected, foundInsteadOf, quote } from '../util/describe-value.js';
import { formatIndexed, valueAtPath, type PathSegment } from '../util/field-path.js';
import { isPlainObject } from '../util/json-object.js';
import { plural, someOf } from '../util/plural.js';

/** The schema definition of a record of each call-log operation. */
export type CallRecordDefinition = 'CallHistoryRecord' | 'GlobalCallHistoryRecord';

/** Issues of one record shown in the message; the rest are counted. */
const ISSUES_SHOWN = 3;

/**
 * What is wrong with the first record of `records` the schema refuses, as a phrase naming the
 * record (its place in the answer, `at`, and its call id) and each problem; undefined when every
 * record is of the documented shape. Of a record's strings only its call id is shown (shortened):
 * the others may hold anything.
 */
export function malformedCallRecord(records: readonly unknown[], definition: CallRecordDefinition, at: readonly PathSegment[]): string | undefined {
  let first: string | undefined;
  let others = 0;
  records.forEach((record, index) => {
    const issues = validateAgainst(definition, record);
    if (issues.length === 0) return;
    if (first === undefined) first = describeRecord(record, issues, [...at, index]);
    else others++;
  });
  if (first === undefined) return undefined;
  return others === 0 ? first : `${first} (and ${plural(others, 'more record')} of another shape)`;
}

function describeRecord(record: unknown, issues: readonly SchemaIssue[], at: readonly PathSegment[]): string {
  // A bare list's records are named by their index alone: `record [3]`.
  const place = typeof at[0] === 'number' ? `record ${formatIndexed(at)}` : formatIndexed(at);
  if (!isPlainObject(record)) return `${place} ${foundInsteadOf(record, 'a call record (an object)')}`;
  const callId = typeof record.call_id === 'string' ? ` (call_id ${quote(record.call_id)})` : '';
  const problems = issues.map((issue) => describeIssue(record, issue));
  return `${place}${callId}: ${someOf(problems, ISSUES_SHOWN, '; ')}`;
}

/** `cost_breakdown is a string, where a list belongs`; `ts must be at most 253402300799, found 1e+300`. */
function describeIssue(record: unknown, issue: SchemaIssue): string {
  const path = issue.path.length === 0 ? 'the record' : formatIndexed(issue.path);
  const value = valueAtPath(record, issue.path);
  switch (issue.keyword) {
    case 'type': {
      const types = issue.params.type;
      return `${path} ${foundInsteadOf(value, describeExpected(Array.isArray(types) ? types.map(String) : String(types).split(',')))}`;
    }
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
      return `${path} must be ${BOUND_WORDS[String(issue.params.comparison)] ?? String(issue.params.comparison)} ${Number(issue.params.limit)}, found ${String(value)}`;
    default:
      return `${path} ${issue.message}`;
  }
}

/** Ajv's comparisons of a number with its schema's limit, in words. */
const BOUND_WORDS: Record<string, string> = { '>=': 'at least', '<=': 'at most', '>': 'more than', '<': 'less than' };
