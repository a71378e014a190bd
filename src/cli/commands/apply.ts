import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isVoxformError, VoxformError } from '../../errors.js';
import { assertPlanIntact, madeElsewhere, readPlanFile, type SavedPlan } from '../../plan/plan-file.js';
import { fingerprintKey } from '../../util/hash.js';
import { operatorService, serviceApiKey, startLocalEmulator } from '../connection.js';
import type { CommandContext } from '../context.js';
import { applyOnTerminal, applyRunSettings, type ApplyRunOptions } from '../apply-on-terminal.js';
import { manifestArgumentError, namesManifest } from '../manifest-argument.js';
import { shellWord } from '../../util/shell-word.js';
import { savedPlanCommands, type ChosenTarget } from '../next-command.js';
import { recordedCommand } from '../recorded-command.js';
import { withTakeOverCommands } from '../take-over.js';
import { warnPromotedEnvironment } from '../promotion-notice.js';
import { connectProject, deploySourceOf, planInputs, type ProjectOptions } from '../project.js';

interface ApplyCommandOptions extends ApplyRunOptions {
  /** `[PLAN]`: a plan file saved by `voxform plan --out`. */
  args?: string[];
  target?: string[];
}

/** The project a saved plan names: its manifests and environment, and no other selection. */
function savedPlanProject(options: ApplyCommandOptions, saved: SavedPlan, planFile: string, ctx: CommandContext): ProjectOptions {
  if (options.file?.length || options.env || options.target?.length || options.takeOver?.length) {
    throw new VoxformError('invalid_option', 'A saved plan already names its manifests, environment and targets: pass only the plan file.', {
      hint: `Run \`${savedPlanCommands(planFile, options).apply}\` without -f, --env, --target or --take-over, or plan again with the options you want.`,
    });
  }
  const project: ProjectOptions = { ...options, file: saved.files.map((f) => path.resolve(ctx.cwd, f)) };
  // The plan's environment, not a flag's: one the manifests no longer define is their error.
  if (saved.environment) {
    project.env = saved.environment;
    project.envFlag = false;
  }
  return project;
}

/**
 * A saved plan vouched for by this run's key before anything it names is read: a plan handed on
 * between CI jobs may have been edited to name any file as a manifest, and only its `plan_digest`,
 * keyed with the API key the file never holds, says it was not. The service the operator's flags
 * target is compared first, as apply compares it once connected: another service's plan was made
 * with another key, which is not the point.
 */
async function assertVouched(saved: SavedPlan, options: ApplyCommandOptions, ctx: CommandContext, planCommand: string): Promise<void> {
  const target = options.local ? 'local' : operatorService(options, ctx.env);
  const elsewhere = target === undefined ? undefined : madeElsewhere(saved, { serviceId: target, planCommand });
  if (elsewhere) throw elsewhere;
  const apiKey = options.local ? (await startLocalEmulator(ctx)).apiKey : serviceApiKey(ctx.env);
  assertPlanIntact(saved, fingerprintKey(apiKey), planCommand);
}

/** `chosen`: the saved plan's manifests and environment, with this run's service and state options; `selection`: the plan's own. */
function localPlanElsewhere(planFile: string, chosen: ChosenTarget, selection: ApplySelection): VoxformError {
  const local = savedPlanCommands(planFile, { ...chosen, local: true, baseUrl: undefined, region: undefined }).apply;
  const service = savedPlanCommands(planFile, chosen, selection).plan;
  return new VoxformError('plan_stale', 'The saved plan was made with --local; this apply targets a service on the network. Nothing was applied.', {
    hint: `Apply it to the embedded emulator with \`${local}\`, or run \`${service}\` for the service, review it, and apply the new plan.`,
    details: { reasons: ['made for another service'], resources: [] },
  });
}

/** The `--target`s and `--take-over`s an apply acts on, which the run and every line it prints for what comes next carry. */
interface ApplySelection {
  targets: string[];
  takeOver: string[];
}

/** The saved plan `planFile`; a manifest there, not a plan, is the mistake of leaving out -f, said so. */
async function readSavedPlan(planFile: string, options: ApplyCommandOptions, ctx: CommandContext): Promise<SavedPlan> {
  try {
    return await readPlanFile(path.resolve(ctx.cwd, planFile));
  } catch (error) {
    if (isVoxformError(error) && error.code === 'plan_unreadable' && namesManifest(planFile, ctx.cwd)) {
      throw manifestArgumentError([planFile], 'apply', options, 'a saved plan (`voxform plan --out FILE`) as its argument');
    }
    throw error;
  }
}

/** `voxform apply [PLAN]`: load and connect (the saved plan's manifests, if given), then apply on the terminal. */
export async function run(options: ApplyCommandOptions, ctx: CommandContext): Promise<number> {
  const planFile = options.args?.[0];
  const saved = planFile ? await readSavedPlan(planFile, options, ctx) : undefined;
  // A saved plan's own selection (apply refuses both flags beside it), or this run's flags.
  const selection: ApplySelection = saved ? { targets: saved.targets, takeOver: saved.take_over ?? [] } : { targets: options.target ?? [], takeOver: options.takeOver ?? [] };
  // The command as typed: a saved plan names its environment and targets itself, and apply refuses them beside it.
  const command = recordedCommand(planFile ? `apply ${shellWord(planFile)}` : 'apply', options);
  const workingDir = saved ? await realpath(ctx.cwd) : undefined;
  // A saved plan's manifests and environment are its own; planned again from them when it is stale (as once partly run).
  const chosen = saved ? { ...options, file: saved.files, env: saved.environment ?? undefined } : options;
  const savedCommands = planFile && saved ? savedPlanCommands(planFile, chosen, selection) : undefined;
  const explained = (error: unknown): unknown => {
    // The plan's manifests are not here at all: it was made in another project.
    const elsewhere = saved && isVoxformError(error) && error.code === 'manifest_not_found' ? madeElsewhere(saved, { serviceId: saved.base_url, workingDir, planCommand: savedCommands?.plan, manifestsMissing: true }) : undefined;
    // A --local plan applied without --local: another service, so "no key" is not the point.
    if (saved?.base_url === 'local' && isVoxformError(error) && error.code === 'api_key_missing') return localPlanElsewhere(planFile ?? '', chosen, selection);
    return elsewhere ?? error;
  };
  const projectOptions = saved && planFile ? savedPlanProject(options, saved, planFile, ctx) : options;
  const vouched = saved && savedCommands ? assertVouched(saved, options, ctx, savedCommands.plan) : Promise.resolve();
  const project = await vouched
    .then(() => connectProject(projectOptions, ctx))
    .catch((error: unknown) => {
      throw explained(error);
    });
  warnPromotedEnvironment(project.desired, chosen, ctx);
  // Found while the plan is made and applied (git runs meanwhile): only the history record needs it.
  const source = deploySourceOf(project.desired, ctx);
  source.catch(() => undefined);
  const { code } = await applyOnTerminal(
    {
      ...planInputs(project, ctx),
      savedPlan: saved,
      workingDir,
      // A stale saved plan's way out as a command to paste: a new plan of the same manifests, environment and service, into the same file.
      planCommand: savedCommands?.plan,
      targets: selection.targets,
      takeOver: selection.takeOver,
      ...applyRunSettings(options),
      command,
      history: project.backend.history,
      source,
    },
    ctx,
    { chosen, replan: savedCommands },
  ).catch((error: unknown) => {
    throw withTakeOverCommands(error, chosen, 'apply', selection);
  });
  return code;
}
