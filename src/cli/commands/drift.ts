/**
 * `voxform drift`: what differs between the service, the last apply and the manifests, classified;
 * optionally posted to a receiver (`--notify`), put back (`--heal`: the last recorded configuration,
 * through rollback's restore and the normal apply), or checked again and again (`--watch`).
 */
import { VoxformError, isVoxformError } from '../../errors.js';
import { checkDrift } from '../../drift/check.js';
import { HealRecordChooser, healPlan, type HealPlan } from '../../drift/heal.js';
import { classLabel, leftAfterHealNote, oneLine, settledByHeal } from '../../drift/labels.js';
import { notificationBody, parseNotifyUrl, sendNotification, type NotifyFormat } from '../../drift/notify.js';
import { driftToJson, renderDriftJson } from '../../drift/render-json.js';
import { renderDriftMarkdown } from '../../drift/render-markdown.js';
import { renderDriftText } from '../../drift/render-text.js';
import { hasDrift, type DriftReport, type HealOutcome } from '../../drift/types.js';
import type { ApplyOutcome } from '../../apply/apply.js';
import { watchDrift, type Sleep } from '../../drift/watch.js';
import { stateDigest } from '../../plan/plan-file.js';
import { toJsonText } from '../../util/printable.js';
import { ListedProblemsError } from '../error-text.js';
import { hashValue } from '../../util/hash.js';
import { applyOnTerminal, applyRunSettings, type ApplyRunOptions } from '../apply-on-terminal.js';
import type { CommandContext, Output } from '../context.js';
import type { HistoryRecord, RecordSummary } from '../../history/types.js';
import type { Diagnostic } from '../../manifest/types.js';
import { wholeRecord, workspaceSummaries } from '../history-records.js';
import { progressLine, readProgress } from '../progress.js';
import { connectProject, connectService, deploySourceOf, loadDesiredState, planInputs, type ConnectedProject } from '../project.js';
import { workspaceKey } from '../../state/types.js';
import { missingStateError, readCheckedWorkspace } from '../../state/missing-state.js';
import { parseTimeout, resolveTimeoutMs, TIMEOUT_RANGE, type TimeRange } from '../timeout.js';
import { nextCommand } from '../next-command.js';
import { recordedCommand } from '../recorded-command.js';
import { takeOverCommands, withTakeOverCommands } from '../take-over.js';
import { sleepUnlessAborted } from '../../util/sleep.js';
import { someOf } from '../../util/plural.js';
import { errorMessage } from '../../secrets/error-message.js';

type DriftFormat = 'text' | 'json' | 'markdown';

interface DriftCommandOptions extends ApplyRunOptions {
  format?: DriftFormat;
  notify?: string;
  notifyFormat?: NotifyFormat;
  heal?: boolean;
  watch?: string;
}

/** `--watch` intervals: at least 10 s, as each check reads every agent of the manifests. */
const WATCH_RANGE: TimeRange = { ...TIMEOUT_RANGE, minMs: 10_000, words: 'from 10 s to 24 h', examples: '30s, 5m or 1h' };

/** How many fields a heal leaves that its line names before counting the rest: the report above lists them all. */
const FIELDS_LEFT_SHOWN = 5;

/**
 * How drift loads the manifests: a `${env:…}` without a default whose variable is not set (a
 * scheduled job holds no secrets) is withheld rather than an error, and its place is not compared
 * (src/drift/not-compared.ts). Manifests with errors stop the run before the service is read.
 */
function driftLoad(options: DriftCommandOptions): DriftCommandOptions & { withholdUnsetEnv: true } {
  return { ...options, withholdUnsetEnv: true };
}

/** What manifests with errors stop: said in drift's words (plan's are "nothing was planned"). */
function notDone(options: DriftCommandOptions): string {
  return `the service was not read: nothing was compared${options.heal ? ' or healed' : ''}`;
}

/** Exit codes: no drift, drift. */
const EXIT_NO_DRIFT = 0;
const EXIT_DRIFT = 2;

/** `options`: the run's, so a note on another environment's apply or on an agent the service lost names the commands that settle it. */
function renderDrift(report: DriftReport, format: DriftFormat, ctx: CommandContext, options: DriftCommandOptions, warnings?: readonly Diagnostic[]): string {
  if (format === 'json') return renderDriftJson(report, warnings);
  const takeOver = takeOverCommands(options);
  const applyCommand = nextCommand('apply', options);
  if (format === 'markdown') return renderDriftMarkdown(report, { takeOver, applyCommand, redact: (text) => ctx.secrets.redact(text) });
  return renderDriftText(report, { color: ctx.color, takeOver, applyCommand });
}

