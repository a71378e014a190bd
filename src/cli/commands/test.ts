/**
 * `voxform test`: conversation tests against the configuration under review (desired), the live
 * agent, or both (the behaviour diff). `voxform test capture CALL_ID`: a logged call → a test file.
 */
import { fingerprintKey } from '../../util/hash.js';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { VoxformError } from '../../errors.js';
import { checkDeclaredWork, DEFAULT_TEST_RUN_LIMITS } from '../../conversations/budgets.js';
import { captureTestFile } from '../../conversations/capture.js';
import { findTestFiles, isTestFileName, testFileNamed } from '../../conversations/find-test-files.js';
import { loadTestFiles } from '../../conversations/load-tests.js';
import { toolNamesOf } from '../../conversations/agent-config.js';
import { agentIfExists } from '../../api/agent-if-exists.js';
import { chooseJudge, selectAgents, selectTests } from '../../conversations/prepare.js';
import { compareWithBaseline, readBaseline } from '../../conversations/baseline.js';
import { JUDGE_CACHE_FOLDER, JudgeCache } from '../../conversations/judge-cache.js';
import { judgeModelName, judgeSettingsFromEnv } from '../../model/chat-model.js';
import { Recordings, type TestMode } from '../../conversations/recordings/recordings.js';
import { recordingPathOf, refuseSharedRecordings } from '../../conversations/recordings/recording-file.js';
import { testJsonPieces } from '../../conversations/render-json.js';
import { testJunitPieces } from '../../conversations/render-junit.js';
import { renderTestMarkdown } from '../../conversations/render-markdown.js';
import { testTextPieces } from '../../conversations/render-text.js';
import { runSucceeded, runTests, testsInterrupted } from '../../conversations/runner.js';
import type { Target, TestFile, TestRun } from '../../conversations/types.js';
import { describeWriteFailure, findWriteObstacle, writeFileAtomic, WriteSet } from '../../util/atomic-write.js';
import { pathExists } from '../../project-files/guarded-read.js';
import { refuseOwnFile } from '../../project-files/own-files.js';
import type { CommandContext } from '../context.js';
import { nextCommand, ownFlags } from '../next-command.js';
import { recordedCommand } from '../recorded-command.js';
import { callById } from '../../api/call-by-id.js';
import { shellWord } from '../../util/shell-word.js';
import { formatDiagnostics } from '../diagnostics.js';
import { ListedProblemsError } from '../error-text.js';
import { progressLine } from '../progress.js';
import { writeInChunks } from '../output-streams.js';
import { inChunks } from '../../util/json-pieces.js';
import { resolveTimeoutMs } from '../timeout.js';
import { connectService, deployedFiles, loadDesiredState, operatorTrustedSecrets, ownFilesOf, type ProjectOptions } from '../project.js';
import type { Connection } from '../connection.js';
import type { DesiredState } from '../../manifest/types.js';
import { sinkNote } from '../../conversations/render-shared.js';
import type { TrustedSecrets } from '../../secrets/trusted.js';
import { manifestPlaces, startTestEvidence, testSuiteOf, whyNoEvidence } from '../test-evidence.js';
import { plural, pluralNoun } from '../../util/plural.js';

interface TestOptions extends ProjectOptions {
  args?: string[];
  against?: 'desired' | 'live' | 'both';
  agent?: string[];
  grep?: string;
  repeat?: number;
  /** The operator's caps of the run (docs/testing.md, Budgets). */
  maxConversations?: number;
  maxRequests?: number;
  format?: 'text' | 'json' | 'junit' | 'markdown';
  out?: string;
  skipJudge?: boolean;
  /** The operator's word that the manifests are reviewed: secrets sent, webhooks and tools called (docs/security.md §5). */
  withSecrets?: boolean;
  /** live (default), record, replay or auto (docs/testing.md, Record and replay). */
  mode?: TestMode;
  /** An earlier JSON result: fail only on tests that got worse. */
  baseline?: string;
  /** `--no-cache`: false. */
  cache?: boolean;
}

/** This run's words: its test files, the options that choose which tests run and against what, and how each runs (--repeat, --skip-judge). */
function testWords(options: TestOptions): string[] {
  const words = ['test', ...(options.args ?? []).map(shellWord)];
  for (const agent of options.agent ?? []) words.push('--agent', shellWord(agent));
  if (options.grep !== undefined) words.push('--grep', shellWord(options.grep));
  if (options.against !== undefined && options.against !== 'desired') words.push('--against', options.against);
  if (options.mode !== undefined && options.mode !== 'live') words.push('--mode', options.mode);
  if (options.repeat !== undefined) words.push('--repeat', String(options.repeat));
  if (options.skipJudge) words.push('--skip-judge');
  // Without it a rerun would take a keyless judge's verdicts from a cache the pull request may have written.
  if (options.cache === false) words.push('--no-cache');
  return words;
}

