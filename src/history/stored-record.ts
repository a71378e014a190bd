/**
 * What voxform writes to the ledger, voxform reads back: every record and test run is stored as the
 * text made here, checked against the limits its readers apply (the file store's, which a
 * `voxform state migrate` to files needs too). One past them is refused before anything is written,
 * rather than stored and then skipped as damaged by `history`, `rollback` and `report`.
 */
import { VoxformError } from '../errors.js';
import { keptJsonRefusal, type KeptJsonLimits } from '../project-files/kept-files.js';
import { MAX_HISTORY_RECORD_BYTES, MAX_HISTORY_RECORD_JSON_VALUES, MAX_KEPT_JSON_DEPTH } from '../project-files/limits.js';
import { plural } from '../util/plural.js';

/** What one stored record may be, read or written (docs/history.md#where-records-are-kept). */
export const HISTORY_RECORD_LIMITS: KeptJsonLimits = { maxBytes: MAX_HISTORY_RECORD_BYTES, maxValues: MAX_HISTORY_RECORD_JSON_VALUES, maxDepth: MAX_KEPT_JSON_DEPTH };

/** The JSON text a record is stored as; `history_record_too_large` when its readers would refuse it. */
export function storedRecordText(record: { agents: object }, limits: KeptJsonLimits = HISTORY_RECORD_LIMITS): string {
  const text = `${JSON.stringify(record, null, 2)}\n`;
  const problem = keptJsonRefusal(Buffer.from(text), limits);
  if (problem === undefined) return text;
  const agents = plural(Object.keys(record.agents).length, 'agent');
  throw new VoxformError(
    'history_record_too_large',
    `its record (${agents}) ${problem} for a history record, so \`voxform history\`, \`rollback\` and \`report\` could not read it back; it was not written. Keep fewer agents, or smaller configurations, in one workspace (give some an environment of their own, --env)`,
    { hint: 'See docs/history.md#where-records-are-kept for the limits of a record.' },
  );
}
