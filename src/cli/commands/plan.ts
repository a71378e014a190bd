import path from 'node:path';
import { plan as makePlan } from '../../plan/plan.js';
import { savePlanFile } from '../../plan/plan-file.js';
import { renderPlanJson } from '../../plan/render-json.js';
import { renderPlanMarkdown } from '../../plan/render-markdown.js';
import { renderPlanText } from '../../plan/render-text.js';
import type { Plan } from '../../plan/types.js';
import type { CommandContext } from '../context.js';
import { progressLine } from '../progress.js';
import { connectProject, planInputs, type ProjectOptions } from '../project.js';

export type PlanFormat = 'text' | 'json' | 'markdown';

export interface PlanCommandOptions extends ProjectOptions {
  format?: PlanFormat;
  out?: string;
  detailedExitcode?: boolean;
  target?: string[];
}

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

/** `voxform plan`: what apply would change, as text, JSON or a Markdown PR comment; optionally saved. */
export async function run(options: PlanCommandOptions, ctx: CommandContext): Promise<number> {
  const project = await connectProject(options, ctx);
  const inputs = planInputs(project, ctx);
  const status = progressLine(ctx.stderr);
  const plan = await makePlan({
    ...inputs,
    targets: options.target ?? [],
    onReadProgress: (read, total) => status.update(`Reading live state… ${read}/${total} agents`),
  }).finally(() => status.done());
  ctx.stdout.write(renderPlanAs(plan, options.format ?? 'text', { color: ctx.color, savedPlan: options.out }));
  if (options.out) {
    const file = path.resolve(ctx.cwd, options.out);
    await savePlanFile(file, plan, project.desired, inputs.fingerprintKey);
    ctx.stderr.write(`Saved the plan to ${options.out}. Apply exactly this with: voxform apply ${options.out}\n`);
  }
  const hasChanges = plan.summary.create + plan.summary.update > 0;
  return options.detailedExitcode && hasChanges ? 2 : 0;
}
