/**
 * `voxform test` against live agents: the run's evidence recorded in the workspace's ledger
 * (src/promote/evidence.ts), for `voxform promote`'s `tests` gate. Only a run of the whole suite, as
 * its files ask, is evidence; any other run says why it left none. A run that cannot be recorded
 * still reports its tests. Also the suite of the checkout `promote` runs in, which the gate compares
 * the runs' suites with.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { MAX_TEST_BYTES_PER_RUN } from '../conversations/budgets.js';
import { findTestSuite, isFoundIn, type TestSuite } from '../conversations/find-test-files.js';
import { MAX_TEST_FILE_BYTES } from '../conversations/load-tests.js';
import type { TestMode } from '../conversations/recordings/recordings.js';
import { deployer, uncommittedFiles } from '../history/source.js';
import type { DesiredState } from '../manifest/types.js';
import { CheckoutFiles, readProjectFile } from '../project-files/checkout-files.js';
import { isInside } from '../project-files/guarded-read.js';
import { manifestProjectRoot } from '../project-files/manifest-files.js';
import { changedDuringRun, liveConfigurationHashes, suiteDigest, testRunRecord } from '../promote/evidence.js';
import type { CheckoutSuite } from '../promote/gates.js';
import { workspaceKey } from '../state/types.js';
import type { TestFile, TestRun } from '../conversations/types.js';
import { fingerprintKey, sha256 } from '../util/hash.js';
import { ledgerSealKey } from '../history/seal.js';
import { shellWord } from '../util/shell-word.js';
import { plural, someOf } from '../util/plural.js';
import { controlsAsQuestionMarks, printable } from '../util/printable.js';
import type { Connection } from './connection.js';
import type { CommandContext } from './context.js';
import { deployedFiles, deploySourceOf, openOperatorBackend, type ProjectOptions } from './project.js';
import { errorMessage } from '../secrets/error-message.js';

interface TestEvidence {
  /** Records the run's live verdicts; a warning instead when an agent's configuration changed during it. */
  record(run: TestRun): Promise<void>;
}

/** Where the suite is looked for: beside the first manifest, in the folder -f names, else beside the first file read. */
export function manifestPlaces(options: ProjectOptions, ctx: CommandContext, desired: DesiredState): string[] {
  return options.file?.length ? options.file.map((given) => path.resolve(ctx.cwd, given)) : desired.files;
}

/** The suite of the manifests: what `voxform test` without paths reads. */
export function testSuiteOf(options: ProjectOptions, ctx: CommandContext, desired: DesiredState): Promise<TestSuite> {
  return findTestSuite(ctx.cwd, manifestPlaces(options, ctx, desired));
}

/** How the run was asked for, as far as it decides whether the run is evidence. */
interface RunRequest {
  args?: string[] | undefined;
  agent?: string[] | undefined;
  grep?: string | undefined;
  repeat?: number | undefined;
  skipJudge?: boolean | undefined;
  mode: TestMode;
}

const shown = (ctx: CommandContext, file: string) => path.relative(ctx.cwd, file) || file;

/**
 * Why this run is no evidence for the `tests` gate, as a clause after "it"; undefined when it is:
 * it ran, live, exactly the suite's files (what a run without paths reads, and there is one), every
 * test of them as its file asks: not narrowed, not replayed, the judge's checks not skipped, each
 * test repeated as often as its own `repeat:` says. A skip the suite itself makes (`mock_tools:`
 * against the live agent) is the suite's: every live run of it has the same.
 */
export function whyNoEvidence(request: RunRequest, ctx: CommandContext, suite: TestSuite, ran: readonly TestFile[]): string | undefined {
  if (request.mode === 'replay' || request.mode === 'auto') return `answers from recordings (--mode ${request.mode})`;
  if (request.grep !== undefined) return 'is narrowed by --grep';
  if (request.agent !== undefined) return 'is narrowed by --agent';
  const tests = ran.flatMap((file) => file.tests);
  if (request.skipJudge && tests.some((test) => test.needsModel)) return "skips the judge's checks and simulated callers (--skip-judge)";
  const repeat = request.repeat;
  const changed = repeat === undefined ? undefined : tests.find((test) => test.repeat !== repeat);
  if (changed) return `runs each test ${plural(repeat as number, 'time')}, where "${printable(changed.name)}" asks for ${changed.repeat} (--repeat)`;
  if (suite.files.length === 0) return `runs no suite: a run without paths reads ${shown(ctx, suite.folder)}/ beside the manifest, which holds no test file`;
  const ranFiles = new Set(ran.map((file) => file.path));
  const left = suite.files.filter((file) => !ranFiles.has(file));
  if (left.length > 0) return `leaves out ${plural(left.length, 'test file')} of the suite (${someOf(left.map((file) => shown(ctx, file)), 1)})`;
  const inSuite = new Set(suite.files);
  const outside = [...ranFiles].filter((file) => !inSuite.has(file));
  if (outside.length > 0) return `runs test files outside the suite, ${shown(ctx, suite.folder)}/ (${someOf(outside.map((file) => shown(ctx, file)), 1)})`;
  return undefined;
}

/**
 * Before the run: the live configurations of every agent of the environment, those the tests talk to
 * and the others: the gate takes a run only for a configuration whose every agent it saw as the
 * record holds it, so a run from before another agent's deploy is never taken for it. `suite`: the
 * suite's folder; the run reads all of it, `files`. `command`: the run's, as its record names it.
 */
