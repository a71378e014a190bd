/** The library's `apply` on the terminal, for `apply` and `rollback`: question, progress, graceful stop, report. */
import { terminalColors } from '../util/terminal-colors.js';
import { apply, type ApplyEvent, type ApplyOptions, type ApplyOutcome, type ApplyStopping } from '../apply/apply.js';
import type { PartlyApplied } from '../apply/execute-plan.js';
import { isVoxformError, VoxformError } from '../errors.js';
import { deployer } from '../history/source.js';
import { ciJobUrlFrom } from '../util/run-identity.js';
import { describeLockLoss } from '../state/backend.js';
import { prepareChangeText, renderPlanText } from '../plan/render-text.js';
import { LineDiffBudget, movedKeyLines } from '../plan/field-lines.js';
import { lineAsShown } from '../util/printable.js';
import { plural, pluralNoun } from '../util/plural.js';
import { EXIT_INTERRUPTED, type CommandContext, type StopAgain } from './context.js';
import { progressLine, readProgress, type ProgressLine } from './progress.js';
import { errorLead } from './error-text.js';
import { refuseMandatoryViolations } from './policy-check.js';
import { nextCommand, stateFlags, type ChosenTarget, type LineOptions, type SavedPlanCommands } from './next-command.js';
import { errorMessage } from '../secrets/error-message.js';
import type { ProjectOptions } from './project.js';

/** The options of a command that runs an apply (`apply`, `rollback`, `promote`, `drift`; program.ts `withApplyRun`). */
export interface ApplyRunOptions extends ProjectOptions {
  autoApprove?: boolean;
  /** Seconds, read by the argument parser (whole-number.ts). */
  lockTimeout?: number;
  /** `--allow-missing-state`: apply though the state lost the workspace (ApplyOptions.allowMissingState). */
  allowMissingState?: boolean;
}

/** What those options ask of the apply, as every such command passes them on. */
export function applyRunSettings(options: ApplyRunOptions) {
  return { autoApprove: options.autoApprove, parallelism: options.parallelism, lockTimeoutSeconds: options.lockTimeout ?? 0, allowMissingState: options.allowMissingState };
}

type TerminalApplyOptions = Omit<ApplyOptions, 'confirm' | 'onEvent' | 'signal' | 'stopWaiting' | 'onLocked' | 'onChange'>;

/**
 * `how.chosen`: the options that chose the manifests, environment, service and state, which every
 * command line printed for the user to run next carries (next-command.ts), with the run's
 * `--target`s and `--take-over`s (`options.targets`, `options.takeOver`).
 * `how.rerun`: the command that finishes a run that did not finish (default `voxform apply` and the chosen options).
 * `how.replan`: a saved plan is applied. Once partly applied it is stale, and running the manifests
 * unreviewed is not what was approved: a new plan of them finishes the run, reviewed, then applied.
 * `how.recorded`: what is deployed is a recorded configuration (rollback, drift --heal), not the
 * manifests, named as the plan names it (`the configuration of record …`): the policy checked it
 * when it was applied, and a way back is never blocked by it. Otherwise the manifests' policy must
 * pass first.
 * `how.words`: what the closing verdict calls the run and a change done (`Heal complete: 1 healed, …`); apply's by default.
 */