/**
 * This run's command line, to run it again: its words, where it reports (--format, --out), and the
 * options that choose what they run on (manifests, environment, service, state: nextCommand).
 */
function rerunCommand(options: TestOptions): string {
  const report = ownFlags([['--format', options.format === 'text' ? undefined : options.format], ['--out', options.out]]);
  return nextCommand([...testWords(options), ...report].join(' '), options);
}

/**
 * The command a run's evidence is recorded with: its words, with the environment alone of the
 * options that choose what they run on, as a deploy's record has it (recordedCommand): a state URL
 * holds a password. A test file's path may hold a secret, as its name in the report may: hidden
 * before it is quoted, which could split it.
 */
function evidenceCommand(options: TestOptions, redact: (text: string) => string): string {
  return recordedCommand(testWords({ ...options, args: options.args?.map(redact) }).join(' '), options);
}

const TARGETS: Record<NonNullable<TestOptions['against']>, Target[]> = { desired: ['desired'], live: ['live'], both: ['live', 'desired'] };

export async function run(options: TestOptions, ctx: CommandContext): Promise<number> {
  if (options.out !== undefined) await checkOutFile(options.out, ctx);
  // Without --with-secrets every value from the environment is withheld before anything is sent
  // (prepare.ts), so a variable this run cannot read is no reason to stop it.
  const desired = await loadDesiredState({ ...options, withholdUnsetEnv: options.withSecrets !== true }, ctx, { outcome: 'no test was run' });
  const loaded = await loadTests(options, ctx, desired);
  // A manifest, a file it names, a test file or a recording as --out is refused before anything runs.
  const inputs = [...deployedFiles(desired), ...loaded.flatMap((file) => [file.path, recordingPathOf(file.path)])];
  if (options.out !== undefined) await refuseOwnFile(options.out, ownFilesOf(options, ctx, inputs), { code: 'report_write_failed', cannot: `Cannot write the report to ${options.out}`, outcome: 'no test was run' });
  const files = selectTests(selectAgents(loaded, options.agent, new Set(desired.agents.keys())), options.grep);
  if (files.length === 0) {
    throw new VoxformError('tests_not_found', `No test matches${options.grep ? ` --grep "${options.grep}"` : ''}${options.agent ? ` --agent ${options.agent.join(', ')}` : ''}.`, { hint: 'Check --grep and --agent against the test names; without them `voxform test` runs every test.' });
  }
  const timeoutMs = resolveTimeoutMs(options.timeout, ctx.env);
  const mode = options.mode ?? 'live';
  const baseline = options.baseline === undefined ? undefined : await readBaseline(path.resolve(ctx.cwd, options.baseline), options.baseline);
  // Replaying, the recording answers the judge's questions: no judge model is needed.
  const model = mode === 'replay' ? undefined : chooseJudge(files, ctx.env, { skipJudge: options.skipJudge === true, onSecret: (value) => ctx.secrets.add(value), timeoutMs });
  const redact = (text: string) => ctx.secrets.redact(text);
  const testNames = new Map(loaded.map((file) => [file.path, new Set(file.tests.map((test) => test.name))]));
  // All the files read, not only those selected: recording a part would overwrite the rest's.
  if (mode !== 'live') refuseSharedRecordings(loaded);
  const recordings = mode === 'live' ? undefined : await Recordings.open(files, { mode, redact, modelName: judgeModelName(ctx.env), judge: options.skipJudge !== true, testNames });
  const targets = TARGETS[options.against ?? 'desired'];
  const limits = { maxConversations: options.maxConversations ?? DEFAULT_TEST_RUN_LIMITS.maxConversations, maxRequests: options.maxRequests ?? DEFAULT_TEST_RUN_LIMITS.maxRequests };
  // Refused before connecting: a run over its caps sends nothing (runTests checks the same again).
  checkDeclaredWork(files, { targets, repeat: options.repeat, judge: model !== undefined }, limits);
  const parallelism = options.parallelism ?? 8;
  const withSecrets = options.withSecrets === true;
  // Replaying what the manifests define needs no service: nothing is sent, and the recording keys on the manifests' config.
  const service = mode === 'replay' && !targets.includes('live') ? undefined : await connect(options, ctx, desired, { parallelism, withSecrets });
  // A run against the live agents is evidence for `voxform promote` (docs/promotion.md) when it ran the
  // whole suite as written: the gate takes it for the suite.
  const live = service && targets.includes('live') ? service : undefined;
  const suite = live ? await testSuiteOf(options, ctx, desired) : undefined;
  const noEvidence = suite ? whyNoEvidence({ ...options, mode }, ctx, suite, files) : undefined;
  if (noEvidence) ctx.stderr.write(`note: this run is not recorded as evidence for \`voxform promote\`: it ${noEvidence}; the tests gate takes only a live run of the whole suite as its files ask.\n`);
  const evidence = live && suite && !noEvidence ? await startTestEvidence(options, ctx, desired, live.connection, { suite, files, command: evidenceCommand(options, redact) }) : undefined;
  const judgeSettings = judgeSettingsFromEnv(ctx.env);
  const judgeCache =
    model && judgeSettings && options.cache !== false
      ? new JudgeCache({ folder: path.join(ctx.cwd, JUDGE_CACHE_FOLDER), modelName: judgeSettings.model, apiKey: judgeSettings.apiKey, redact })
      : undefined;
  const status = progressLine(ctx);
  // Ctrl-C: no new conversation starts, those under way are cut short (their requests aborted), nothing
  // is written, exit 130; a second Ctrl-C ends at once.
  const interrupt = new AbortController();
  void ctx.interrupted({ stopping: 'the conversations under way are cut short; no report or recording is written' }).then(() => interrupt.abort());
  const testRun = await runTests({
    files,
    targets,
    client: service?.connection.client,
    desired,
    withSecrets,
    secrets: service?.trusted,
    model,
    recordings,
    fingerprintKey: service ? fingerprintKey(service.connection.apiKey) : undefined,
    judgeCache,
    parallelism,
    repeat: options.repeat,
    limits,
    redact,
    onProgress: (done, total) => status.update(`Talking to agents… ${done}/${total} ${pluralNoun(total, 'conversation')}`),
    signal: interrupt.signal,
  })
    // After the stop, what failed is the stop itself: the run ends as interrupted.
    .catch((error: unknown) => Promise.reject(interrupt.signal.aborted ? testsInterrupted(rerunCommand(options)) : error))
    .finally(() => status.done());
  // From here a signal stops at once, and what is still being written is not put in place: the stop
  // said no report or recording is written.
  ctx.stopsAtOnceFromNow?.();
  // Stopped as the last conversations ended: still nothing is written.
  if (interrupt.signal.aborted) throw testsInterrupted(rerunCommand(options));
  if (baseline && options.baseline !== undefined) testRun.baseline = compareWithBaseline(testRun, baseline, options.baseline);
  await writeResults(testRun, options, ctx, { recordings, evidence });
  return runSucceeded(testRun) ? 0 : 1;
}

