/**
 * `voxform promote --to ENV [--from ENV]`: the target is given exactly what the source runs, once
 * every gate passes on the source's evidence, through the normal plan, confirmation, lock and apply;
 * the record names its source record. `--dry-run`: the gate table and the plan, nothing applied.
 */
import path from 'node:path';
import { isVoxformError, VoxformError } from '../../errors.js';
import { projectFilesChanged, uncommittedFiles } from '../../history/source.js';
import type { DesiredState } from '../../manifest/types.js';
import { plan as makePlan } from '../../plan/plan.js';
import { renderPlanText, prepareChangeText } from '../../plan/render-text.js';
import { LineDiffBudget } from '../../plan/field-lines.js';
import { readCallEvidence } from '../../promote/call-evidence.js';
import { deployedUntil } from '../../report/since-deploy.js';
import { configurationOrigin } from '../../history/configuration-origin.js';
import { checkGates, deployedRecord, gatesNeedCalls } from '../../promote/gates.js';
import { checkCheckout, checkSourceConfiguration, gateRefusal, renderGateTable } from '../../promote/promotion.js';
import { missingStateError } from '../../state/missing-state.js';
import { workspaceKey } from '../../state/types.js';
import { ledgerSealKey, sealVerifies, type LedgerSealKey } from '../../history/seal.js';
import type { HistoryStore, RecordSummary } from '../../history/types.js';
import { noSealedRecord, passedOverWarning, removedFromLedger, sealedEvidence, unsealedSinceSealed, type SealedEvidence } from '../../promote/sealed-evidence.js';
import { fingerprintKey } from '../../util/hash.js';
import { applyOnTerminal, applyRunSettings, type ApplyRunOptions } from '../apply-on-terminal.js';
import type { CommandContext } from '../context.js';
import { errorText } from '../error-text.js';
import { allSummaries, wholeRecord, workspaceTestRuns } from '../history-records.js';
import { refuseMandatoryViolations } from '../policy-check.js';
import { progressLine, readProgress } from '../progress.js';
import { connectProject, deployedFiles, deploySourceOf, loadDesiredState, planInputs, type ConnectedProject } from '../project.js';
import { readCommandProject } from '../load-manifests.js';
import { shellWord } from '../../util/shell-word.js';
import { nextCommand } from '../next-command.js';
import { recordedCommand } from '../recorded-command.js';
import { withTakeOverCommands } from '../take-over.js';
import { checkoutSuite } from '../test-evidence.js';

interface PromoteOptions extends ApplyRunOptions {
  to: string;
  from?: string;
  dryRun?: boolean;
}

/** The source: `--from`, else the target's `promote_from`. */
function sourceOf(options: PromoteOptions, desired: DesiredState): string {
  const from = options.from ?? desired.promotions?.get(options.to)?.from;
  if (from === undefined) {
    throw new VoxformError('invalid_argument', `Environment "${options.to}" sets no promote_from, and --from is not given: promote it from which environment?`, {
      hint: `Add \`promote_from: SOURCE\` under environments.${options.to} in the manifest, or pass --from SOURCE.`,
    });
  }
  if (from === options.to) {
    throw new VoxformError('invalid_argument', `--from and --to name the same environment, "${from}".`, {
      hint: "Name another environment with --from, or leave it out to use the target's promote_from.",
    });
  }
  return from;
}

/** Where the evidence is: the source's workspace on the same service, checked to be the target's service. */
function sourceWorkspace(project: ConnectedProject, desiredSource: DesiredState, from: string, to: string): string {
  const target = project.desired;
  if (desiredSource.baseUrl !== target.baseUrl || desiredSource.region !== target.region) {
    throw new VoxformError('invalid_argument', `"${from}" and "${to}" set different services (base_url or region): a promotion reads the source's evidence through the target's connection.`, {
      hint: 'Promote between environments of one service; give each its own agent ids in its overlay.',
    });
  }
  return workspaceKey(from, project.connection.serviceId);
}

/** The record promoted, read whole, no longer holds what its seal covers: it changed since its summary was read. */
function recordChangedWhileRead(record: RecordSummary): VoxformError {
  return new VoxformError('state_unreadable', `History record ${record.id} of ${record.workspace} changed while this command ran: its seal no longer verifies.`, { hint: 'Run the command again.' });
}

