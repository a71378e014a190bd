/**
 * `runTests`: every selected test × target × repeat, at most `parallelism` conversations at once,
 * folded into verdicts (passes / runs against the pass rate) and, with both targets, the
 * behaviour diff: the tests whose verdict changes from live to desired. The work the files declare
 * is checked against the run's caps before anything is sent (budgets.ts), and conversations are
 * made one by one as a slot frees, so memory does not grow with the number scheduled.
 */
import type { ApiClient } from '../api/index.js';
import { VoxformError } from '../errors.js';
import { stoppedBy, type CompletionModel } from '../model/chat-model.js';
import { budgetedModel, checkDeclaredWork, DEFAULT_TEST_RUN_LIMITS, RequestBudget, type TestRunLimits } from './budgets.js';
import { runConversation } from './conversation.js';
import { meetsPassRate } from './statistics.js';
import { agentsFromManifests, resolveAgentsUnderTest, selectTests } from './prepare.js';
import type { DesiredState } from '../manifest/types.js';
import { SecretRegistry } from '../secrets/redact.js';
import { TrustedSecrets } from '../secrets/trusted.js';
import { RegexTimeBudget } from '../util/safe-regex.js';
import type { Redact } from '../secrets/redact.js';
import { serviceChannel, type AgentChannel } from './agent-channel.js';
import type { ConversationIO, Recordings } from './recordings/recordings.js';
import type { JudgeCache } from './judge-cache.js';
import { hashValue } from '../util/hash.js';
import { TARGETS, type AgentUnderTest, type BehaviourChange, type Target, type TestFile, type TestReport, type TestRun, type TestRunSummary, type TestVerdict } from './types.js';
import { checkOptionalOptions, countUpTo, DESIRED_STATE, distinctChoices, requireOptions, withMethods, type Optional } from '../util/required-options.js';
import { MOST } from '../util/option-bounds.js';

export interface RunTestsOptions {
  files: readonly TestFile[];
  targets: readonly Target[];
  /**
   * The service; undefined only when every run is replayed (`recordings` in replay mode): then the
   * agents are read from the manifests only, and nothing is sent.
   */
  client: ApiClient | undefined;
  /** The manifests (`loadManifests`): every agent the files name is read live and prepared from them. */
  desired: DesiredState;
  /**
   * The operator's word that the manifests are reviewed (`--with-secrets`): the configuration under
   * test is sent as apply would send it, secrets and URLs included. Without it, every secret is
   * withheld and every URL the live agent does not already call goes to the sink (docs/security.md).
   */
  withSecrets?: boolean | undefined;
  /**
   * Which live values are secret, from evidence the manifests cannot edit (the CLI's: the state
   * backend's). Without it: the schema's secret places and the manifests' `${env:…}` places.
   */
  secrets?: TrustedSecrets | undefined;
  /** The judge and simulated caller; undefined with `--skip-judge` (and when replaying: the recording answers). */
  model: CompletionModel | undefined;
  /** `--mode record|replay|auto` (src/conversations/recordings/); without it every run is live. */
  recordings?: Recordings | undefined;
  /**
   * `fingerprintKey(apiKey)` (src/util/hash.ts): the key of the fingerprints a recording keeps of the
   * configuration sent against desired, by which `--mode auto` tells that it changed. Without it
   * none are kept, and auto cannot tell.
   */
  fingerprintKey?: string | undefined;
  /** The judge's cached verdicts, used by live runs only (judge-cache.ts); undefined with --no-cache. */
  judgeCache?: JudgeCache | undefined;
  parallelism: number;
  /** `--repeat`: replaces each test's own `repeat`. */
  repeat?: number | undefined;
  /** `--grep`: only tests whose name contains this (case-insensitive). */
  grep?: string | undefined;
  /** The operator's caps (`--max-conversations`, `--max-requests`); each defaults to DEFAULT_TEST_RUN_LIMITS. */
  limits?: Partial<TestRunLimits> | undefined;
  onProgress?: (done: number, total: number) => void;
  /**
   * Aborted (Ctrl-C): no further conversation starts, and those under way are cut short — their
   * requests to the service and the model are aborted, not waited for —; the run then rejects with
   * `interrupted`.
   */
  signal?: AbortSignal | undefined;
  /**
   * Hides the run's secrets (the CLI's `SecretRegistry.redact`). Reports quote replies and model
   * answers shortened, and a secret cut in two escapes the last scrub of the output, so each quote
   * is redacted before it is shortened. Without it, nothing is hidden.
   */
  redact?: Redact | undefined;
}

/** What runTests cannot run without. */
const RUN_TESTS_REQUIRES = { files: 'list', targets: distinctChoices(TARGETS), desired: DESIRED_STATE, parallelism: countUpTo(MOST.parallelism) } as const;

