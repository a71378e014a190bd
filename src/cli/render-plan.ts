import { planJsonPieces } from '../plan/render-json.js';
import { prepareMarkdownSection, renderPlanMarkdown, type CommentSecrets } from '../plan/render-markdown.js';
import { prepareChangeText, renderPlanText } from '../plan/render-text.js';
import type { LineDiffBudget } from '../plan/field-lines.js';
import type { Plan, ResourceChange } from '../plan/types.js';
import type { Diagnostic } from '../manifest/types.js';

export type PlanFormat = 'text' | 'json' | 'markdown';

/**
 * The plan as `plan` and `plan show` print it (`writeInChunks`), so the two cannot differ; `savedPlan`:
 * the file as named; `savePlanCommand`: without it, the command line that saves the plan
 * (`renderPlanMarkdown`'s); `diagnostics`: the manifests' warnings, which `plan`'s JSON carries (`plan show`
 * loads none); `secrets`: the run's (`ctx.secrets`), hidden before the comment is measured and cut.
 */
export function renderPlanAs(plan: Plan, format: PlanFormat, options: { color: boolean; savedPlan: string | undefined; savePlanCommand?: string | undefined; diagnostics?: Diagnostic[] | undefined; secrets: CommentSecrets; lineDiffs?: LineDiffBudget | undefined }): Iterable<string> {
  if (format === 'json') return planJsonPieces(plan, options.diagnostics);
  if (format === 'markdown') return [renderPlanMarkdown(plan, { savedPlan: options.savedPlan, savePlanCommand: options.savePlanCommand, secrets: options.secrets, lineDiffs: options.lineDiffs })];
  return [renderPlanText(plan, { color: options.color, lineDiffs: options.lineDiffs })];
}

/** Makes what `renderPlanAs` will print of one change now, while the other reads are on the wire, within the budget given to it again (`lineDiffs`). */
export function prepareChangeOutput(change: ResourceChange, format: PlanFormat, options: { color: boolean; secrets: CommentSecrets; lineDiffs: LineDiffBudget }): void {
  if (format === 'text') prepareChangeText(change, options);
  else if (format === 'markdown') prepareMarkdownSection(change, options.secrets, options.lineDiffs);
}