export async function applyOnTerminal(
  options: TerminalApplyOptions,
  ctx: CommandContext,
  how: { chosen: ChosenTarget; rerun?: string | undefined; replan?: SavedPlanCommands | undefined; recorded?: string | undefined; words?: VerdictWords | undefined },
): Promise<{ code: number; outcome: ApplyOutcome }> {
  if (how.recorded === undefined) await refuseMandatoryViolations(options.desired, ctx);
  const selection: LineOptions = { targets: options.targets, takeOver: options.takeOver };
  // The plan every "see where things stand" names: of what this run was about, as the run planned it.
  const recheckCommand = nextCommand('plan', how.chosen, selection);
  const stop = new AbortController();
  const question: Question = { asking: false, stoppedAt: false };
  // What the stopping line offers to stop at once (the event printer says it, with the writes it waits for).
  let again: StopAgain = 'Ctrl-C again';
  void ctx
    .interrupted({
      stopping: false,
      atOnce: { leftUndone: 'writes in flight may have reached the service, and neither the state nor the history records them', hint: `Run \`${recheckCommand}\` to see where things stand.` },
    })
    .then((offered) => {
      again = offered;
      question.stoppedAt ||= question.asking;
      stop.abort();
    });
  const status = progressLine(ctx);
  const lines = new LineBatch(ctx.stderr);
  ctx.onExit(() => lines.flush());
  // The plan's blocks, made ahead and printed, share one budget of line-diff work.
  const lineDiffs = new LineDiffBudget();
  // A stop at once (a second Ctrl-C) waits no longer for the writes in flight, but it does wait for
  // the run to record what the service accepted before them, in the state and the history alike.
  const stopWaiting = new AbortController();
  let applyEnded = false;
  const recordedAtOnce = async () => {
    if (applyEnded) return;
    stop.abort();
    stopWaiting.abort();
    await applying.catch(() => undefined);
  };
  const applying = apply({
    ...options,
    recordedConfiguration: how.recorded !== undefined,
    by: options.by ?? deployer(ctx.env),
    ciJobUrl: ciJobUrlFrom(ctx.env),
    // The plan is printed before it runs: each agent's block of it is made as the agent is compared.
    onChange: (change) => prepareChangeText(change, { color: ctx.color, lineDiffs }),
    confirm: () => confirmOnTerminal(ctx, stop, question, { ...how, selection, allowMissingState: options.allowMissingState }),
    onEvent: eventPrinter(ctx, status, lines, { desired: how.recorded, lineDiffs }, () => again),
    signal: stop.signal,
    stopWaiting: stopWaiting.signal,
    onLocked: (lock) => {
      ctx.onExit(() => lock.release());
      // Added after the release, so run before it: the record is written under the lock.
      ctx.onExit(recordedAtOnce);
    },
    unlockOptions: stateFlags(how.chosen).join(' ') || undefined,
    // A lost lock's error names the plan of this run's manifests, environment, state and targets, as the summary does.
    recheckCommand,
  }).finally(() => {
    applyEnded = true;
    lines.flush();
    status.done();
  });
  const outcome = await applying;
  const code = report(outcome, ctx, { ...how, selection, recheckCommand, stoppedAtQuestion: question.stoppedAt });
  // A failed state write ends the run with its error (exit 1), after the summary of what reached the service.
  if (outcome.stateError !== undefined) throw outcome.stateError;
  return { code, outcome };
}

/** What the closing verdict calls the run (`Apply`) and a change it made (`applied`). */
interface VerdictWords {
  run: string;
  done: string;
}

const APPLY_WORDS: VerdictWords = { run: 'Apply', done: 'applied' };

/** Whether the confirmation question is being asked, and whether a stop came while it was. */
interface Question {
  asking: boolean;
  stoppedAt: boolean;
}

async function confirmOnTerminal(
  ctx: CommandContext,
  stop: AbortController,
  question: Question,
  how: { chosen: ChosenTarget; selection: LineOptions; rerun?: string | undefined; recorded?: string | undefined; allowMissingState?: boolean | undefined },
): Promise<boolean> {
  if (!ctx.confirm) {
    // Nothing is written yet, so a lost workspace this run was let past is still lost: the applies offered need the flag too.
    const pastMissingState = how.allowMissingState ? ' --allow-missing-state' : '';
    // A command of its own (rollback, drift --heal, promote with its gates) has no plan to save: it is approved itself.
    const hint =
      how.rerun !== undefined
        ? `Pass --auto-approve: \`${how.rerun}${pastMissingState} --auto-approve\`.`
        : `Pass --auto-approve, or save a reviewed plan with \`${nextCommand('plan --out plan.json', how.chosen, how.selection)}\` and run \`${nextCommand('apply plan.json', how.chosen, { manifests: false })}${pastMissingState}\`.`;
    throw new VoxformError('approval_required', 'Refusing to apply without approval: there is no terminal to ask on.', { hint });
  }
  question.asking = true;
  try {
    return await ctx.confirm('\nApply these changes?', { signal: stop.signal });
  } catch (error) {
    // Ctrl-C or Ctrl-D at the question (a key on a terminal, or a signal): the answer "Apply cancelled".
    if (isVoxformError(error) && error.code === 'interrupted') {
      question.stoppedAt = true;
      stop.abort();
      return false;
    }
    throw error;
  } finally {
    question.asking = false;
  }
}

