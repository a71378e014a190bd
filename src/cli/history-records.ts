/**
 * A workspace's deploy ledger as `history`, `rollback` and `report` read it: every record, newest
 * first, each checked for shape (src/history/check-record.ts) whichever backend keeps it, and a
 * warning for each one skipped, so a damaged record neither stops the command nor goes unnoticed.
 */
import path from 'node:path';
import { historyRecordProblem } from '../history/check-record.js';
import type { HistoryRecord, HistoryStore, SkippedRecord } from '../history/types.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import type { CommandContext } from './context.js';

function warnSkipped(skipped: SkippedRecord, ctx: CommandContext): void {
  const where = path.isAbsolute(skipped.where) ? path.relative(ctx.cwd, skipped.where) || skipped.where : skipped.where;
  ctx.stderr.write(`warning: ${controlsAsQuestionMarks(where)} is skipped: it is not a voxform history record (${controlsAsQuestionMarks(skipped.problem)}).\n`);
}

/** Every record of `workspace`, newest first; the damaged ones skipped, each with a warning. */
export async function workspaceHistory(store: HistoryStore, workspace: string, ctx: CommandContext): Promise<HistoryRecord[]> {
  const onSkipped = (skipped: SkippedRecord) => warnSkipped(skipped, ctx);
  const records = await store.list({ workspace, onSkipped });
  // A backend that does not check what it holds (a database row is data too) is checked here.
  return records.filter((record) => {
    const problem = historyRecordProblem(record);
    if (problem !== undefined) onSkipped({ where: `history record ${String((record as { id?: unknown } | null)?.id)}`, problem });
    return problem === undefined;
  });
}