/** What a run that ended leaves: its recordings (`--mode record`, each beside its test file, whole or not at all), its evidence, its report. */
async function writeResults(testRun: TestRun, options: TestOptions, ctx: CommandContext, { recordings, evidence }: { recordings: Recordings | undefined; evidence: { record(run: TestRun): Promise<void> } | undefined }): Promise<void> {
  for (const note of recordings?.notes() ?? []) ctx.stderr.write(`${note}\n`);
  if (recordings) for (const line of await recordings.save(testRun)) ctx.stderr.write(`${line}\n`);
  await evidence?.record(testRun);
  await emit(render(testRun, options.format ?? 'text', ctx), options.out, ctx, { what: 'the report', createFolder: false, unwritten: 'the tests ran, and their report was not written', hint: REPORT_OUT_HINT });
}

async function loadTests(options: TestOptions, ctx: CommandContext, desired: DesiredState): Promise<TestFile[]> {
  const manifests = manifestPlaces(options, ctx, desired);
  const paths = await findTestFiles(options.args ?? [], ctx.cwd, manifests);
  const result = await loadTestFiles({
    files: paths,
    cwd: ctx.cwd,
    env: ctx.env,
    manifests,
    agents: new Set(desired.agents.keys()),
    toolsOf: (name) => {
      const agent = desired.agents.get(name);
      return agent && toolNamesOf(agent);
    },
  });
  const listing = result.diagnostics.length > 0 ? formatDiagnostics(result.diagnostics, { color: ctx.color }) : '';
  if (result.files) {
    ctx.stderr.write(listing);
    return result.files;
  }
  const errors = result.diagnostics.filter((d) => d.severity === 'error').length;
  throw new ListedProblemsError('tests_invalid', { found: `The test files have ${plural(errors, 'error')}`, outcome: 'no test was run' }, {
    // The user's project holds no schemas/ folder: name the page, and the schema where the installed package keeps it.
    hint: 'Fix them and run again; docs/testing.md describes the format, and node_modules/voxform/schemas/tests.schema.json is its schema (for editors).',
    listedIn: 'diagnostics',
    problems: result.diagnostics,
    listing,
  });
}