export async function startTestEvidence(options: ProjectOptions, ctx: CommandContext, desired: DesiredState, connection: Connection, run: { suite: TestSuite; files: readonly TestFile[]; command: string }): Promise<TestEvidence> {
  const { suite, files } = run;
  const names = [...desired.agents.keys()];
  const parallelism = options.parallelism ?? 8;
  const before = await liveConfigurationHashes(desired, connection.client, names, parallelism);
  // Asked of the manifests and the test files the run read: a new or edited test file is no test of the commit.
  const source = deploySourceOf(desired, ctx, { files: [...deployedFiles(desired), ...files.map((file) => file.path)] });
  return {
    async record(testRun) {
      const after = await liveConfigurationHashes(desired, connection.client, names, parallelism);
      const changed = changedDuringRun(before, after);
      if (changed.length > 0) {
        ctx.stderr.write(`warning: the live configuration of ${changed.join(', ')} changed during the run: it is not recorded as evidence for promotion.\n`);
        return;
      }
      const workspace = workspaceKey(desired.environment, connection.serviceId);
      const digest = suiteDigest(suite.folder, files);
      const record = testRunRecord({ workspace, at: new Date(), by: deployer(ctx.env), command: run.command, source: await source, agents: before, suiteDigest: digest, run: testRun, redact: (text) => ctx.secrets.redact(text) });
      if (!record) return;
      const backend = await openOperatorBackend(options, ctx);
      try {
        await backend.history.appendTestRun(record, ledgerSealKey(fingerprintKey(connection.apiKey)));
      } catch (error) {
        ctx.stderr.write(`warning: this run was not recorded in the history: ${errorMessage(error)}\n`);
      }
    },
  };
}

/**
 * The suite of the checkout `promote` runs in, read as `voxform test` reads test files (inside the
 * project, regular files, the same caps), or why it has none a run could have read, and what to do
 * (`testCommand`: the live run of the suite, as the user would paste it). Its test files must be what
 * the commit holds: the gate speaks for the commit, not for edits beside it.
 */
export async function checkoutSuite(options: ProjectOptions, ctx: CommandContext, desired: DesiredState, testCommand: string): Promise<CheckoutSuite> {
  const suite = await testSuiteOf(options, ctx, desired);
  const folder = shown(ctx, suite.folder);
  if (suite.files.length === 0) {
    return { problem: `this checkout has no test suite (${folder}/ beside the manifest holds no test file)`, fix: `put the test files in ${folder}/, commit them and run them: \`${testCommand}\`` };
  }
  const changed = await changedSuiteFiles(ctx, suite);
  // The gate speaks for the commit: what git cannot vouch for is not taken as unchanged.
  if (changed === undefined) {
    return { problem: `git could not list the changes beside its commit in this checkout's ${folder}/ (its answer ran past the length voxform reads)`, fix: `commit or ignore what \`git status -- ${shellWord(folder)}\` lists, then promote again` };
  }
  if (changed.length > 0) {
    // Committed, the files are the suite a run of them recorded: no run is needed when one of them is.
    return { problem: `this checkout's test files hold changes beside its commit (${someOf(changed.map(controlsAsQuestionMarks), 3)})`, fix: `commit them and promote again (run them first if they have not run: \`${testCommand}\`)` };
  }
  const root = await manifestProjectRoot(manifestPlaces(options, ctx, desired), ctx.cwd);
  const budget = { remaining: MAX_TEST_BYTES_PER_RUN, limit: MAX_TEST_BYTES_PER_RUN, noun: 'test files' };
  const checkout = CheckoutFiles.forRun(ctx.env);
  const hashed: Array<{ path: string; contentHash: string }> = [];
  for (const file of suite.files) {
    const outcome = await readProjectFile(file, { root, maxBytes: MAX_TEST_FILE_BYTES, budget }, checkout);
    if (!outcome.ok) return { problem: `this checkout's test file ${shown(ctx, file)} ${outcome.message} (no run reads it)`, fix: `make it a file \`voxform test\` reads, commit it and run the suite: \`${testCommand}\`` };
    hashed.push({ path: file, contentHash: sha256(outcome.bytes) });
  }
  return { digest: suiteDigest(suite.folder, hashed) };
}

/**
 * The suite's test files that differ from the commit (edited, new or removed), as paths from the
 * working directory; undefined when git cannot list them (its answer cut at the runner's cap). Only
 * the files the suite's digest covers count: a recording re-recorded beside them, or any other file
 * in the folder, changes no run of the suite. Git names a folder it does not track as the folder,
 * not file by file (which a folder of thousands of files would run past the cap): the suite's test
 * files in such a folder are named.
 */
async function changedSuiteFiles(ctx: CommandContext, suite: TestSuite): Promise<string[] | undefined> {
  // Asked of the suite's own repository: the working folder may be outside it (`-f ../project/…`).
  const changed = await uncommittedFiles(suite.folder, ctx.env, [suite.folder], ctx.cwd);
  if (changed === undefined) return undefined;
  // Git names the files from the working directory's real path, and the folder's may be a link.
  const real = (file: string) => realpath(file).catch(() => file);
  const from = await real(ctx.cwd);
  const folder = await real(suite.folder);
  const testFiles = await Promise.all(suite.files.map(real));
  return changed.flatMap((entry) => {
    const changedPath = path.resolve(from, entry);
    if (isFoundIn(folder, changedPath)) return [entry];
    return testFiles.filter((file) => file !== changedPath && isInside(changedPath, file)).map((file) => path.relative(from, file));
  });
}
