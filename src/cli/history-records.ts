/** A workspace's deploy ledger: a damaged record neither stops the command nor goes unnoticed (a warning). */
import path from 'node:path';
import { VoxformError } from '../errors.js';
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

/** The summaries of `workspace`'s records, newest first, each read as the walk reaches it; the damaged ones skipped, each with a warning. */
export function workspaceSummaries(store: HistoryStore, workspace: string, ctx: CommandContext, sealKey?: LedgerSealKey): AsyncIterable<RecordSummary> {
  return store.summaries({ workspace, onSkipped: (skipped) => warnSkipped(skipped, ctx), sealKey });
}

/** The summaries of every record of `workspace`, newest first (see `workspaceSummaries`); with `sealKey`, each says whether its seal verifies. */
export async function allSummaries(store: HistoryStore, workspace: string, ctx: CommandContext, sealKey?: LedgerSealKey): Promise<RecordSummary[]> {
  const summaries: RecordSummary[] = [];
  for await (const summary of workspaceSummaries(store, workspace, ctx, sealKey)) summaries.push(summary);
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
