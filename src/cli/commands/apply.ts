import path from 'node:path';
import picocolors from 'picocolors';
import { applyPlan, type ApplyResult, type ProgressEvent } from '../../apply/apply-plan.js';
import { VoxformError, isVoxformError } from '../../errors.js';
import { createPlan } from '../../plan/create-plan.js';
import { assertPlanFresh, readPlanFile, type SavedPlan } from '../../plan/plan-file.js';
import { renderPlanText } from '../../plan/render-text.js';
import { acquireStateLock } from '../../state/lock.js';
import { StateStore } from '../../state/state-file.js';
import { fingerprintKey } from '../../util/hash.js';
import type { CommandContext } from '../context.js';
import { progressLine } from '../progress.js';
import { connectProject, displayFiles, type ProjectOptions } from '../project.js';

interface ApplyOptions extends ProjectOptions {
  args?: string[];
  autoApprove?: boolean;
  target?: string[];
  lockTimeout?: string;
  parallelism?: number;
}

function lockTimeoutSeconds(value: string | undefined): number {
  const seconds = Number(value ?? '0');
  if (!Number.isFinite(seconds) || seconds < 0) {
    throw new VoxformError('invalid_option', `--lock-timeout must be a number of seconds (0 or more), not "${value}".`);
  }
  return seconds;
}

/**
 * `voxform apply [PLAN]`: plans afresh under the state lock, refuses a stale saved plan, asks (or
 * requires --auto-approve / a plan file), then applies with progress and a summary.
 */
export async function run(options: ApplyOptions, ctx: CommandContext): Promise<number> {
  const planFile = options.args?.[0];
  let saved: SavedPlan | undefined;
  const projectOptions: ProjectOptions = { ...options };
  let targets = options.target ?? [];
  if (planFile) {
    saved = await readPlanFile(path.resolve(ctx.cwd, planFile));
    if (options.file?.length || options.env || options.target?.length) {
      throw new VoxformError('invalid_option', 'A saved plan already names its manifests, environment and targets: pass only the plan file.', {
        hint: `Run \`voxform apply ${planFile}\` alone, or plan again with the options you want.`,
      });
    }
    projectOptions.file = saved.files.map((f) => path.resolve(ctx.cwd, f));
    if (saved.environment) projectOptions.env = saved.environment;
    targets = saved.targets;
  }
  const timeout = lockTimeoutSeconds(options.lockTimeout);

  const project = await connectProject(projectOptions, ctx);
  const lock = await acquireStateLock(project.stateFile, {
    command: `voxform apply${planFile ? ` ${planFile}` : ''}`,
    timeoutSeconds: timeout,
    warn: (message) => ctx.stderr.write(`warning: ${message}\n`),
  });
  ctx.onExit(() => lock.release());
  try {
    const store = await StateStore.open(project.stateFile, project.workspaceKey, fingerprintKey(project.connection.apiKey));
    const status = progressLine(ctx.stderr);
    const { plan, live } = await createPlan({
      desired: project.desired,
      client: project.connection.client,
      workspace: store.workspace,
      salt: store.fingerprintKey,
      baseUrl: project.serviceId,
      files: displayFiles(project.desired, ctx.cwd),
      targets,
      onReadProgress: (read, total) => status.update(`Reading live state… ${read}/${total} agents`),
    }).finally(() => status.done());
    if (saved) assertPlanFresh(saved, plan, project.desired, project.serviceId, store.fingerprintKey);

    ctx.stdout.write(renderPlanText(plan, { color: ctx.color }));
    const hasChanges = plan.summary.create + plan.summary.update > 0;
    if (hasChanges && !options.autoApprove && !saved) {
      if (!ctx.confirm) {
        throw new VoxformError('approval_required', 'Refusing to apply without approval: there is no terminal to ask on.', {
          hint: 'Pass --auto-approve, or save a reviewed plan with `voxform plan --out plan.json` and run `voxform apply plan.json`.',
        });
      }
      if (!(await ctx.confirm('\nApply these changes?'))) {
        ctx.stderr.write('Apply cancelled; nothing was changed.\n');
        return 1;
      }
    }

    const result = await applyPlan({
      plan,
      desired: project.desired,
      live,
      client: project.connection.client,
      store,
      parallelism: options.parallelism ?? 8,
      onProgress: hasChanges ? progressPrinter(ctx) : undefined,
    });
    // The next plan marks variables this apply did not read as new.
    await store.recordEnvironmentVariables(project.desired.environmentVariables);
    return reportResult(result, hasChanges, ctx, path.relative(ctx.cwd, project.stateFile));
  } finally {
    await lock.release();
  }
}

function progressPrinter(ctx: CommandContext): (event: ProgressEvent) => void {
  const c = picocolors.createColors(ctx.color);
  return (event) => {
    const address = event.change.address;
    if (event.type === 'start') ctx.stderr.write(`${address}: ${event.change.action === 'create' ? 'creating' : 'updating'}…\n`);
    else if (event.type === 'done') ctx.stderr.write(`${c.green('✓')} ${address}: ${event.change.action === 'create' ? 'created' : 'updated'} (${event.ms} ms)\n`);
    else if (event.type === 'failed') ctx.stderr.write(`${c.red('✗')} ${address}: ${errorSentence(event.error)}\n`);
    else ctx.stderr.write(`${c.yellow('-')} ${address}: skipped, because ${event.because}\n`);
  };
}

function errorSentence(error: unknown): string {
  if (isVoxformError(error)) return error.message;
  return `unexpected error: ${error instanceof Error ? error.message : String(error)}`;
}

function reportResult(result: ApplyResult, hadChanges: boolean, ctx: CommandContext, stateFile: string): number {
  for (const warning of result.warnings) ctx.stderr.write(`warning: ${warning}\n`);
  if (!hadChanges) {
    ctx.stdout.write('Nothing to apply.\n');
    return 0;
  }
  const line = `Apply ${result.failed.length > 0 ? 'finished with errors' : 'complete'}: ${result.applied.length} applied, ${result.failed.length} failed, ${result.skipped.length} skipped.`;
  ctx.stdout.write(`\n${line}\n`);
  if (result.failed.length > 0) {
    for (const failure of result.failed) ctx.stdout.write(`  failed: ${failure.address}: ${errorSentence(failure.error)}\n`);
    for (const skip of result.skipped) ctx.stdout.write(`  skipped: ${skip.address} (${skip.because})\n`);
    ctx.stdout.write(`State saved to ${stateFile}; run \`voxform apply\` again to finish.\n`);
    return 1;
  }
  return 0;
}