/** What stays different after a heal: any resource with a field the heal does not settle, or none at all (gone from the service). */
function differsAfterHeal(report: DriftReport): boolean {
  return report.resources.some((r) => r.fields.length === 0 || r.fields.some((f) => !settledByHeal(r, f)));
}

interface DriftRun {
  options: DriftCommandOptions;
  ctx: CommandContext;
  notifyUrl: URL | undefined;
  timeoutMs: number;
}

async function notify(run: DriftRun, report: DriftReport): Promise<void> {
  if (!run.notifyUrl) return;
  const body = notificationBody(report, run.options.notifyFormat ?? 'json', (text) => run.ctx.secrets.redact(text), nextCommand('apply', run.options));
  await sendNotification(run.notifyUrl, body, { timeoutMs: run.timeoutMs });
}

/**
 * What `--heal` will put back, found before anything is printed or posted: an agent it cannot heal
 * stops the run first. The ledger is walked as summaries, newest first, until every healable agent
 * has its record; only those records are read whole (a long ledger of large records would fill memory).
 */
async function prepareHeal(run: DriftRun, project: ConnectedProject, { report, decidedOn }: Checked): Promise<HealPlan | undefined> {
  const { ctx } = run;
  const store = project.backend.history;
  const applyCommand = nextCommand('apply', run.options);
  const chooser = new HealRecordChooser<RecordSummary>(report, applyCommand);
  if (!chooser.complete) for await (const summary of workspaceSummaries(store, project.workspaceKey, ctx)) if (chooser.add(summary)) break;
  const choice = chooser.choice();
  const whole: HistoryRecord[] = [];
  for (const summary of choice.records) whole.push(await wholeRecord(store, summary, ctx));
  const healing = healPlan(choice, whole, { env: ctx.env, current: project.desired, onSecret: (value) => ctx.secrets.add(value), fingerprintKey: planInputs(project, ctx).fingerprintKey, applyCommand, notCompared: report.notCompared });
  return healing && { ...healing, decidedOn };
}

/** A drift check, with the state's record it was made on (`stateDigest`): a heal decided on it is refused under the lock if another run wrote the state since. */
interface Checked {
  report: DriftReport;
  decidedOn: string | undefined;
}

async function checkRecorded(options: Parameters<typeof checkDrift>[0]): Promise<Checked> {
  let decidedOn: string | undefined;
  const report = await checkDrift({ ...options, onWorkspace: (workspace) => (decidedOn = stateDigest(workspace, options.fingerprintKey)) });
  return { report, decidedOn };
}

/**
 * Puts the healable agents back through the normal lock, plan, confirmation and apply, recorded as a
 * heal; `out`: where the apply's plan and progress go. The exit code: the apply's when it did not
 * complete, else whether anything still differs.
 */
async function heal(run: DriftRun, project: ConnectedProject, report: DriftReport, healing: HealPlan | undefined, out: CommandContext): Promise<{ code: number; outcome?: HealOutcome }> {
  const { ctx, options } = run;
  if (!healing) {
    // Unlabelled agents (last applied under another API key) may have been changed outside voxform: which side moved is not known.
    const unknown =
      report.summary.unrecorded > 0
        ? 'this state records no apply of the workspace: name the one the project was applied with, --state'
        : report.summary.unlabelled > 0
          ? 'the unlabelled ones were last applied under another API key: apply once to label them'
          : undefined;
    if (unknown) out.stdout.write(`Nothing to heal: no agent is known to be changed outside voxform (${unknown}).\n`);
    else {
      // What else differs (a number's binding, an agent's knowledge files, an agent gone from the service) is named with what settles it.
      const left = leftAfterHealNote(report, nextCommand('apply', run.options), 'Still differs');
      const needing = report.resources.some((r) => r.healNeeds !== undefined);
      const nothing = needing ? 'no difference is one --heal can put back in this run (an agent changed outside voxform whose heal needs a variable not set)' : "no difference is one --heal puts back (an agent's name or configuration changed outside voxform)";
      out.stdout.write(`Nothing to heal: ${nothing}.\n${left ? `${left}\n` : ''}`);
    }
    return { code: hasDrift(report) ? EXIT_DRIFT : EXIT_NO_DRIFT };
  }
  out.stdout.write(`Healing ${[...healing.desired.agents.keys()].join(', ')}: back to the configuration last applied (${healing.records.join(', ')}).\n`);
  if (healing.left.length > 0) out.stdout.write(`Left as the service holds them: ${someOf(healing.left.map(({ address, field }) => `${address} ${field.field.path} (${classLabel(field)})`), FIELDS_LEFT_SHOWN, '; ')}.\n`);
  out.stdout.write('\n');
  // What is deployed is recorded configurations, not the work tree's: its changes do not count.
  const source = { ...(await deploySourceOf(project.desired, ctx, { workTree: false })), healOf: healing.records };
  const { code, outcome } = await applyOnTerminal(
    {
      ...planInputs({ ...project, desired: healing.desired }, ctx),
      decidedOn: healing.decidedOn,
      files: [],
      ...applyRunSettings(options),
      command: recordedCommand('drift --heal', options),
      history: project.backend.history,
      source,
    },
    out,
    { chosen: run.options, rerun: nextCommand('drift --heal', run.options), recorded: 'the configurations last applied', words: { run: 'Heal', done: 'healed' } },
  );
  // After the verdict: what the heal left as it was, and what deals with it.
  const left = code === 0 ? leftAfterHealNote(report, nextCommand('apply', run.options)) : undefined;
  if (left) out.stdout.write(`${left}\n`);
  const healOutcome = outcomeOfHeal(report, healing, outcome);
  return { code: code !== 0 ? code : differsAfterHeal(report) ? EXIT_DRIFT : EXIT_NO_DRIFT, outcome: healOutcome };
}

