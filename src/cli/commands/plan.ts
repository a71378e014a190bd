import path from 'node:path';
import { plan as makePlan } from '../../plan/plan.js';
import { savePlanFile } from '../../plan/plan-file.js';
import { renderPlanJson } from '../../plan/render-json.js';
import { renderPlanMarkdown } from '../../plan/render-markdown.js';
import { renderPlanText } from '../../plan/render-text.js';
import { fingerprintKey } from '../../util/hash.js';
import type { CommandContext } from '../context.js';
import { progressLine } from '../progress.js';
import { connectProject, displayFiles, type ProjectOptions } from '../project.js';

export interface PlanCommandOptions extends ProjectOptions {
  format?: 'text' | 'json' | 'markdown';
  out?: string;
  detailedExitcode?: boolean;
  target?: string[];
}

/** `voxform plan`: what apply would change, as text, JSON or a Markdown PR comment; optionally saved. */
export async function run(options: PlanCommandOptions, ctx: CommandContext): Promise<number> {
  const project = await connectProject(options, ctx);
  const key = fingerprintKey(project.connection.apiKey);
  const status = progressLine(ctx.stderr);
  const plan = await makePlan({
    desired: project.desired,
    client: project.connection.client,
    stateFile: project.stateFile,
    serviceId: project.serviceId,
    fingerprintKey: key,
    files: displayFiles(project.desired, ctx.cwd),
    targets: options.target ?? [],
    onReadProgress: (read, total) => status.update(`Reading live state… ${read}/${total} agents`),
  }).finally(() => status.done());
  const format = options.format ?? 'text';
  ctx.stdout.write(
    format === 'json' ? renderPlanJson(plan) : format === 'markdown' ? renderPlanMarkdown(plan) : renderPlanText(plan, { color: ctx.color }),
  );
  if (options.out) {
    const file = path.resolve(ctx.cwd, options.out);
    await savePlanFile(file, plan, project.desired, key);
    ctx.stderr.write(`Saved the plan to ${options.out}. Apply exactly this with: voxform apply ${options.out}\n`);
  }
  const hasChanges = plan.summary.create + plan.summary.update > 0;
  return options.detailedExitcode && hasChanges ? 2 : 0;
}
