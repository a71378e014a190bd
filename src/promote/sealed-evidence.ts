/**
 * Promotion's evidence is the records voxform sealed under this run's API key (src/history/seal.ts):
 * every field of a record can be written by anyone who can edit the ledger — a pull request, with the
 * file state committed to git — so a record without a seal that verifies is passed over, whatever it
 * says: never the source's newest record, never a soak's start, a deploy boundary or a test run.
 */
import { VoxformError } from '../errors.js';
import { NOT_SEALED_BY, sealVerifies, type LedgerSealKey } from '../history/seal.js';
import type { RecordSummary, TestRunRecord } from '../history/types.js';
import { ledgerOrder } from '../history/ledger-order.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import { plural } from '../util/plural.js';

/** A record or test run passed over: not sealed under this API key. */
export interface PassedOver {
  kind: 'record' | 'test run';
  id: string;
}

export interface SealedEvidence {
  /** The source's records whose seal verifies (summaries read with the seal key), newest first. */
  records: RecordSummary[];
  /** The source's test runs whose seal verifies, newest first. */
  testRuns: TestRunRecord[];
  /**
   * The records and test runs passed over that are newer than the source's oldest sealed record,
   * newest first: older ones can never be evidence, and a ledger holds them after every upgrade to a
   * voxform that seals records. All of them when no record is sealed.
   */
  passedOver: PassedOver[];
  /** The test runs passed over, newest first: the tests gate says when the last run of the configuration is one. */
  unsealedTestRuns: TestRunRecord[];
  /** The source's records not sealed under this API key, newest first: a rollback may have restored one. */
  unsealedRecords: RecordSummary[];
  /** The records not sealed that are newer than the newest sealed one, newest first: what the source runs since is not known. */
  unsealedSinceNewest: RecordSummary[];
  /** The newest sealed record or test run that names as its `previous` one the ledger no longer holds, between others it holds. */
  removedBefore: RemovedBefore | undefined;
}

/** A sealed record or test run (`kind`, `id`) whose workspace's entry before it, `previous`, was removed from the ledger. */
export interface RemovedBefore extends PassedOver {
  previous: string;
}

/** The sealed records and test runs of the source; `records` must have been summarized with `key` (`HistoryQuery.sealKey`). */
export function sealedEvidence(records: readonly RecordSummary[], testRuns: readonly TestRunRecord[], key: LedgerSealKey): SealedEvidence {
  const keptRecords = records.filter((record) => record.sealed === true);
  const unsealedRecords = records.filter((record) => record.sealed !== true);
  const keptRuns: TestRunRecord[] = [];
  const unsealedTestRuns: TestRunRecord[] = [];
  for (const run of testRuns) (sealVerifies(key, run) ? keptRuns : unsealedTestRuns).push(run);
  const oldestSealed = keptRecords.at(-1)?.id ?? '';
  const newestSealed = keptRecords[0]?.id;
  const passedOver = [...unsealedRecords.map((record): PassedOver => ({ kind: 'record', id: record.id })), ...unsealedTestRuns.map((run): PassedOver => ({ kind: 'test run', id: run.id }))]
    .filter((entry) => entry.id > oldestSealed)
    .sort((a, b) => ledgerOrder(b, a));
  const unsealedSinceNewest = newestSealed === undefined ? [] : unsealedRecords.filter((record) => record.id > newestSealed);
  const removedBefore = removedFrom('record', records, keptRecords) ?? removedFrom('test run', testRuns, keptRuns);
  return { records: keptRecords, testRuns: keptRuns, passedOver, unsealedRecords, unsealedTestRuns, unsealedSinceNewest, removedBefore };
}

/**
 * The newest of `sealed` whose `previous` is missing from `all` (the workspace's records or test runs,
 * newest first) while an older one is still there. A ledger cut at its old end (records pruned) is
 * whole from what it holds; one with a record taken from the middle would join the runs on either
 * side of it: a soak counted from before a deploy since, a failing run hidden behind a passing one.
 */