/**
 * `--heal` for one check, as both a single run and a watch do it: heals (`heal`), then posts the
 * report once, with what the heal put back and what it did not; `post`: whether this check posts at
 * all (a watch posts only a change). An error of the heal posts nothing. The report returned carries
 * the heal's outcome.
 */
async function healAndNotify(run: DriftRun, project: ConnectedProject, report: DriftReport, healing: HealPlan | undefined, out: CommandContext, post = true): Promise<{ code: number; healed: DriftReport }> {
  const { code, outcome } = await heal(run, project, report, healing, out);
  const healed: DriftReport = outcome ? { ...report, heal: outcome } : report;
  if (post) await notify(run, healed);
  return { code, healed };
}

/** Which healable agents the heal's apply put back (all, when it found nothing left to do) and which it did not. */
function outcomeOfHeal(report: DriftReport, healing: HealPlan, outcome: ApplyOutcome): HealOutcome {
  const healable = report.resources.filter((r) => r.healable).map((r) => r.address);
  const healed = new Set(outcome.status === 'nothing_to_do' ? healable : outcome.applied);
  return { records: healing.records, healed: healable.filter((address) => healed.has(address)), failed: healable.filter((address) => !healed.has(address)) };
}

/**
 * `--heal` applies, so a state that lost the workspace refuses it as it refuses apply (`state_missing`),
 * before the service is read: such a state knows of nothing changed outside voxform, so the heal would
 * put nothing back and never reach apply's own refusal. `--allow-missing-state` lets it report.
 */
async function refuseMissingState(run: DriftRun, project: ConnectedProject): Promise<void> {
  if (run.options.allowMissingState) return;
  const { missingState } = await readCheckedWorkspace(project.backend, project.workspaceKey);
  if (missingState) throw missingStateError(missingState, project.workspaceKey);
}

/** One check, printed, posted and healed as asked; `warnings`: the manifests' warnings, for the JSON report to carry. */
async function checkOnce(run: DriftRun, project: ConnectedProject, format: DriftFormat, warnings?: readonly Diagnostic[]): Promise<number> {
  const { ctx } = run;
  if (run.options.heal) await refuseMissingState(run, project);
  const status = progressLine(ctx);
  const checked = await checkRecorded({
    ...planInputs(project, ctx),
    onReadProgress: (read, total) => status.update(readProgress(read, total)),
  }).finally(() => status.done());
  const { report } = checked;
  if (!run.options.heal) {
    // Posted before the report is printed: a notification that fails prints only the error (one JSON document).
    await notify(run, report);
    ctx.stdout.write(renderDrift(report, format, ctx, run.options, warnings));
    return hasDrift(report) ? EXIT_DRIFT : EXIT_NO_DRIFT;
  }
  // Found before anything is printed or posted: an agent it cannot heal stops the run first.
  const healing = await prepareHeal(run, project, checked);
  // The text report comes before the heal's plan; a JSON or Markdown report stays one document on
  // stdout, printed after the heal with its outcome, the heal's plan and progress on stderr.
  if (format === 'text') ctx.stdout.write(renderDrift(report, format, ctx, run.options, warnings));
  const healRun = healAndNotify(run, project, report, healing, format === 'text' ? ctx : { ...ctx, stdout: ctx.stderr });
  // A heal refused or failed with an error (the state locked by another run) still leaves the report on stdout, the error on stderr.
  const { code, healed } = await healRun.catch((error: unknown) => {
    if (format !== 'text') ctx.stdout.write(renderDrift(report, format, ctx, run.options, warnings));
    throw error;
  });
  if (format !== 'text') ctx.stdout.write(renderDrift(healed, format, ctx, run.options, warnings));
  return code;
}