/** What each option runTests may be left without must be when given: within the command line's bounds. */
const RUN_TESTS_OPTIONAL = {
  repeat: countUpTo(MOST.count),
  model: withMethods('a judge (CompletionModel)', ['complete'] satisfies ReadonlyArray<keyof CompletionModel>),
  client: withMethods('a client made by createClient', ['getAgent', 'chatCompletions', 'withSignal'] satisfies ReadonlyArray<keyof ApiClient>),
  withSecrets: 'boolean',
  secrets: 'object',
  recordings: withMethods('recordings made by Recordings.open', ['forRun', 'sendsChangedConfig'] satisfies ReadonlyArray<keyof Recordings>),
  fingerprintKey: 'string',
  judgeCache: withMethods('a JudgeCache', ['forRun'] satisfies ReadonlyArray<keyof JudgeCache>),
  grep: 'string',
  limits: 'object',
  onProgress: 'function',
  signal: 'signal',
  redact: 'function',
} as const satisfies Partial<Record<keyof RunTestsOptions, Optional>>;

/** `--max-conversations` and `--max-requests`: their bounds. */
const LIMITS_OPTIONAL = { maxConversations: countUpTo(MOST.count), maxRequests: countUpTo(MOST.count) } as const satisfies Record<keyof TestRunLimits, Optional>;

/** Refused before anything is read: an option in the wrong form, or a run that would need the service it was not given. */
function checkRunTestsOptions(options: RunTestsOptions): void {
  requireOptions('runTests', options, RUN_TESTS_REQUIRES);
  checkOptionalOptions('runTests', options, RUN_TESTS_OPTIONAL);
  if (options.limits !== undefined) checkOptionalOptions('runTests', options.limits, LIMITS_OPTIONAL, 'limits');
  // Only a run that replays every conversation sends nothing: any other would meet the missing service mid-run.
  if (options.client === undefined && options.recordings?.mode !== 'replay') {
    throw new VoxformError('invalid_option', 'runTests() needs `client` (a client made by createClient) unless every run is replayed: `recordings` in replay mode.', {
      hint: 'Pass `client: createClient({ apiKey })`, or recordings opened in replay mode, as docs/testing.md describes runTests().',
    });
  }
}

/**
 * How a run stopped by its `signal` ends: the conversations under way cut short, no other started,
 * nothing written. `rerun`: the command line that runs the same tests again (the CLI's, with its options).
 */
export function testsInterrupted(rerun = 'voxform test'): VoxformError {
  return new VoxformError('interrupted', 'Tests interrupted: the conversations under way were cut short, no other was started, and no report or recording was written.', { hint: `Run \`${rerun}\` to run the tests again.` });
}

/** The client whose requests, queued or on the wire, the run's `signal` stops. */
function stoppable(client: ApiClient, signal: AbortSignal | undefined): ApiClient {
  return signal ? client.withSignal(signal, { abortOnTheWire: true }) : client;
}

/**
 * The one way tests run, for the CLI and the library alike: the agents the selected files name are
 * prepared (secrets withheld, new URLs sent to the sink, unless `withSecrets`; prepare.ts), then
 * every conversation runs. The run's caps are checked before anything is read.
 */
export async function runTests(options: RunTestsOptions): Promise<TestRun> {
  checkRunTestsOptions(options);
  const files = selectTests(options.files, options.grep);
  const limits = { ...DEFAULT_TEST_RUN_LIMITS, ...options.limits };
  checkDeclaredWork(files, { targets: options.targets, repeat: options.repeat, judge: options.model !== undefined }, limits);
  const { desired, withSecrets, secrets, ...rest } = options;
  const agents = options.client
    ? await resolveAgentsUnderTest(files, desired, stoppable(options.client, options.signal), options.parallelism, { withSecrets: withSecrets === true, trusted: secrets ?? new TrustedSecrets({}, new SecretRegistry(), 'service') })
    : agentsFromManifests(files, desired, withSecrets === true);
  const run = await runPreparedTests({ ...rest, files, grep: undefined, agents });
  const sinked = options.client && options.targets.includes('desired') ? sinkedTargets(agents) : [];
  return sinked.length > 0 ? { ...run, sinked } : run;
}

/** The agents whose configuration under test had URLs sent to the sink, and those places. */
function sinkedTargets(agents: ReadonlyMap<string, AgentUnderTest>): NonNullable<TestRun['sinked']> {
  return [...agents].flatMap(([agent, { sinkedTargets: places }]) => (places?.length ? [{ agent, places: [...places] }] : []));
}

/**
 * The conversations of a run whose agents are prepared already: what `runTests` runs once it has
 * prepared them. Not part of the package: only `runTests` decides what a run sends.
 */