/** `desired`: what is applied, as the plan names it, and `lineDiffs`: its budget (see `renderPlanText`); `again`: what stops a stop at once. */
function eventPrinter(ctx: CommandContext, status: ProgressLine, lines: LineBatch, plan: { desired: string | undefined; lineDiffs: LineDiffBudget }, again: () => StopAgain): (event: ApplyEvent) => void {
  const c = terminalColors(ctx.color);
  const verb = (event: { change: { action: string } }, creating: string, updating: string) => (event.change.action === 'create' ? creating : updating);
  return (event) => {
    if (event.type === 'reading') return status.update(readProgress(event.agentsRead, event.agents));
    if (event.type === 'planned') {
      lines.flush();
      status.done();
      return ctx.stdout.write(renderPlanText(event.plan, { color: ctx.color, ...plan }));
    }
    if (event.type === 'warning') return lines.add(`warning: ${event.message}\n`);
    if (event.type === 'stopping') return lines.add(stoppingLine(event, again()));
    const address = event.change.address;
    if (event.type === 'start') lines.add(`${address}: ${verb(event, 'creating', 'updating')}…\n`);
    else if (event.type === 'done') lines.add(`${c.green('✓')} ${address}: ${verb(event, 'created', 'updated')} (${event.ms} ms)\n`);
    else if (event.type === 'failed') lines.add(`${c.red('✗')} ${address}: ${errorSentence(event.error)}\n`);
    else if (event.type === 'partly') lines.add(`${c.yellow('~')} ${address}: partly applied (${partlyText(event.part)})\n`);
    else lines.add(`${c.yellow('-')} ${address}: skipped, because ${event.because}\n`);
  };
}

/** What stops the run, said at once: only a stop by a signal offers a second one (`again`, which stops at once). */
function stoppingLine(event: ApplyStopping, again: StopAgain): string {
  if (event.because === 'interrupted' && event.inFlight === 0) return `Stopping: no new write is sent (${again} stops at once)…\n`;
  if (event.because === 'interrupted') return `Stopping: no new write is sent; waiting for ${event.inFlight} in flight (${again} stops at once, without recording them)…\n`;
  const rest = event.inFlight > 0 ? `the run stops after the ${event.inFlight} in flight` : 'the run stops';
  if (event.because === 'lock_lost') return `Stopping: ${describeLockLoss(event.lockLost)}. No new write is sent; ${rest}…\n`;
  return `Stopping: a state write failed, and nothing more can be recorded. No new write is sent; ${rest}…\n`;
}

/**
 * The progress lines of one turn of the event loop, written together: each write is scrubbed for secrets
 * on the thread that handles the service's answers. `flush` writes them at once (before the summary, on exit).
 */
class LineBatch {
  private pending = '';
  private scheduled = false;

  constructor(private readonly stream: CommandContext['stderr']) {}

  add(line: string): void {
    this.pending += line;
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => this.flush());
  }

  flush(): void {
    this.scheduled = false;
    if (this.pending === '') return;
    const text = this.pending;
    this.pending = '';
    this.stream.write(text);
  }
}

/** Which writes of a partly applied change reached the service, which did not, and why not. */
function partlyText(part: PartlyApplied): string {
  const why = part.error !== undefined ? `: ${errorSentence(part.error)}` : part.because !== undefined ? `, because ${part.because}` : '';
  return `${part.reached.join(', ')} reached the service; ${part.notReached.join(', ')} did not${why}`;
}

function errorSentence(error: unknown): string {
  if (isVoxformError(error)) return `${errorLead(error.code)}: ${error.message}`;
  return `unexpected error: ${errorMessage(error)}`;
}

/**
 * How the run ends: `rerun` is the command that finishes the run (apply by default, with the run's
 * `selection`: its targets and take-overs), `replan` a saved plan's; `recheckCommand` the plan that
 * shows where things stand. `--allow-missing-state` is not carried: a run that gets as far as this
 * line has written the workspace to the state, so the next apply finds it, and one the flag let
 * through must not let through a state lost again since.
 */
