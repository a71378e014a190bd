import { prepareFieldViews } from '../plan/field-lines.js';
import { renderPlanJson } from '../plan/render-json.js';
import { renderPlanMarkdown } from '../plan/render-markdown.js';
import { prepareChangeText, renderPlanText } from '../plan/render-text.js';
import type { Plan, ResourceChange } from '../plan/types.js';

export type PlanFormat = 'text' | 'json' | 'markdown';

/**
 * The plan as `voxform plan` prints it; `voxform plan show` prints a saved plan through this too,
 * so the two cannot differ. `savedPlan` is the plan file as the user named it (the Markdown
 * comment, when cut to its size limit, says to look at it with `plan show`).
 */
export function renderPlanAs(plan: Plan, format: PlanFormat, options: { color: boolean; savedPlan: string | undefined }): string {
  if (format === 'json') return renderPlanJson(plan);
  if (format === 'markdown') return renderPlanMarkdown(plan, { savedPlan: options.savedPlan });
  return renderPlanText(plan, { color: options.color });
}

/**
 * Makes what `renderPlanAs` will print of one change now (its text block, or its field views for
 * Markdown; JSON needs nothing made ahead): called as each agent is compared, while the other reads
 * are on the wire.
 */
export function prepareChangeOutput(change: ResourceChange, format: PlanFormat, options: { color: boolean }): void {
  if (format === 'text') prepareChangeText(change, options);
  else if (format === 'markdown') prepareFieldViews(change);
}