export async function run(options: PromoteOptions, ctx: CommandContext): Promise<number> {
  // promote takes no --take-over: a refusal names the plan and apply of the target that do.
  return promote(options, ctx).catch((error: unknown) => {
    throw withTakeOverCommands(error, { ...options, env: options.to }, 'promote');
  });
}

async function promote(options: PromoteOptions, ctx: CommandContext): Promise<number> {
  const to = options.to;
  // Both environments resolved from one read of the files: the source is checked against the checkout the target is planned from.
  const read = await readCommandProject(options, ctx);
  const listedWarnings = new Set<string>();
  const project = await connectProject({ ...options, env: to, envFlag: '--to' }, ctx, { project: read, listedWarnings });
  const from = sourceOf(options, project.desired);
  // A source from promote_from is checked by the target's load; one from --from is that flag's.
  const desiredSource = await loadDesiredState({ ...options, env: from, envFlag: '--from' }, ctx, { project: read, listedWarnings });
  const fromWorkspace = sourceWorkspace(project, desiredSource, from, to);
  const history = project.backend.history;

  // The source's apply as the user would paste it: with the manifests, service and state of this run.
  const applySource = nextCommand('apply', { ...options, env: from });
  const sealKey = ledgerSealKey(fingerprintKey(project.connection.apiKey));
  const evidence = await readSourceEvidence(history, { from, workspace: fromWorkspace, sealKey, applySource }, ctx);
  const records = evidence.records;
  const current = deployedRecord(records, from, fromWorkspace, applySource);
  const manifestFolder = project.desired.files[0] ? path.dirname(project.desired.files[0]) : ctx.cwd;
  // What either environment's deploy is made from: no other file of the checkout counts.
  const files = [...new Set([...deployedFiles(project.desired), ...deployedFiles(desiredSource)])];
  // As an apply takes it: in CI, the runner's commit, job and pull request, recorded with the promotion.
  const checkout = await deploySourceOf(project.desired, ctx, { files });
  // The commit that holds what the source runs: of a rollback, the restored record's, not the one it ran at.
  const origin = configurationOrigin(records, current, evidence.unsealedRecords);
  const deployed = 'record' in origin ? origin.record.source.commit : undefined;
  const betweenCommits = deployed !== undefined && checkout.commit !== undefined ? await projectFilesChanged(manifestFolder, ctx.env, deployed, checkout.commit, files, ctx.cwd) : undefined;
  const changedFiles = checkout.uncommitted ? await uncommittedFiles(manifestFolder, ctx.env, files, ctx.cwd) : undefined;
  const changed = changedFiles && { files: changedFiles, gitFolder: path.relative(ctx.cwd, manifestFolder) || '.' };
  const made = checkCheckout(current, origin, checkout, from, betweenCommits, changed, applySource, nextCommand('history', { ...options, env: from }));
  const whole = await wholeRecord(history, current, ctx);
  // Read again by its id: what is checked against the manifests is the record whose seal was checked.
  if (!sealVerifies(sealKey, whole)) throw recordChangedWhileRead(current);
  checkSourceConfiguration(whole, desiredSource, from, applySource);

  // The gates, on the source's evidence.
  const gates = project.desired.promotions?.get(to)?.gates ?? {};
  const now = new Date();
  const status = progressLine(ctx);
  if (gatesNeedCalls(gates)) status.update(`Reading ${from}'s call logs…`);
  // Each agent's deploys up to now: the call evidence's windows and the no_regression gate take them alike.
  const agentDeploys = deployedUntil(records, now.getTime() / 1000);
  const calls = gatesNeedCalls(gates)
    ? await readCallEvidence({ client: project.connection.client, workspace: fromWorkspace, records, current, now, parallelism: options.parallelism ?? 8, deployed: agentDeploys }).finally(() => status.done())
    : new Map();
  // What a failed gate's fix names, with the manifests, service and state of this run.
  const commands = { test: nextCommand('test --against live', { ...options, env: from }), report: nextCommand('report --since-deploy', { ...options, env: from }) };
  // The tests gate takes a run of the test files this checkout holds, not of a pull request's.
  const suite = gates.tests ? await checkoutSuite(options, ctx, project.desired, commands.test) : undefined;
  const results = checkGates(gates, { source: from, records, current, origin: made, testRuns: evidence.testRuns, unsealedTestRuns: evidence.unsealedTestRuns, suite, calls, now, commands, deployed: agentDeploys });
  const restored = current.source.rollbackOf === undefined ? '' : `a rollback to record ${current.source.rollbackOf}, `;
  ctx.stdout.write(`Promoting ${from} (record ${current.id}, ${restored}commit ${(made.source.commit as string).slice(0, 7)}) to ${to}.\n\n`);
  ctx.stdout.write(renderGateTable(results, from, to));
  ctx.stdout.write('\n');
  const refusal = gateRefusal(results, from, to);

  if (options.dryRun) return dryRun(project, ctx, { refusal, allowMissingState: options.allowMissingState === true });
  if (refusal) throw refusal;
  const words = `promote --to ${shellWord(to)} --from ${shellWord(from)}`;
  const { code } = await applyOnTerminal(
    {
      ...planInputs(project, ctx),
      ...applyRunSettings(options),
      // The environments are promote's own words: its options hold no --env.
      command: recordedCommand(words, { allowMissingState: options.allowMissingState }),
      history,
      source: { ...checkout, promotedFrom: { workspace: fromWorkspace, record: current.id } },
    },
    ctx,
    // The target is what a plan pasted from a stop or a lost lock must show: its --env, with this
    // run's -f, service and state. Promote's own line takes no --env: --to names the target.
    { chosen: { ...options, env: to }, rerun: nextCommand(words, options) },
  );
  return code;
}

