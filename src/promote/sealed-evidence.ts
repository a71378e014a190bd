/**
 * Promotion's evidence is the records voxform sealed under this run's API key (src/history/seal.ts):
 * every field of a record can be written by anyone who can edit the ledger — a pull request, with the
 * file state committed to git — so a record without a seal that verifies is passed over, whatever it
 * says: never the source's newest record, never a soak's start, a deploy boundary or a test run.
 */
import { VoxformError } from '../errors.js';
import { sealVerifies, type LedgerSealKey } from '../history/seal.js';
import type { RecordSummary, TestRunRecord } from '../history/types.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import { plural } from '../util/plural.js';

export interface SealedEvidence {
  /** The source's records whose seal verifies (summaries read with the seal key), newest first. */
  records: RecordSummary[];
  /** The source's test runs whose seal verifies, newest first. */
  testRuns: TestRunRecord[];
  /** The records and test runs passed over, newest first, as sentences name them (`record ID`, `test run ID`). */
  passedOver: string[];
}

/** The sealed records and test runs of the source; `records` must have been summarized with `key` (`HistoryQuery.sealKey`). */
export function sealedEvidence(records: readonly RecordSummary[], testRuns: readonly TestRunRecord[], key: LedgerSealKey): SealedEvidence {
  const passedOver: string[] = [];
  const keptRecords = records.filter((record) => record.sealed === true || (passedOver.push(`record ${record.id}`), false));
  const keptRuns = testRuns.filter((run) => sealVerifies(key, run) || (passedOver.push(`test run ${run.id}`), false));
  return { records: keptRecords, testRuns: keptRuns, passedOver };
}

/** The one warning of a command that passed records over: how many of each kind, and the first. */
export function passedOverWarning(workspace: string, passedOver: readonly string[]): string | undefined {
  const first = passedOver[0];
  if (first === undefined) return undefined;
  const runs = passedOver.filter((what) => what.startsWith('test run ')).length;
  const records = passedOver.length - runs;
  const counts = [records > 0 ? plural(records, 'record') : '', runs > 0 ? plural(runs, 'test run') : ''].filter(Boolean).join(' and ');
  const verb = passedOver.length === 1 ? 'is' : 'are';
  return `warning: ${counts} of ${controlsAsQuestionMarks(workspace)}'s history (the first: ${controlsAsQuestionMarks(first)}) ${verb} not sealed by voxform under this API key: not evidence for promotion (docs/promotion.md).\n`;
}

/** The source has records, none of them sealed under this API key: nothing it runs is known. */
export function noSealedRecord(source: string, workspace: string, passedOver: number, applySource: string): VoxformError {
  return new VoxformError(
    'promote_source_unknown',
    `${source} has no apply sealed by voxform under this API key in the history of ${controlsAsQuestionMarks(workspace)}: its ${plural(passedOver, 'record')} there ${passedOver === 1 ? 'is' : 'are'} not evidence for promotion (made or changed by hand, by a voxform that did not seal records, or under another API key).`,
    { hint: `Apply ${source} with this API key (\`${applySource}\`), run its tests against it again and let the soak run, then promote (docs/promotion.md#sealed-evidence).` },
  );
}