/** What a notification is about: a new one is posted only when this changes. */
function driftKey(report: DriftReport): string {
  return hashValue(report.resources.map((r) => [r.address, r.fields.map((f) => [f.field.path, f.class])]));
}

/** The time a watch waits or retries in: the real clock's, or a test's. */
interface WatchClock {
  sleep: Sleep;
  random: () => number;
}

const REAL_CLOCK: WatchClock = { sleep: sleepUnlessAborted, random: Math.random };

/** An error as one line of the watch's stderr: `code: sentence` (its own full stop dropped before what follows). */
function errorLine(error: unknown): string {
  const message = error instanceof ListedProblemsError ? `${error.code}: ${error.textMessage}` : isVoxformError(error) ? `${error.code}: ${error.message}` : errorMessage(error);
  return (message.split('\n')[0] ?? '').replace(/\.$/, '');
}

/**
 * The project as a fresh `voxform drift` would see it at this check: the manifests loaded again (a
 * `git pull` between checks counts), before any request; the service connected again only when the
 * manifests now name another one. The state backend stays open: each check reads the state anew.
 * What loading printed (diagnostics, warnings) is printed again only when it changed.
 */
async function reloadProject(run: DriftRun, previous: ConnectedProject, printed: { text: string }): Promise<ConnectedProject> {
  const { ctx, options } = run;
  let text = '';
  const stderr: Output = { ...ctx.stderr, write: (chunk: string) => void (text += chunk) };
  try {
    const desired = await loadDesiredState(driftLoad(options), { ...ctx, stderr }, { outcome: 'the service was not read' });
    const sameService = options.local === true || (desired.baseUrl === previous.desired.baseUrl && desired.region === previous.desired.region);
    const connection = sameService ? previous.connection : await connectService(options, desired, ctx);
    return { ...previous, desired, connection, workspaceKey: workspaceKey(desired.environment, connection.serviceId) };
  } catch (error) {
    // The problems that stopped the load are part of what it says: printed again only when they change.
    if (error instanceof ListedProblemsError) text += error.listing;
    throw error;
  } finally {
    if (text !== printed.text) ctx.stderr.write(text);
    printed.text = text;
  }
}

/** Why a check did not run at all: its manifests did not load, so nothing was asked of the service. */
class ManifestsNotLoaded extends Error {
  constructor(readonly reason: unknown) {
    super('the manifests did not load');
  }
}

/**
 * Checks every interval until Ctrl-C or SIGTERM: one line per check on stdout, exit 130 at the stop.
 * Each check starts from the manifests and state as they are then (`reloadProject`); one whose
 * manifests no longer load says so on stderr and the watch waits its interval (no request was made,
 * so there is nothing to back off from).
 */