/** The service, and the trusted evidence of which of its live values are secret (runTests prepares the agents with it). */
async function connect(options: TestOptions, ctx: CommandContext, desired: DesiredState, how: { parallelism: number; withSecrets: boolean }): Promise<{ connection: Connection; trusted: TrustedSecrets }> {
  // Before review (no --with-secrets) the embedded emulator calls none of the URLs the repository names.
  const connection = await connectService({ ...options, parallelism: how.parallelism }, desired, ctx, { emulatorWebhooks: how.withSecrets ? 'all' : 'none' });
  // As `plan` has them (src/secrets/trusted.ts), so a test report hides what `plan` hides.
  return { connection, trusted: await operatorTrustedSecrets(options, ctx, { ...connection, environment: desired.environment }) };
}

/**
 * The report in pieces, written as they are made and as fast as stdout takes them: the JSON report
 * holds every transcript of the run, and made whole it would double the run's memory at its end.
 * The Markdown report is size-capped, so it comes whole. The text and Markdown reports (the pull
 * request's comment) say which targets the run replaced; JSON and JUnit keep their documents' shape.
 */
function* render(testRun: TestRun, format: NonNullable<TestOptions['format']>, ctx: CommandContext): Iterable<string> {
  if (format === 'json') return yield* testJsonPieces(testRun);
  if (format === 'junit') return yield* testJunitPieces(testRun);
  if (format === 'markdown') {
    // The comment ends with the sink notes itself, inside its size cap.
    yield renderTestMarkdown(testRun, undefined, (text) => ctx.secrets.redact(text));
    return;
  }
  yield* testTextPieces(testRun, { color: ctx.color });
  // Its last lines: one per agent whose configuration under test had URLs sent to the sink (src/secrets/sink.ts).
  for (const { agent, places } of testRun.sinked ?? []) yield `${sinkNote(agent, places)}\n`;
}

/** `voxform test --out`: checked before any conversation starts, so a mistyped path costs no run. */
async function checkOutFile(out: string, ctx: CommandContext): Promise<void> {
  const file = path.resolve(ctx.cwd, out);
  const obstacle = await findWriteObstacle(file);
  if (obstacle !== undefined) throw writeFailed('the report', file, `${obstacle}; no test was run`);
}

const REPORT_OUT_HINT = 'Name a file in a folder that exists and is writable with --out.';

/** `test capture` makes the folders its file's path lacks (tests/ in a new project): its hint says so. */
const CAPTURE_OUT_HINT = 'Name a test file with --out, such as tests/NAME.test.yaml, where it can be written; the folders its path lacks are created.';

function writeFailed(what: string, file: string, why: string, hint = REPORT_OUT_HINT): VoxformError {
  return new VoxformError('report_write_failed', `Cannot write ${what} to ${file}: ${why}.`, { hint });
}

interface EmitOptions {
  /** "the report", "the test file". */
  what: string;
  /** Whether a missing folder is made (`test capture`: tests/ in a new project) or refused (as `plan --out` refuses it). */
  createFolder: boolean;
  /** How to name a file that can be written. */
  hint: string;
  /** What became of the work when the file cannot be written. */
  unwritten: string;
}

/**
 * To stdout, or to `--out` (redacted like stdout: a report file is output too), written whole or not
 * at all. A file that cannot be written is an error, and nothing is printed instead: stdout stays
 * one document (with --format json, the error's). Text in pieces is written in chunks of whole
 * pieces, each chunk redacted on its own (`writeInChunks`).
 */
async function emit(text: string | Iterable<string>, out: string | undefined, ctx: CommandContext, options: EmitOptions): Promise<void> {
  const pieces = typeof text === 'string' ? [text] : text;
  if (!out) return writeInChunks(ctx.stdout, pieces);
  const file = path.resolve(ctx.cwd, out);
  // Folders made for the file are taken back with it: a file not written leaves nothing behind.
  const folders = new WriteSet();
  try {
    if (options.createFolder) await folders.makeFolderPath(path.dirname(file));
    await writeFileAtomic(file, mapPieces(inChunks(pieces), (piece) => ctx.secrets.redact(piece)));
    folders.finish();
  } catch (error) {
    folders.takeBack();
    throw writeFailed(options.what, file, `${describeWriteFailure(error)}; ${options.unwritten}`, options.hint);
  }
  ctx.stderr.write(`Wrote ${options.what} to ${out}.\n`);
}

