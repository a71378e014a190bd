/** A workspace's deploy ledger: a damaged record neither stops the command nor goes unnoticed (a warning). */
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { FileHistoryStore } from '../history/file-store.js';
import { aheadOfClock, MOST_CLOCK_AHEAD_HOURS } from '../history/ledger-order.js';
import type { LedgerSealKey } from '../history/seal.js';
import type { HistoryRecord, HistoryStore, RecordSummary, SkippedRecord, TestRunRecord } from '../history/types.js';
import { MAX_DIAGNOSTICS_SHOWN } from '../project-files/limits.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import { formatCount, pluralNoun } from '../util/plural.js';
import type { CommandContext } from './context.js';

/**
 * The files of the ledger each run has skipped so far: a ledger full of junk names as many as a
 * manifest's diagnostics show, and counts the rest in one line. A file is told of once, however
 * many walks of the ledger a command makes (`report` reads two environments' histories).
 */
const skippedInRun = new WeakMap<CommandContext, Set<string>>();

function warnSkipped(skipped: SkippedRecord, ctx: CommandContext): void {
  const skippedSoFar = skippedInRun.get(ctx) ?? new Set<string>();
  skippedInRun.set(ctx, skippedSoFar);
  if (skippedSoFar.has(skipped.where)) return;
  skippedSoFar.add(skipped.where);
  // The rest are summed up once the run ends, when their number is known.
  if (skippedSoFar.size === MAX_DIAGNOSTICS_SHOWN + 1) ctx.onExit(() => warnSkippedUnnamed(skippedSoFar.size - MAX_DIAGNOSTICS_SHOWN, ctx));
  if (skippedSoFar.size > MAX_DIAGNOSTICS_SHOWN) return;
  const where = path.isAbsolute(skipped.where) ? path.relative(ctx.cwd, skipped.where) || skipped.where : skipped.where;
  ctx.stderr.write(`warning: ${controlsAsQuestionMarks(where)} is skipped: it is not a voxform history record (${controlsAsQuestionMarks(skipped.problem)}).\n`);
}

function warnSkippedUnnamed(count: number, ctx: CommandContext): void {
  ctx.stderr.write(`warning: …and ${formatCount(count)} more ${pluralNoun(count, 'file')} of the ledger ${pluralNoun(count, 'is', 'are')} skipped, not voxform history records (only the first ${MAX_DIAGNOSTICS_SHOWN} are named).\n`);
}

/** Where a record is kept, as a refusal names it: its file (from the working folder), or its row. */
function recordPlace(store: HistoryStore, id: string, ctx: CommandContext): string {
  if (!(store instanceof FileHistoryStore)) return `${id} (a row of the table voxform_history)`;
  const file = path.join(store.directory, `${id}.json`);
  return path.isAbsolute(file) ? path.relative(ctx.cwd, file) || file : file;
}

const AHEAD = `is dated more than ${MOST_CLOCK_AHEAD_HOURS} hours ahead of this machine's clock: it was planted or written on a broken clock, and every apply since is ordered before it`;
const REMOVE_AHEAD = 'No apply records anything after it, so applying again does not help: remove it from the ledger (`git log` of the history folder tells who added it), then run the command again (docs/history.md#the-order-of-the-ledger).';

/** A record dated past the clock stands where the ledger's newest, what runs now, should: nothing is decided on it. */
function recordAheadOfClock(place: string): VoxformError {
  return new VoxformError('history_record_ahead', `History record ${controlsAsQuestionMarks(place)} ${AHEAD}, so which configuration runs now is not known.`, { hint: REMOVE_AHEAD });
}

/** What a reader does on meeting a record dated past the clock (`aheadOfClock`): refuse, or (a listing) warn and go on. */
export type OnAheadOfClock = 'refuse' | 'warn';

/**
 * The summaries of `workspace`'s records, newest first, each read as the walk reaches it; the damaged
 * ones skipped, each with a warning. A record dated past the clock (ledger-order.ts `aheadOfClock`)
 * would read as the newest, the current configuration, until removed: every reader refuses it by
 * name, as appending never follows it; a listing (`history`) shows it with a warning instead.
 */
export async function* workspaceSummaries(store: HistoryStore, workspace: string, ctx: CommandContext, sealKey?: LedgerSealKey, onAhead: OnAheadOfClock = 'refuse'): AsyncIterable<RecordSummary> {
  const now = new Date();
  for await (const summary of store.summaries({ workspace, onSkipped: (skipped) => warnSkipped(skipped, ctx), sealKey })) {
    if (aheadOfClock(summary.id, now)) {
      const place = recordPlace(store, summary.id, ctx);
      if (onAhead === 'refuse') throw recordAheadOfClock(place);
      ctx.stderr.write(`warning: ${controlsAsQuestionMarks(place)} ${AHEAD}, so it is not known to be what runs now. ${REMOVE_AHEAD}\n`);
    }
    yield summary;
  }
}

/** The summaries of every record of `workspace`, newest first (see `workspaceSummaries`); with `sealKey`, each says whether its seal verifies. */
export async function allSummaries(store: HistoryStore, workspace: string, ctx: CommandContext, sealKey?: LedgerSealKey, onAhead: OnAheadOfClock = 'refuse'): Promise<RecordSummary[]> {
  const summaries: RecordSummary[] = [];
  for await (const summary of workspaceSummaries(store, workspace, ctx, sealKey, onAhead)) summaries.push(summary);
  return summaries;
}

/**
 * The record `summary` stands for, whole. It was read moments ago and records are never changed: one
 * gone or damaged since is an error, not a silent skip.
 */
export async function wholeRecord(store: HistoryStore, summary: RecordSummary, ctx: CommandContext): Promise<HistoryRecord> {
  const record = await store.read({ workspace: summary.workspace, onSkipped: (skipped) => warnSkipped(skipped, ctx) }, summary.id);
  if (record) return record;
  throw new VoxformError('state_unreadable', `History record ${summary.id} of ${summary.workspace} could not be read again: it was removed or changed while this command ran.`, {
    hint: 'Run the command again.',
  });
}

/** Every test run recorded for `workspace` (src/promote/evidence.ts), newest first; the damaged ones skipped, each with a warning. */
export function workspaceTestRuns(store: HistoryStore, workspace: string, ctx: CommandContext): Promise<TestRunRecord[]> {
  return store.listTestRuns({ workspace, onSkipped: (skipped) => warnSkipped(skipped, ctx) });
}