/**
 * The evidence: the source's records and test runs voxform sealed under this run's API key, and no
 * other (src/promote/sealed-evidence.ts), with one warning for those passed over. The ledger is read
 * as summaries (the soak and the call evidence need no configuration); only the record promoted is read whole.
 */
async function readSourceEvidence(history: HistoryStore, source: { from: string; workspace: string; sealKey: LedgerSealKey; applySource: string }, ctx: CommandContext): Promise<SealedEvidence> {
  const evidence = sealedEvidence(await allSummaries(history, source.workspace, ctx, source.sealKey), await workspaceTestRuns(history, source.workspace, ctx), source.sealKey);
  const warning = passedOverWarning(source.workspace, evidence.passedOver);
  if (warning) ctx.stderr.write(warning);
  // With no record sealed, every record is passed over.
  if (evidence.records.length === 0 && evidence.unsealedRecords.length > 0) throw noSealedRecord(source.from, source.workspace, evidence.unsealedRecords.length, source.applySource);
  // A record after the newest sealed one (an older voxform's apply, another key's, a planted one) may have deployed another configuration.
  const [unsealed] = evidence.unsealedSinceNewest;
  if (unsealed !== undefined && evidence.records[0] !== undefined) throw unsealedSinceSealed(source.from, source.workspace, unsealed, evidence.records[0], source.applySource);
  if (evidence.removedBefore !== undefined) throw removedFromLedger(source.from, source.workspace, evidence.removedBefore);
  return evidence;
}

/** `--dry-run`: the plan the promotion would apply; exit 1 when a gate, the lost state of the target or the policy refuses it. */
async function dryRun(project: ConnectedProject, ctx: CommandContext, how: { refusal: VoxformError | undefined; allowMissingState: boolean }): Promise<number> {
  const status = progressLine(ctx);
  const lineDiffs = new LineDiffBudget();
  const plan = await makePlan({
    ...planInputs(project, ctx),
    onReadProgress: (read, total) => status.update(readProgress(read, total)),
    onChange: (change) => prepareChangeText(change, { color: ctx.color, lineDiffs }),
  })
    .catch((error: unknown) => {
      // The promotion stops at a refusing gate before it plans: the dry run says why the plan failed, then ends with the gate's refusal all the same.
      if (!how.refusal || !isVoxformError(error) || error.code === 'interrupted') throw error;
      ctx.stderr.write(errorText(error));
      throw how.refusal;
    })
    .finally(() => status.done());
  ctx.stdout.write(renderPlanText(plan, { color: ctx.color, lineDiffs }));
  // Refused as the promotion itself would be: the gate first, then a state that lost the target, then the manifests' policy.
  if (how.refusal) throw how.refusal;
  if (plan.missingState && !how.allowMissingState) throw missingStateError(plan.missingState, workspaceKey(plan.environment, plan.baseUrl));
  await refuseMandatoryViolations(project.desired, ctx);
  ctx.stdout.write('\nDry run: nothing was applied. Every gate passes; run without --dry-run to promote.\n');
  return 0;
}