function removedFrom(kind: PassedOver['kind'], all: readonly { id: string }[], sealed: readonly { id: string; previous?: string | null | undefined }[]): RemovedBefore | undefined {
  const held = new Set(all.map((entry) => entry.id));
  const oldest = all.at(-1)?.id ?? '';
  const cut = sealed.find((entry) => typeof entry.previous === 'string' && !held.has(entry.previous) && entry.previous > oldest);
  return cut === undefined ? undefined : { kind, id: cut.id, previous: cut.previous as string };
}

/** The source's ledger has lost a record or test run from between others: the runs on either side of it would read as one. */
export function removedFromLedger(source: string, workspace: string, removed: RemovedBefore): VoxformError {
  return new VoxformError(
    'promote_source_unknown',
    `The history of ${controlsAsQuestionMarks(workspace)} no longer holds ${removed.kind} ${removed.previous}, which its sealed ${removed.kind} ${removed.id} follows, while it holds older ones: a ${removed.kind} was removed from the ledger, so what ${source} ran then is not known.`,
    {
      hint: `Put the removed ${removed.kind} back (${removed.previous}.json in the history folder beside the state file${removed.kind === 'test run' ? ', under test-runs' : ''}, or its row of the table ${removed.kind === 'test run' ? 'voxform_test_runs' : 'voxform_history'}: \`git log --diff-filter=D\` shows who removed it), then promote. Promotion never reads a ledger with a gap (docs/promotion.md#sealed-evidence).`,
    },
  );
}

/** The one warning of a command that passed records over: how many of each kind, and the newest. */
export function passedOverWarning(workspace: string, passedOver: readonly PassedOver[]): string | undefined {
  const newest = passedOver[0];
  if (newest === undefined) return undefined;
  const runs = passedOver.filter((entry) => entry.kind === 'test run').length;
  const records = passedOver.length - runs;
  const counts = [records > 0 ? plural(records, 'record') : '', runs > 0 ? plural(runs, 'test run') : ''].filter(Boolean).join(' and ');
  const verb = passedOver.length === 1 ? 'is' : 'are';
  return `warning: ${counts} of ${controlsAsQuestionMarks(workspace)}'s history (the newest: ${controlsAsQuestionMarks(`${newest.kind} ${newest.id}`)}) ${verb} not sealed by voxform under this API key: not evidence for promotion (docs/promotion.md).\n`;
}

/** What makes a sealed record of what the source runs, and evidence of it again. */
function sealAgain(source: string, applySource: string): string {
  return `Apply ${source} with this voxform and this API key (\`${applySource}\`): an apply with nothing to do is enough to record a sealed record of what it runs; then run its tests against it again and let the soak run, then promote (docs/promotion.md#sealed-evidence).`;
}

/** The source has records, none of them sealed under this API key: nothing it runs is known. */
export function noSealedRecord(source: string, workspace: string, passedOver: number, applySource: string): VoxformError {
  return new VoxformError(
    'promote_source_unknown',
    `${source} has no apply sealed by voxform under this API key in the history of ${controlsAsQuestionMarks(workspace)}: its ${plural(passedOver, 'record')} there ${passedOver === 1 ? 'is' : 'are'} not evidence for promotion (${NOT_SEALED_BY}).`,
    { hint: sealAgain(source, applySource) },
  );
}

/**
 * The source's history holds a record newer than its newest sealed one that is not sealed under this
 * API key (`unsealed`, the newest such): it may have deployed another configuration since, so what
 * the source runs is not known. Never passed over: its sealed records would stand for a configuration
 * it may no longer run.
 */
export function unsealedSinceSealed(source: string, workspace: string, unsealed: RecordSummary, newestSealed: RecordSummary, applySource: string): VoxformError {
  const named = `record ${unsealed.id} (by ${unsealed.by}: \`${unsealed.command}\`)`;
  // One dated past the clock never gets here: reading the ledger refused it (src/cli/history-records.ts).
  return new VoxformError(
    'promote_source_unknown',
    `The history of ${controlsAsQuestionMarks(workspace)} holds ${controlsAsQuestionMarks(named)}, newer than its newest sealed record (${newestSealed.id}) and not sealed by voxform under this API key (${NOT_SEALED_BY}): what ${source} runs is not known.`,
    { hint: sealAgain(source, applySource) },
  );
}