function report(
  outcome: ApplyOutcome,
  ctx: CommandContext,
  how: { rerun?: string | undefined; replan?: SavedPlanCommands | undefined; chosen: ChosenTarget; selection: LineOptions; recheckCommand: string; stoppedAtQuestion: boolean; words?: VerdictWords | undefined },
): number {
  for (const warning of outcome.warnings) ctx.stderr.write(`warning: ${withThisRunsPlan(warning, how.recheckCommand)}\n`);
  // Nothing for the service: at most renamed keys' state entries moved (an `applied` outcome then).
  const nothingForTheService = outcome.status === 'nothing_to_do' || (outcome.plan !== undefined && outcome.plan.changes.every((change) => change.action === 'no-op'));
  if (nothingForTheService && outcome.stateError !== undefined) {
    // The state write that failed is the run's one error (applyOnTerminal throws it): counts of changes there were none of would say more went wrong.
    return 1;
  }
  if (nothingForTheService && (outcome.status === 'nothing_to_do' || outcome.status === 'applied')) {
    ctx.stdout.write(nothingToApplyLine(outcome.plan));
    return 0;
  }
  if (outcome.lockLost && !outcome.interrupted) {
    // An error like the lock lost later on (the state backend's), with its code and a way on.
    throw new VoxformError('state_lock_lost', `Apply stopped before anything was applied: ${describeLockLoss(outcome.lockLost)}.`, {
      hint: 'Nothing was applied or written; run the command again (`voxform status` shows who holds the lock now).',
    });
  }
  if (outcome.status === 'interrupted' && !outcome.interrupted && !how.stoppedAtQuestion) {
    // Stopped before the question (while the service was read): said as every command says a stop.
    throw new VoxformError('interrupted', 'voxform stopped at your request; nothing was applied.', { hint: 'Run the command again to finish its work.' });
  }
  if (outcome.status === 'cancelled' || (outcome.status === 'interrupted' && !outcome.interrupted)) {
    ctx.stderr.write('Apply cancelled; nothing changed.\n');
    return outcome.status === 'cancelled' ? 1 : EXIT_INTERRUPTED;
  }
  writeSummary(outcome, ctx, how.words ?? APPLY_WORDS, how.recheckCommand);
  if (outcome.status === 'applied') return 0;
  if (outcome.lockLost) {
    // A lock forced open by another operator leaves the store as it was; a database's lock that went with its connection needs the database back.
    const when = outcome.lockLost.reason === 'connection_lost' ? 'once the database is back' : 'to see where things stand';
    const next = how.replan
      ? replanText(how.replan, ` ${when}`)
      : how.rerun === undefined
        ? `run \`${how.recheckCommand}\` ${when}, then apply again`
        : `run \`${how.rerun}\` again ${when}`;
    ctx.stdout.write(`What was recorded before the loss is in ${outcome.stateLocation}; ${next}.\n`);
    return 1;
  }
  // The state's error follows (see applyOnTerminal): it says what to do.
  if (outcome.stateError !== undefined) return 1;
  const left = outcome.partlyApplied.length + outcome.failed.length + outcome.skipped.length + outcome.stopped.length > 0;
  const finish = how.replan ? `to finish, ${replanText(how.replan, '')}` : `run \`${how.rerun ?? nextCommand('apply', how.chosen, how.selection)}\` again to finish`;
  ctx.stdout.write(`State saved to ${outcome.stateLocation}${left ? `; ${finish}` : ''}.\n`);
  return outcome.status === 'interrupted' ? EXIT_INTERRUPTED : 1;
}

/**
 * How a run with no change for the service ends: a plan of renamed or swapped keys alone still moved
 * their state entries (docs/plan.md, "Renaming a key"), which is said rather than "Nothing to apply",
 * in the plan's words (`movedKeyLines`): a swap is no rename.
 */
