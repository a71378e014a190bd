import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { CommandContext } from '../context.js';
import type { Diagnostic } from '../../manifest/types.js';
import { progressLine, readProgress } from '../progress.js';
import { connectProject, deployedFiles, ownFilesOf, planInputs, type ProjectOptions } from '../project.js';
import { refuseOwnFile } from '../../project-files/own-files.js';
import { plan as makePlan } from '../../plan/plan.js';
import { savePlanFile } from '../../plan/plan-file.js';
import { SUGGESTED_PLAN_FILE } from '../../plan/render-markdown.js';
import { LineDiffBudget, planHasChanges } from '../../plan/field-lines.js';
import { planPolicy } from '../policy-check.js';
import { prepareChangeOutput, renderPlanAs, type PlanFormat } from '../render-plan.js';
import { writeInChunks } from '../output-streams.js';
import { shellWord } from '../../util/shell-word.js';
import { nextCommand, savedPlanCommands } from '../next-command.js';
import { withTakeOverCommands } from '../take-over.js';
import { warnPromotedEnvironment } from '../promotion-notice.js';
import { committedLockWarning } from '../../state/committed-lock.js';

export type { PlanFormat } from '../render-plan.js';

interface PlanCommandOptions extends ProjectOptions {
  format?: PlanFormat;
  out?: string;
  detailedExitcode?: boolean;
  target?: string[];
  /** The base revision to look for policy relaxations against (else VOXFORM_BASE_REF). */
  base?: string;
}

/** `voxform plan`: what apply would change, and the policy's findings, as text, JSON or a Markdown PR comment; optionally saved; exit 1 on a mandatory violation. */
export async function run(options: PlanCommandOptions, ctx: CommandContext): Promise<number> {
  const format = options.format ?? 'text';
  // In JSON the manifests' warnings are a field of the plan printed, not text on stderr (docs/plan.md).
  const warnings: Diagnostic[] | undefined = format === 'json' ? [] : undefined;
  const project = await connectProject(options, ctx, { warnings });
  // Refused before anything is planned.
  if (options.out) await refuseOwnFile(options.out, { ...ownFilesOf(options, ctx, deployedFiles(project.desired)), writes: 'plan' }, { code: 'plan_write_failed', cannot: `Cannot save the plan to ${options.out}`, outcome: 'nothing was planned or saved' });
  warnPromotedEnvironment(project.desired, options, ctx);
  const committedLock = await committedLockWarning(project.backend, ctx.env);
  if (committedLock) ctx.stderr.write(`warning: ${committedLock}\n`);
  const inputs = planInputs(project, ctx);
  const status = progressLine(ctx);
  const stateWarnings: string[] = [];
  // The output made ahead and printed shares one budget of line-diff work.
  const lineDiffs = new LineDiffBudget();
  const plan = await makePlan({
    ...inputs,
    targets: options.target ?? [],
    onReadProgress: (read, total) => status.update(readProgress(read, total)),
    // Each agent's output (prompt diffs above all) is made while the other reads are on the wire.
    onChange: (change) => prepareChangeOutput(change, format, { color: ctx.color, secrets: ctx.secrets, lineDiffs }),
    onWarning: (message) => stateWarnings.push(message),
  })
    .catch((error: unknown) => {
      throw withTakeOverCommands(error, options, 'plan', { targets: options.target, takeOver: options.takeOver });
    })
    .finally(() => status.done());
  // Said once the progress line is cleared.
  for (const message of stateWarnings) ctx.stderr.write(`warning: ${message}\n`);
  plan.policy = await planPolicy(plan, project.desired, ctx, { base: options.base, paths: options.file ?? [] });
  // A plan that breaks a mandatory rule is not saved: apply would refuse it.
  const failsPolicy = plan.policy.report.summary.mandatory > 0;
  const saveTo = failsPolicy ? undefined : options.out;
  // Saved before it is printed: a plan that cannot be saved prints only the error (one JSON document).
  if (saveTo) {
    const madeIn = await realpath(ctx.cwd);
    await savePlanFile(path.resolve(ctx.cwd, saveTo), plan, project.desired, inputs.fingerprintKey, { redact: (text) => ctx.secrets.redact(text), madeIn });
  }
  // A cut comment of a plan not saved tells how to save it: of the same manifests, environment, service, state and targets.
  const savePlanCommand = savedPlanCommands(SUGGESTED_PLAN_FILE, options, { targets: options.target, takeOver: options.takeOver }).plan;
  await writeInChunks(ctx.stdout, renderPlanAs(plan, format, { color: ctx.color, savedPlan: saveTo, savePlanCommand, diagnostics: warnings, secrets: ctx.secrets, lineDiffs }));
  if (saveTo) ctx.stderr.write(`Saved the plan to ${saveTo}. Apply exactly this with: ${nextCommand(`apply ${shellWord(saveTo)}`, options, { manifests: false })}\n`);
  else if (options.out) ctx.stderr.write(`The plan was not saved to ${options.out}: it breaks mandatory policy (above), and apply refuses such a plan.\n`);
  if (failsPolicy) return 1;
  return options.detailedExitcode && planHasChanges(plan) ? 2 : 0;
}

