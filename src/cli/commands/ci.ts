/**
 * `voxform ci run`: what the GitHub Action and the GitLab component run. It runs one voxform
 * command in this process (plan, apply, test, promote, drift) with files it chooses, then reports
 * it: the job summary, one comment per kind and environment on the pull or merge request (edited in
 * place, found by its marker), the review's labels, and after an apply a comment on the review that
 * merged the commit. Its exit code is the command's, so the job fails as the command would.
 */
import { rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { connectHost } from '../../ci/connect-host.js';
import type { Provider, ReviewHost } from '../../ci/host.js';
import { checkEnvironmentName, type ReportKind } from '../../ci/markers.js';
import { publishReport, type PublishResult } from '../../ci/publish.js';
import { applyReport, outputReport, planReport, testReport, type Report, type ReportLinks } from '../../ci/reports.js';
import { registerCiTokens, runUrl, summaryFile } from '../../ci/runner-env.js';
import { readTestReport } from '../../conversations/read-json.js';
import { VoxformError } from '../../errors.js';
import { errorText } from '../error-text.js';
import { makeKeptFolder } from '../../project-files/kept-files.js';
import { readPlanFile } from '../../plan/plan-file.js';
import { planFromJson } from '../../plan/saved-plan.js';
import type { Plan } from '../../plan/types.js';
import { EXIT_INTERRUPTED, type CommandContext, type Output } from '../context.js';
import { describeWriteFailure, fileOnTheWay, isFileSystemError, pathInTheWay } from '../../util/atomic-write.js';
import { terminalText } from '../../util/printable.js';
import { ciReviewNumber } from '../../util/run-identity.js';

export interface CiRunCommandOptions {
  provider: Provider;
  command: ReportKind;
  env?: string;
  file?: string[];
  outDir: string;
  commandArgs?: string;
}

const PLAN_FILE = 'plan.json';
const TESTS_FILE = 'tests.json';

/** The files in --out-dir that the command writes or reads and ci run reads after it: the saved plan, the test report. */
interface OutFiles {
  plan: string;
  tests: string;
}

/**
 * The report file a command writes for ci run to read, removed before it runs: the Action keeps one
 * --out-dir for every step of a job, so a report left by an earlier step (another environment, a
 * run before a test file broke) would otherwise be read as this run's when this one writes none.
 * apply reads plan.json too, but as its input, the reviewed plan: it writes no report.
 */
function reportFileOf(command: ReportKind, files: OutFiles): string | undefined {
  if (command === 'plan') return files.plan;
  if (command === 'test') return files.tests;
  return undefined;
}

/**
 * Where the report says the saved plan or the test report is kept: on GitHub, the artifact the
 * Action uploads it as (one per environment, named as action.yml names it); on GitLab, the job's.
 */
function artifactWhere(provider: Provider, kind: 'plan' | 'tests', environment: string | undefined): string {
  return provider === 'github' ? `artifact \`voxform-${kind}-${environment ?? 'default'}\`` : 'the job artifacts';
}

/**
 * Options of the commands that `ci run` sets itself, with why: what the command writes and where,
 * and what its exit code means, are what the report is made from.
 */
const OWNED_OPTIONS: Record<string, string> = {
  '--out': 'ci run saves the plan and the test report in --out-dir, where the report and the Action read them',
  '--format': 'ci run chooses the output the report is made from (the job log shows the text)',
  '--detailed-exitcode': 'ci run reports changes in the comment, the summary and the labels, and exits 0 for a plan with changes, so the job does not fail on one',
  '--env': "ci run names the environment with its own --env (the Action's `environment` input), which the comment's marker, the artifact and the summary are named by",
  '--to': "ci run promotes to its own --env (the Action's `environment` input), which the summary and the job's environment are named by",
};

/** The operator's extra arguments, refused when they name an option `ci run` owns. */
function extraArguments(commandArgs: string | undefined): string[] {
  const extra = (commandArgs ?? '').split(/\s+/).filter((arg) => arg !== '');
  for (const arg of extra) {
    const option = arg.split('=', 1)[0] as string;
    const why = Object.hasOwn(OWNED_OPTIONS, option) ? OWNED_OPTIONS[option] : undefined;
    if (why !== undefined) {
      throw new VoxformError('invalid_argument', `--command-args cannot hold ${option}: ${why}.`, { hint: `Take ${option} out of --command-args (the Action's \`args\` input); see docs/ci.md.` });
    }
  }
  return extra;
}

/** The command line run for `options`: the files it writes are voxform's choice, the rest the operator's. */
function commandLine(options: CiRunCommandOptions, files: OutFiles): string[] {
  const selection = [...(options.env ? ['--env', options.env] : []), ...(options.file ?? []).flatMap((file) => ['-f', file])];
  const extra = extraArguments(options.commandArgs);
  switch (options.command) {
    case 'plan':
      return ['plan', ...selection, '--out', files.plan, ...extra];
    case 'apply':
      // A saved plan names its manifests and environment itself.
      return ['apply', files.plan, ...extra];
    case 'test':
      return ['test', ...selection, '--against', 'both', '--format', 'json', '--out', files.tests, ...extra];
    case 'promote':
      if (!options.env) throw new VoxformError('invalid_argument', '`voxform ci run --command promote` needs --env: the environment promoted to.', { hint: 'Add --env NAME, the environment to promote to.' });
      return ['promote', '--to', options.env, ...(options.file ?? []).flatMap((file) => ['-f', file]), ...extra];
    case 'drift':
      return ['drift', ...selection, ...extra];
  }
}

/**
 * The command's output and error streams, each also kept, together in the order written as the job
 * log shows them: drift and promote are quoted in their report, and a failure's report quotes why.
 * What is kept is the text as a file gets it: voxform's own colours dropped, any other control escaped.
 */
function recording(ctx: CommandContext): { stdout: Output; stderr: Output; text: () => string } {
  let text = '';
  const kept = (output: Output): Output => ({ ...output, write: (chunk: string) => ((text += terminalText(chunk, false)), output.write(chunk)) });
  return { stdout: kept(ctx.stdout), stderr: kept(ctx.stderr), text: () => text };
}

/**
 * An apply of `--env NAME` applies only a plan of that environment: its report goes under NAME's
 * marker, summary and artifact names, and a plan the artifact holds for another (a job wired to the
 * wrong artifact, an environment-less plan) would be applied to that other under NAME's review.
 * Refused before apply runs, as a stale plan is; a plan not there or not a plan is apply's to refuse.
 */
async function checkPlanEnvironment(options: CiRunCommandOptions, files: OutFiles): Promise<void> {
  if (options.command !== 'apply' || options.env === undefined) return;
  const saved = await readPlanFile(files.plan).catch(() => undefined);
  if (saved === undefined || saved.environment === options.env) return;
  const made = saved.environment === null ? 'without an environment' : `for the environment ${saved.environment}`;
  throw new VoxformError('plan_stale', `The saved plan ${PLAN_FILE} was made ${made}; this run applies --env ${options.env}. Nothing was applied.`, {
    hint: `Apply the plan \`voxform ci run --command plan --env ${options.env}\` saved (kept in ${artifactWhere(options.provider, 'plan', options.env)}), or give this run the plan's own --env.`,
    details: { reasons: ['made for another environment'], resources: [] },
  });
}

async function savedPlan(file: string): Promise<Plan | undefined> {
  try {
    return planFromJson(await readPlanFile(file), file);
  } catch (error) {
    if (error instanceof VoxformError && error.code === 'plan_unreadable') return undefined;
    throw error;
  }
}

/** What the command left: its exit code, what it printed, its files. */
interface CommandOutcome {
  exitCode: number;
  output: string;
  /** Undefined when --out-dir was refused and the command did not run: nothing there is this run's, so nothing there is read. */
  files: OutFiles | undefined;
}

async function reportOf(options: CiRunCommandOptions, { exitCode, output, files }: CommandOutcome, links: ReportLinks, ctx: CommandContext): Promise<Report> {
  // Redacted as the report is made: every secret the run met by then is hidden, short ones too
  // (what a command printed, an error quoting what it was given, goes to the review's readers).
  const redact = (text: string) => ctx.secrets.redactQuoted(text);
  const failure = { output, redact };
  switch (options.command) {
    case 'plan':
      return planReport(exitCode === 0 && files ? await savedPlan(files.plan) : undefined, options.env, links, failure);
    case 'apply': {
      const plan = files ? await savedPlan(files.plan) : undefined;
      return applyReport(plan, exitCode, options.env ?? plan?.environment ?? undefined, links, failure);
    }
    case 'test': {
      // Exit 1 is also "a test failed": the report is there then; without one, the run stopped before it.
      const run = exitCode <= 1 && files ? await readTestReport(files.tests).catch(() => undefined) : undefined;
      return testReport(run, exitCode, options.env, links, failure);
    }
    case 'promote':
    case 'drift':
      return outputReport(options.command, output, exitCode, options.env, redact);
  }
}

function describeResult(result: PublishResult, provider: Provider): string {
  const review = provider === 'github' ? `pull request #${result.review}` : `merge request !${result.review}`;
  // Each host's own word: GitLab calls a merge request's comments notes.
  const comment = provider === 'github' ? 'comment' : 'note';
  const parts = [
    result.comment === 'none' ? 'no pull or merge request to comment on' : result.comment === 'failed' ? `no ${comment} posted (the error below says why)` : `${comment} ${result.comment} on ${review}`,
  ];
  const labels = [...result.labelsAdded.map((label) => `+${label}`), ...result.labelsRemoved.map((label) => `-${label}`)];
  if (labels.length > 0) parts.push(result.labels === 'failed' ? `labels ${labels.join(' ')} not set (the error below says why)` : `labels ${labels.join(' ')}`);
  if (result.summary) parts.push('job summary written');
  return `voxform ci: ${parts.join('; ')}.\n`;
}

/**
 * --out-dir made and the report an earlier step left there removed, before the command runs: a file
 * where the folder goes, or a folder where the report goes, is the option's mistake, said as such.
 */
async function prepareOutDir(outDir: string, reportFile: string | undefined, cwd: string): Promise<void> {
  const shown = (where: string) => path.relative(cwd, where) || '.';
  const elsewhere = 'choose another folder with --out-dir DIR';
  const file = await fileOnTheWay(outDir);
  if (file !== undefined) throw pathInTheWay('file', shown(file), '--out-dir needs a folder', elsewhere);
  await makeKeptFolder(outDir).catch(unwritable(`Cannot make the folder ${shown(outDir)} (--out-dir)`));
  if (reportFile === undefined) return;
  if ((await stat(reportFile).catch(() => undefined))?.isDirectory()) {
    const report = path.basename(reportFile) === PLAN_FILE ? 'the plan' : 'the test report';
    throw pathInTheWay('folder', shown(reportFile), `voxform ci writes ${report}`, elsewhere);
  }
  await rm(reportFile, { force: true }).catch(unwritable(`Cannot remove ${shown(reportFile)}, an earlier step's report`));
}

/** A file system's refusal to prepare --out-dir, said as every output's is; the command did not run. */
function unwritable(what: string): (error: unknown) => never {
  return (error) => {
    if (!isFileSystemError(error)) throw error;
    throw new VoxformError('report_write_failed', `${what}: ${describeWriteFailure(error)}; the command did not run.`, { hint: 'Choose a folder voxform may write with --out-dir DIR.' });
  };
}

/**
 * Runs the command line, then reports it. `runCommandLine` runs one voxform command line in this
 * process with the context given (the CLI's entry passes it: a command does not reach up into it).
 */
export async function run(options: CiRunCommandOptions, ctx: CommandContext, runCommandLine: (argv: string[], ctx: CommandContext, options: { errorsAsText: boolean }) => Promise<number>): Promise<number> {
  if (options.env) checkEnvironmentName(options.env);
  const outDir = path.resolve(ctx.cwd, options.outDir);
  const files: OutFiles = { plan: path.join(outDir, PLAN_FILE), tests: path.join(outDir, TESTS_FILE) };
  const argv = commandLine(options, files);
  const reportFile = reportFileOf(options.command, files);
  // Registered before the command runs (main does too): its output and the report quoting it never show a token.
  registerCiTokens(ctx.env, ctx.secrets);
  let host: ReviewHost | undefined;
  const connect = () => (host ??= connectHost(options.provider, ctx.env, ctx.secrets));
  ctx.onExit(() => host?.close());
  // The runner's variables the report needs are read before anything is done, so that a bad one (no
  // token, a malformed project or commit) stops the run having changed nothing: the host's, when
  // there is a review to report on, and an apply's commit, whose merged review it reports on.
  const commit = options.command === 'apply' ? connect().jobCommit() : undefined;
  if (ciReviewNumber(options.provider, ctx.env) !== undefined) connect();
  // An apply's review is the one that merged its commit: asked first, so that the apply's record names it.
  const merged = commit !== undefined ? await outcomeOf(() => connect().mergedReview(commit)) : undefined;
  const recorded = recording(ctx);
  // --out-dir refused (GitLab's is in the checkout, where a merge request may put a file or a link
  // in its way) fails the run as the command failing would: said on the review, not only in the log.
  const prepared = await prepareOutDir(outDir, reportFile, ctx.cwd)
    .then(() => checkPlanEnvironment(options, files))
    .then(
      () => true,
      (error: unknown) => {
        if (!(error instanceof VoxformError)) throw error;
        recorded.stderr.write(errorText(error));
        return false;
      },
    );
  // Whatever format a command writes its report in, the log and the review quote its errors for people, as plan's.
  const exitCode = prepared ? await runCommandLine(argv, { ...ctx, stdout: recorded.stdout, stderr: recorded.stderr, review: merged?.value }, { errorsAsText: true }) : 1;
  if (exitCode === EXIT_INTERRUPTED) return exitCode;
  const links: ReportLinks = {
    runUrl: runUrl(options.provider, ctx.env),
    savedPlanWhere: artifactWhere(options.provider, 'plan', options.env),
    savedPlanFile: PLAN_FILE,
    testReportWhere: artifactWhere(options.provider, 'tests', options.env),
    testReportFile: TESTS_FILE,
  };
  const report = await reportOf(options, { exitCode, output: recorded.text(), files: prepared ? files : undefined }, links, ctx);
  // Every other command reports on the review the job runs for, if any (a scheduled drift check has none).
  const review = () => (merged ? merged.get() : ciReviewNumber(options.provider, ctx.env));
  const result = await publishReport(report, { review, host: connect, summaryFile: summaryIn(ctx, options.provider) });
  ctx.stderr.write(describeResult(result, options.provider));
  // The command ran and is published where it could be; a place that failed fails the job, each error printed.
  const last = result.failures.at(-1);
  for (const failure of result.failures.slice(0, -1)) {
    if (!(failure instanceof VoxformError)) throw failure;
    ctx.stderr.write(errorText(failure));
  }
  if (last !== undefined) throw last;
  return exitCode;
}

/**
 * What `ask` gave, or how it failed, kept for later: the host's answer is not worth stopping the
 * command for, and a failure is reported with the comment it prevents (`get` throws it then).
 */
async function outcomeOf<T>(ask: () => Promise<T>): Promise<{ value: T | undefined; get: () => T }> {
  try {
    const value = await ask();
    return { value, get: () => value };
  } catch (error) {
    return {
      value: undefined,
      get: () => {
        throw error;
      },
    };
  }
}

/** The job summary file, a relative path read from the working directory, as every path the run names. */
function summaryIn(ctx: CommandContext, provider: 'github' | 'gitlab'): string | undefined {
  const file = summaryFile(provider, ctx.env);
  return file === undefined ? undefined : path.resolve(ctx.cwd, file);
}
