import path from 'node:path';
import { readPlanFile } from '../../plan/plan-file.js';
import { planFromJson } from '../../plan/saved-plan.js';
import type { CommandContext } from '../context.js';
import { renderPlanAs, type PlanFormat } from '../render-plan.js';
import { writeInChunks } from '../output-streams.js';

interface PlanShowCommandOptions {
  /** `PLAN`: a plan file saved by `voxform plan --out`. */
  args?: string[];
  format?: PlanFormat;
}

/**
 * `voxform plan show PLAN`: a saved plan through `voxform plan`'s renderers, with no service contacted; the
 * file holds no secret, and the renderers redact by its sensitive paths all the same.
 */
export async function run(options: PlanShowCommandOptions, ctx: CommandContext): Promise<number> {
  const file = options.args?.[0] ?? '';
  const saved = await readPlanFile(path.resolve(ctx.cwd, file));
  const plan = planFromJson(saved, file);
  await writeInChunks(ctx.stdout, renderPlanAs(plan, options.format ?? 'text', { color: ctx.color, savedPlan: file, secrets: ctx.secrets }));
  return 0;
}
