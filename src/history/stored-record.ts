/**
 * What voxform writes to the ledger, voxform reads back: every record and test run is stored as the
 * text made here, checked against the limits its readers apply (the file store's, which a
 * `voxform state migrate` to files needs too) and against the shape they check (check-record.ts).
 * One past them, or with a field they would not take, is refused before anything is written, rather
 * than stored and then skipped as damaged by `history`, `rollback` and `report`.
 */
import { VoxformError } from '../errors.js';
import { keptJsonRefusal, type KeptJsonLimits } from '../project-files/kept-files.js';
import { MAX_HISTORY_RECORD_BYTES, MAX_HISTORY_RECORD_JSON_VALUES, MAX_KEPT_JSON_DEPTH } from '../project-files/limits.js';
import { plural } from '../util/plural.js';

/** What one stored record may be, read or written (docs/history.md#where-records-are-kept). */
export const HISTORY_RECORD_LIMITS: KeptJsonLimits = { maxBytes: MAX_HISTORY_RECORD_BYTES, maxValues: MAX_HISTORY_RECORD_JSON_VALUES, maxDepth: MAX_KEPT_JSON_DEPTH };

/** What a reader of a kind of record finds wrong with one, as `field: problem` (check-record.ts). */
type RecordProblemOf = (value: unknown) => string | undefined;

/**
 * The JSON text a record is stored as: `history_record_too_large` when its readers would refuse
 * it for its size, `history_record_invalid` when `problemOf` (the check its readers apply to this
 * kind: `historyRecordProblem` or `testRunProblem`) would skip it.
 */
export function storedRecordText(record: { agents: object }, problemOf: RecordProblemOf, limits: KeptJsonLimits = HISTORY_RECORD_LIMITS): string {
  const text = `${JSON.stringify(record, null, 2)}\n`;
  const problem = keptJsonRefusal(Buffer.from(text), limits);
  if (problem !== undefined) {
    const agents = plural(Object.keys(record.agents).length, 'agent');
    throw new VoxformError(
      'history_record_too_large',
      `its record (${agents}) ${problem} for a history record, so \`voxform history\`, \`rollback\` and \`report\` could not read it back; it was not written. Keep fewer agents, or smaller configurations, in one workspace (give some an environment of their own, --env)`,
      { hint: 'See docs/history.md#where-records-are-kept for the limits of a record.' },
    );
  }
  // Checked as read back, so what passes is what the readers will see.
  const wrong = problemOf(JSON.parse(text));
  if (wrong !== undefined) throw recordInvalid(wrong);
  return text;
}

/** When a record to append was made: its id is drawn from it, so a value that is no time is refused first. */
export function appendedAt(record: { at: string }): Date {
  const at = new Date(record.at);
  if (Number.isNaN(at.getTime())) throw recordInvalid('at: not a time (ISO 8601, UTC)');
  return at;
}

function recordInvalid(problem: string): VoxformError {
  return new VoxformError('history_record_invalid', `its record would be skipped as damaged by \`voxform history\`, \`rollback\` and \`report\` (${problem}); it was not written`, {
    hint: 'Correct the field the message names: the shape of a record is schemas/history.schema.json (docs/history.md#what-a-record-holds).',
  });
}