async function watch(run: DriftRun, intervalMs: number, format: DriftFormat, clock: WatchClock): Promise<number> {
  const { ctx } = run;
  // Loaded before the watch starts: manifests that do not load stop it at once (exit 1), as a single check.
  const printed = { text: '' };
  const first = await connectProject(driftLoad(run.options), { ...ctx, stderr: { ...ctx.stderr, write: (chunk: string) => ((printed.text += chunk), ctx.stderr.write(chunk)) } }, { outcome: notDone(run.options) });
  // As a single --heal, at once; a state lost later heals nothing (nothing is known changed outside voxform), and its checks still post.
  if (run.options.heal) await refuseMissingState(run, first);
  const stop = new AbortController();
  void ctx.interrupted().then(() => stop.abort());
  let notified: string | undefined;
  let project: ConnectedProject | undefined;
  // The heal's plan and progress go to stderr: stdout stays one line per check.
  const healOut = { ...ctx, stdout: ctx.stderr };
  await watchDrift({
    intervalMs,
    signal: stop.signal,
    sleep: clock.sleep,
    random: clock.random,
    check: async () => {
      try {
        // The first check uses the project the run started with: its manifests were loaded just now.
        project = project === undefined ? first : await reloadProject(run, project, printed);
      } catch (error) {
        throw new ManifestsNotLoaded(error);
      }
      // A check only reads: a stop cuts its reads short rather than wait for their answers.
      const checked = await checkRecorded({ ...planInputs(project, ctx), client: project.connection.client.withSignal(stop.signal, { abortOnTheWire: true }) });
      const { report } = checked;
      const key = driftKey(report);
      // The first check posts only drift; later ones post each change, the return to no drift too.
      const post = key !== notified && (notified !== undefined || hasDrift(report));
      const line = format === 'json' ? `${toJsonText(driftToJson(report))}\n` : `${report.checkedAt} ${oneLine(report)}\n`;
      if (!run.options.heal || !report.resources.some((r) => r.healable)) {
        // Posted before the line is printed, as a single check is: one not delivered is a failed check, its line on stderr alone.
        if (post) await notify(run, report);
        notified = key;
        ctx.stdout.write(line);
        return;
      }
      // As a single check with --heal: the line, then the heal, then one message with its outcome.
      ctx.stdout.write(line);
      // The heal's apply asks for its own graceful stop (its line, the writes it waits for); once it is over, a signal meets the watch's again.
      const { code } = await healAndNotify(run, project, report, await prepareHeal(run, project, checked), healOut, post).finally(() => void ctx.interrupted());
      // Only once posted: a heal that stopped with an error posted nothing, and the next check tries again.
      notified = key;
      if (code !== EXIT_NO_DRIFT && code !== EXIT_DRIFT) throw new VoxformError('apply_failed', 'The heal did not complete (see above).', {
        hint: 'Run `voxform drift` to see what still differs, then `voxform drift --heal` again.',
      });
    },
    madeNoRequest: (error) => error instanceof ManifestsNotLoaded,
    onError: (error, nextMs) => {
      const what = error instanceof ManifestsNotLoaded ? `skipped: ${errorLine(error.reason)}` : `failed: ${errorLine(error)}`;
      ctx.stderr.write(`${new Date().toISOString()} check ${what}; next check in ${Math.round(nextMs / 1000)} s\n`);
    },
  });
  throw new VoxformError('interrupted', 'voxform drift --watch stopped at your request.', { hint: 'Run the command again to watch again.' });
}

function watchInterval(options: DriftCommandOptions, format: DriftFormat): number | undefined {
  if (options.watch === undefined) return undefined;
  const ms = parseTimeout(options.watch, '--watch', WATCH_RANGE);
  if (format === 'markdown') throw new VoxformError('invalid_argument', '--watch prints one line per check, which a Markdown comment cannot be.', { hint: 'Use --format text (the default) or --format json with --watch.' });
  if (options.heal && !options.autoApprove) {
    throw new VoxformError('approval_required', '--watch --heal puts agents back with no one to ask.', { hint: 'Pass --auto-approve with it, or leave out --heal to only report.' });
  }
  return ms;
}

/** `clock`: what `--watch` waits with (a test's instead of the real one). */
export async function run(options: DriftCommandOptions, ctx: CommandContext, clock: WatchClock = REAL_CLOCK): Promise<number> {
  const format = options.format ?? 'text';
  const intervalMs = watchInterval(options, format);
  if (options.heal && !options.autoApprove && !ctx.confirm) {
    throw new VoxformError('approval_required', 'Refusing to heal without approval: there is no terminal to ask on.', {
      hint: 'Pass --auto-approve with --heal (the plan is printed before it runs).',
    });
  }
  if (options.notifyFormat !== undefined && options.notify === undefined) {
    throw new VoxformError('invalid_option', '--notify-format says what --notify posts, and there is no --notify.', { hint: 'Add --notify URL (the receiver), or leave out --notify-format.' });
  }
  const notifyUrl = options.notify === undefined ? undefined : parseNotifyUrl(options.notify);
  // A chat tool's webhook URL holds its token: it is never printed.
  if (notifyUrl) ctx.secrets.add(notifyUrl.href);
  const timeoutMs = resolveTimeoutMs(options.timeout, ctx.env);
  const driftRun: DriftRun = { options, ctx, notifyUrl, timeoutMs };
  // In JSON the manifests' warnings are a field of the report, not text on stderr, as a JSON plan's are (docs/drift.md).
  const warnings: Diagnostic[] | undefined = format === 'json' ? [] : undefined;
  const checking = intervalMs === undefined ? checkOnce(driftRun, await connectProject(driftLoad(options), ctx, { warnings, outcome: notDone(options) }), format, warnings) : watch(driftRun, intervalMs, format, clock);
  // drift takes no --take-over: a refusal (of a heal's plan) names the plan and apply that do.
  return checking.catch((error: unknown) => {
    throw withTakeOverCommands(error, options, 'drift');
  });
}