interface PreparedRunOptions extends Omit<RunTestsOptions, 'desired' | 'withSecrets' | 'secrets'> {
  /** By local name: every agent the files name, as prepare.ts prepares it. */
  agents: ReadonlyMap<string, AgentUnderTest>;
}

export async function runPreparedTests(options: PreparedRunOptions): Promise<TestRun> {
  const started = performance.now();
  const files = selectTests(options.files, options.grep);
  const limits = { ...DEFAULT_TEST_RUN_LIMITS, ...options.limits };
  const work = checkDeclaredWork(files, { targets: options.targets, repeat: options.repeat, judge: options.model !== undefined }, limits);
  const requests = new RequestBudget(limits.maxRequests);
  const model = options.model && budgetedModel(stoppedBy(options.model, options.signal), requests);
  const regexTime = new RegexTimeBudget();
  const reports: TestReport[] = [];
  const live: ConversationIO = { channel: options.client ? serviceChannel(stoppable(options.client, options.signal)) : noService, model };
  /** Each conversation of the run, made when a slot asks for it. */
  function* conversations(): Generator<() => Promise<void>> {
    for (const file of files) {
      const agent = options.agents.get(file.agent);
      if (!agent) throw new Error(`runTests(): no agent ${file.agent}`); // the caller resolved every agent
      for (const test of file.tests) {
        const report: TestReport = { file: file.display, agent: file.agent, name: test.name, location: test.location, verdicts: {} };
        reports.push(report);
        const runs = options.repeat ?? test.repeat;
        for (const target of options.targets) {
          const verdict: TestVerdict = { status: 'passed', passes: 0, runs: 0, passRate: test.passRate, results: [] };
          report.verdicts[target] = verdict;
          for (let i = 0; i < runs; i++) {
            yield async () => {
              const configHash = agent.configHashes?.[target] ?? agent.id;
              // Mocked tools answer differently: part of what the agent's exchanges are keyed by.
              const agentHash = test.mockTools ? hashValue({ agent: configHash, mock_tools: test.mockTools }) : configHash;
              const identity = { file: file.display, test: test.name, target, run: i + 1, agentHash };
              // auto: a run against desired whose configuration sent changed since it was recorded runs live.
              const changed = target === 'desired' && options.recordings?.sendsChangedConfig(file, test.name, agent.fingerprintedConfig ?? agent.desiredConfig, options.fingerprintKey) === true;
              const io = changed ? live : (options.recordings?.forRun(file, identity, live) ?? live);
              const input = { file, test, agentId: agent.id, agentConfig: configUnderTest(agent, target), requests, redact: options.redact, regexTime };
              // A recorded or replayed run asks the judge itself: the recording holds its answers.
              // Each run has its own cached verdicts (judge-cache.ts): the judge varies, as the agent does.
              const judgeCache = options.judgeCache?.forRun(identity);
              let result = await runConversation({ ...input, ...io, judgeCache: io === live ? judgeCache : undefined });
              // auto: a run the recording does not cover is run live, from its start (unless the run is stopping).
              if (result.notRecorded && options.recordings?.mode === 'auto' && !options.signal?.aborted) result = await runConversation({ ...input, ...live, judgeCache });
              verdict.results[i] = result;
            };
          }
        }
      }
    }
  }
  let done = 0;
  await runLazily(conversations(), options.parallelism, {
    signal: options.signal,
    onDone: () => options.onProgress?.(++done, work.conversations),
  });
  if (options.signal?.aborted) throw testsInterrupted();
  for (const report of reports) for (const verdict of Object.values(report.verdicts)) foldVerdict(verdict);
  const summary: TestRun['summary'] = {};
  for (const target of options.targets) summary[target] = summarize(reports, target);
  return { against: [...options.targets], reports, changes: behaviourChanges(reports), summary, durationMs: Math.round(performance.now() - started) };
}

/** What a run against `target` sends as the agent's configuration: the one under review, or none (the live agent's own). */
function configUnderTest(agent: AgentUnderTest, target: Target): AgentUnderTest['desiredConfig'] | undefined {
  switch (target) {
    case 'desired':
      return agent.desiredConfig;
    case 'live':
      return undefined;
    default:
      // A target the compiler does not know of is a bug here, never a run against the live agent.
      throw new Error(`runTests(): no target ${String(target satisfies never)}`);
  }
}

/** The service of a run that replays everything: never asked (a replayed run that misses is `not_recorded`). */
const noService: AgentChannel = {
  send: () => Promise.reject(new Error('runTests(): a live request in a run without a service')),
  callRecord: () => Promise.reject(new Error('runTests(): a live request in a run without a service')),
};

/**
 * Runs the jobs `jobs` yields, at most `parallelism` at once: each worker takes the next job when its
 * last one is done, so a job is made only when a slot is free — never a promise per job up front. A
 * worker is added only as one takes a job, so there are never more workers than jobs, whatever the
 * parallelism. Stops taking jobs once `signal` is aborted; those under way end as their own requests
 * are stopped. The first job to fail rejects it, as soon as it fails.
 */