function nothingToApplyLine(plan: ApplyOutcome['plan']): string {
  const { renamed, swapped } = plan === undefined ? { renamed: [], swapped: [] } : movedKeyLines(plan);
  if (renamed.length + swapped.length === 0) return 'Nothing to apply.\n';
  const where = pluralNoun(renamed.length, 'its new key', 'their new keys');
  const lines = [
    ...(renamed.length > 0 ? [`Moved the state of ${plural(renamed.length, 'renamed resource')} to ${where}: ${renamed.map(lineAsShown).join(', ')}`] : []),
    ...(swapped.length > 0 ? [`Moved the state of swapped keys to the key that names each resource now: ${swapped.map(lineAsShown).join(', ')}`] : []),
  ];
  return lines.map((line) => `${line}\n`).join('');
}

/** What finishes a saved plan's run (`when`: when to start): the same manifests planned again, reviewed, then applied. */
function replanText(commands: SavedPlanCommands, when: string): string {
  return `run \`${commands.plan}\`${when}, review the new plan, and run \`${commands.apply}\``;
}

/**
 * Each change not simply applied (after a stop, all), marked when the state did not record it, then
 * the verdict with the counts: last, where a quote of the output's end (ci run's) keeps it however
 * long the list.
 */
function writeSummary(outcome: ApplyOutcome, ctx: CommandContext, words: VerdictWords, recheckCommand: string): void {
  const stopped = outcome.lockLost !== undefined || outcome.status === 'interrupted';
  const listed = changesNotSimplyApplied(outcome, stopped).map((line) => withThisRunsPlan(line, recheckCommand));
  ctx.stdout.write([...(listed.length > 0 ? ['', ...listed] : []), '', verdictLine(outcome, stopped, words), ''].join('\n'));
}

/** `Apply complete: 3 applied, 0 failed, 0 skipped.`, or how it stopped or failed, with the counts. */
function verdictLine(outcome: ApplyOutcome, stopped: boolean, { run, done }: VerdictWords): string {
  const partly = outcome.partlyApplied.length > 0 ? `, ${outcome.partlyApplied.length} partly ${done}` : '';
  const counts = `${outcome.applied.length} ${done}${partly}, ${outcome.failed.length} failed, ${outcome.skipped.length} skipped`;
  if (outcome.lockLost) return `${run} stopped: ${describeLockLoss(outcome.lockLost)}. ${counts}, ${outcome.stopped.length} not ${done}.`;
  if (stopped) return `${run} interrupted: ${counts}, ${outcome.stopped.length} not ${done}.`;
  const notApplied = outcome.stopped.length > 0 ? `, ${outcome.stopped.length} not ${done}` : '';
  return `${run} ${outcome.status === 'failed' ? 'finished with errors' : 'complete'}: ${counts}${notApplied}.`;
}

/**
 * `text` (a hint or warning made below the command line, which names `voxform plan` to see what the
 * service holds) with this run's plan there instead: pasted bare, that plan would read the default
 * manifests, environment and service, not what this run applied.
 */
function withThisRunsPlan(text: string, recheckCommand: string): string {
  return text.replaceAll('`voxform plan`', `\`${recheckCommand}\``);
}

/** One line per change not simply applied (after a stop, every one), each failure with its hint. */
function changesNotSimplyApplied(outcome: ApplyOutcome, stopped: boolean): string[] {
  const lines: string[] = [];
  const unrecorded = new Set(outcome.unrecorded);
  const mark = (address: string) => (unrecorded.has(address) ? ', not recorded in the state' : '');
  for (const address of outcome.applied) if (stopped || unrecorded.has(address)) lines.push(`  applied${mark(address)}: ${address}`);
  for (const part of outcome.partlyApplied) {
    lines.push(`  partly applied${mark(part.address)}: ${part.address} (${partlyText(part)})`);
    const hint = isVoxformError(part.error) ? part.error.hint : undefined;
    if (hint) lines.push(`    hint: ${hint}`);
  }
  for (const failure of outcome.failed) {
    lines.push(`  failed: ${failure.address}: ${errorSentence(failure.error)}`);
    // What to do about it, once per failure: the progress line above gave the error only.
    const hint = isVoxformError(failure.error) ? failure.error.hint : undefined;
    if (hint) lines.push(`    hint: ${hint}`);
  }
  for (const skip of outcome.skipped) lines.push(`  skipped: ${skip.address} (${skip.because})`);
  for (const address of outcome.stopped) lines.push(`  not applied: ${address}`);
  return lines;
}