function* mapPieces(pieces: Iterable<string>, map: (piece: string) => string): Generator<string> {
  for (const piece of pieces) yield map(piece);
}

interface CaptureOptions extends ProjectOptions {
  args?: string[];
  out?: string;
  /** Overwrite the file `--out` names when it exists. */
  force?: boolean;
}

/**
 * `test capture --out` naming a folder is refused whatever --force says (it cannot become the test
 * file), and so is a name no run reads (not `*.test.yaml`): the suite would never run the test.
 * Naming a file that exists (a test file of the suite, most likely), it is overwritten only with --force.
 */
async function checkCaptureOut(out: string, force: boolean, ctx: CommandContext): Promise<void> {
  const file = path.resolve(ctx.cwd, out);
  if ((await stat(file).catch(() => undefined))?.isDirectory()) {
    throw writeFailed('the test file', file, 'it is a folder; no call was captured', `Name a file in it with --out, such as ${path.join(out, 'captured.test.yaml')}.`);
  }
  if (!isTestFileName(out)) {
    throw new VoxformError('invalid_argument', `--out names ${out}, which no test run reads: test files end in .test.yaml or .test.yml; no call was captured.`, {
      hint: `Name it ${testFileNamed(out)}.`,
    });
  }
  if (force || !(await pathExists(file, { follow: false }))) return;
  throw new VoxformError('would_overwrite', `voxform test capture would overwrite ${out}, which exists already; no call was captured.`, {
    hint: 'Pass --force to overwrite it, or name another file with --out.',
  });
}

/** `voxform test capture CALL_ID [--out FILE [--force]]`, with the service and manifest options of `voxform test`. */
export async function capture(options: CaptureOptions, ctx: CommandContext): Promise<number> {
  const callId = options.args?.[0] ?? '';
  // The manifests give only the agents' names here, and nothing of their values is written or sent:
  // as for a test run, a variable this job cannot read is no reason to stop it.
  const desired = await loadDesiredState({ ...options, withholdUnsetEnv: true }, ctx, { outcome: 'no call was captured' });
  if (options.out !== undefined) {
    await refuseOwnFile(options.out, { ...ownFilesOf(options, ctx, deployedFiles(desired)), writes: 'test file' }, { code: 'report_write_failed', cannot: `Cannot write the test file to ${options.out}`, outcome: 'no call was captured' });
    await checkCaptureOut(options.out, options.force === true, ctx);
  }
  const connection = await connectService(options, desired, ctx);
  const { client } = connection;
  const record = await callById(client, callId, { hint: 'List calls with `voxform logs`.' });
  const agent = [...desired.agents.values()].find((candidate) => candidate.id === record.agent_id);
  if (!agent) {
    throw new VoxformError('agent_unknown', `Call ${callId} was made with agent ${record.agent_id ?? '(none)'}, which no agent of the manifests has as its id.`, {
      hint: 'A test names its agent by manifest name: add the agent to the manifest, or point -f at the manifest that has it.',
    });
  }
  // What the call's configuration and transcript hold of the operator's secrets is never written: the
  // agent as the call record carries it and as the service holds it now, at the deploy ledger's places too.
  const trusted = await operatorTrustedSecrets(options, ctx, { ...connection, environment: desired.environment });
  trusted.noteLiveAgent({ id: agent.id, config: record.agent_config });
  const live = await agentIfExists(client, agent.id);
  if (live) trusted.noteLiveAgent(live);
  trusted.noteLive(record);
  // The modeline points at the package's schema in the project's node_modules, from where the file is written.
  const schemaPath = options.out === undefined ? undefined : path.relative(path.dirname(path.resolve(ctx.cwd, options.out)), path.join(ctx.cwd, 'node_modules/voxform/schemas/tests.schema.json')).split(path.sep).join('/');
  const text = captureTestFile({ record, agentName: agent.localName, redact: (value) => ctx.secrets.redact(value), schemaPath });
  await emit(text, options.out, ctx, { what: 'the test file', createFolder: true, unwritten: 'nothing was written', hint: CAPTURE_OUT_HINT });
  return 0;
}