export async function runLazily(jobs: Iterator<() => Promise<void>>, parallelism: number, options: { signal?: AbortSignal | undefined; onDone?: () => void } = {}): Promise<void> {
  const workers: Array<Promise<void>> = [];
  // Counted before a worker starts: it takes its first job, and may add the next worker, before it is pushed.
  let started = 0;
  let failed: (error: unknown) => void = () => undefined;
  const failure = new Promise<never>((_, reject) => (failed = reject));
  const worker = async (): Promise<void> => {
    while (!options.signal?.aborted) {
      const next = jobs.next();
      if (next.done) return;
      const job = next.value();
      if (started < parallelism) addWorker();
      await job;
      options.onDone?.();
    }
  };
  const addWorker = () => {
    started++;
    workers.push(worker().catch(failed));
  };
  addWorker();
  // Workers join while the first ones run: wait for each, in the order they joined.
  for (let joined = 0; joined < workers.length; joined++) await Promise.race([workers[joined], failure]);
}

/**
 * A verdict over the runs: skipped runs do not count; an errored run counts as a run that did not
 * pass. All runs skipped is `skipped`; any errored run makes the test an `error`, whatever the
 * others did: that run's verdict is unknown, so it is not a failure a pass rate below 100% may
 * absorb. Otherwise the test passes when passes / runs reaches its pass rate.
 */
export function foldVerdict(verdict: TestVerdict): void {
  const counted = verdict.results.filter((run) => run.status !== 'skipped');
  verdict.runs = counted.length;
  verdict.passes = counted.filter((run) => run.status === 'passed').length;
  if (counted.length === 0) verdict.status = 'skipped';
  else if (counted.some((run) => run.status === 'error')) verdict.status = 'error';
  else verdict.status = meetsPassRate(verdict.passes, counted.length, verdict.passRate) ? 'passed' : 'failed';
}

function summarize(reports: readonly TestReport[], target: Target): TestRunSummary {
  const summary: TestRunSummary = { passed: 0, failed: 0, skipped: 0, errors: 0 };
  for (const report of reports) {
    const status = report.verdicts[target]?.status;
    if (status !== undefined) summary[status === 'error' ? 'errors' : status]++;
  }
  return summary;
}

/**
 * live → desired: passed → failed is newly failing; failed → passed is newly passing. An error on
 * either side (the service or the judge failed, a request not recorded) is not compared: a run that
 * could not complete says nothing of how the agent behaves. Nor is a side skipped (or not run): no
 * verdict there is no "same verdict".
 */
export function behaviourChange(report: TestReport): BehaviourChange {
  const live = report.verdicts.live?.status;
  const desired = report.verdicts.desired?.status;
  const isVerdict = (status: string | undefined) => status === 'passed' || status === 'failed';
  if (!isVerdict(live) || !isVerdict(desired)) return 'not_compared';
  if (live === desired) return 'unchanged';
  return desired === 'failed' ? 'newly_failing' : 'newly_passing';
}

/** How many tests of a run against both are skipped or have an error on one side or both, so no behaviour change is told of them. */
export function notComparedCount(run: TestRun): number {
  return run.against.length === 2 ? run.reports.filter((report) => behaviourChange(report) === 'not_compared').length : 0;
}

function behaviourChanges(reports: readonly TestReport[]): TestRun['changes'] {
  const changes: TestRun['changes'] = [];
  for (const change of ['newly_failing', 'newly_passing'] as const) {
    for (const report of reports) if (behaviourChange(report) === change) changes.push({ report, change });
  }
  return changes;
}

/**
 * Whether the run succeeded: every test met its pass rate (skipped tests do not fail it), or, with
 * `--baseline`, no test got worse than in the baseline; and, either way, no test ended in error,
 * whose verdict is unknown. With both
 * targets only the desired verdicts decide: the gate is on what the change would deploy, and a test
 * the live agent fails today is the change's news, not its fault.
 */
export function runSucceeded(run: TestRun): boolean {
  if (gatingErrors(run) > 0) return false;
  // Against a baseline, only what got worse fails the run (baseline.ts).
  if (run.baseline) return run.baseline.regressions.length === 0;
  return gatingSummaries(run).every((summary) => summary.failed === 0);
}

/** The tests in error among the verdicts that decide the run (`runSucceeded`). */
export function gatingErrors(run: TestRun): number {
  return gatingSummaries(run).reduce((errors, summary) => errors + summary.errors, 0);
}

const gatingSummaries = (run: TestRun): TestRunSummary[] => (run.summary.desired ? [run.summary.desired] : Object.values(run.summary));
