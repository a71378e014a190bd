/** A workspace's deploy ledger: a damaged record neither stops the command nor goes unnoticed (a warning). */
import path from 'node:path';
import type { HistoryRecord, HistoryStore, SkippedRecord, TestRunRecord } from '../history/types.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import type { CommandContext } from './context.js';

function warnSkipped(skipped: SkippedRecord, ctx: CommandContext): void {
  const where = path.isAbsolute(skipped.where) ? path.relative(ctx.cwd, skipped.where) || skipped.where : skipped.where;
  ctx.stderr.write(`warning: ${controlsAsQuestionMarks(where)} is skipped: it is not a voxform history record (${controlsAsQuestionMarks(skipped.problem)}).\n`);
}

/** Every record of `workspace`, newest first; the damaged ones skipped, each with a warning. */
export function workspaceHistory(store: HistoryStore, workspace: string, ctx: CommandContext): Promise<HistoryRecord[]> {
  return store.list({ workspace, onSkipped: (skipped) => warnSkipped(skipped, ctx) });
}

/** Every test run recorded for `workspace` (src/promote/evidence.ts), newest first; the damaged ones skipped, each with a warning. */
export function workspaceTestRuns(store: HistoryStore, workspace: string, ctx: CommandContext): Promise<TestRunRecord[]> {
  return store.listTestRuns({ workspace, onSkipped: (skipped) => warnSkipped(skipped, ctx) });
}
