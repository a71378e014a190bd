/**
 * The gates of a promotion, checked against the source environment's evidence: its ledger (what it
 * runs since when, the test runs against it) and its calls per configuration version (the call
 * report's attribution and intervals, src/report/). Pure: the caller reads the evidence, and `now`
 * is given, so a soak is checked against any clock.
 */
import { NOT_SEALED_BY } from '../history/seal.js';
import { VoxformError } from '../errors.js';
import type { GateMetric, Gates } from '../manifest/promotion-settings.js';
import type { AgentReport, VersionReport } from '../report/types.js';
import { creditsText, percent, secondsText } from '../report/format.js';
import { MIN_CALLS } from '../report/statistics.js';
import { deployedUntil, earlierDeploysOfLatest } from '../report/since-deploy.js';
import type { ConfigVersion } from '../report/versions.js';
import { ledgerTimes } from '../history/ledger-order.js';
import { agentVersionKey, shortCommit, type LedgerRecord, type TestRunRecord } from '../history/types.js';
import { testRunTally } from '../history/render.js';
import { formatAge } from '../util/duration.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import { formatCount, plural, someOf, wordList } from '../util/plural.js';
import { byCodeUnits } from '../util/compare.js';

type GateName = 'tests' | 'min_calls' | 'no_regression' | 'soak';

export interface GateResult {
  gate: GateName;
  /** What the manifest asks: `pass`, `50`, `error_rate, transfer_rate`, `2h`. */
  required: string;
  passed: boolean;
  /** One sentence of evidence, without the gate's name: "deployed 35 min ago, 2h required". */
  evidence: string;
  /** Of a gate that failed: what makes it pass, without the gate's name: "it passes at 2026-11-28 12:00 UTC". */
  fix?: string | undefined;
}

/** The commands a gate's fix names, as the user would paste them (with their -f, --local, …). */
interface GateCommands {
  /** `voxform test --against live --env SOURCE`: a run of the suite recorded as evidence. */
  test: string;
  /** `voxform report --since-deploy --env SOURCE`: the versions the no_regression gate compared. */
  report: string;
}

/** Outcomes after which a record's configuration is what the workspace runs. */
const COMPLETE = new Set(['applied', 'nothing_to_do']);

/**
 * What the source runs: its newest record (whole or its summary, as given), which must have applied
 * completely; refused otherwise. `workspace`: the source's (`staging@SERVICE`), named as `voxform
 * history` names it, so that a mistyped service shows. `applySource`: the command that applies the
 * source, as the user would paste it (with their -f, --local, …).
 */
export function deployedRecord<R extends LedgerRecord>(records: readonly R[], source: string, workspace: string, applySource = `voxform apply --env ${source}`): R {
  const newest = records[0];
  if (!newest || Object.keys(newest.agents).length === 0) {
    throw new VoxformError('promote_source_unknown', `${source} has no apply in the history of ${controlsAsQuestionMarks(workspace)}: there is nothing to promote.`, {
      hint: `Apply ${source} first (\`${applySource}\`); promotion gives the target what the source's last apply recorded.`,
    });
  }
  if (!COMPLETE.has(newest.outcome)) {
    throw new VoxformError('promote_source_unknown', `${source}'s last apply (${newest.id}) ended ${newest.outcome}: what ${source} runs is not known.`, {
      hint: `Finish it with \`${applySource}\`, then promote.`,
    });
  }
  return newest;
}

/**
 * What the source runs, as sentences name it: `commit 4a530e8`, or for a rollback `a rollback to
 * record ID (commit 3cae958)` with the commit of `origin` (`configurationOrigin`), else a record id.
 */
export function deployedAs(current: Pick<LedgerRecord, 'id' | 'source'>, origin: Pick<LedgerRecord, 'source'> = current): string {
  const commit = origin.source.commit ? `commit ${shortCommit(origin.source.commit, origin.source.uncommitted)}` : undefined;
  if (current.source.rollbackOf !== undefined) return `a rollback to record ${current.source.rollbackOf}${commit ? ` (${commit})` : ''}`;
  return commit ?? `record ${current.id}`;
}

/** Whether a record holds the version `current` has of agent `name`. */
function sameVersion(record: LedgerRecord, current: LedgerRecord, name: string): boolean {
  const version = current.agents[name];
  const other = Object.hasOwn(record.agents, name) ? record.agents[name] : undefined;
  return version !== undefined && other !== undefined && agentVersionKey(other) === agentVersionKey(version);
}

/** Whether a record holds, for every agent of `current` (or those of `names`), the same version. */
function sameConfiguration(record: LedgerRecord, current: LedgerRecord, names: readonly string[] = Object.keys(current.agents)): boolean {
  return names.every((name) => sameVersion(record, current, name));
}

/**
 * The unbroken run of complete records holding `current`'s configuration, newest first from
 * `current` (applies with nothing to do repeat it), and `before`, the record before it (if any).
 */
interface ConfigurationRun {
  run: LedgerRecord[];
  before: LedgerRecord | undefined;
}

/** The oldest record of the run: the deploy the configuration has been live since. */
function runStart({ run }: ConfigurationRun): LedgerRecord {
  return run[run.length - 1] as LedgerRecord;
}

/** Found once per check: the tests gate names its deploy's commit, the soak gate counts from it. */
function configurationRun(records: readonly LedgerRecord[], current: LedgerRecord): ConfigurationRun {
  const run = [current];
  let before: LedgerRecord | undefined;
  for (const record of records.slice(records.indexOf(current) + 1)) {
    if (!COMPLETE.has(record.outcome) || !sameConfiguration(record, current)) {
      before = record;
      break;
    }
    run.push(record);
  }
  return { run, before };
}

/**
 * The record whose commit stands for the deploy of what `current` holds, as sentences name it: the
 * oldest apply of the configuration's run, not a later one with nothing to do (from whatever commit
 * it ran at), nor a rollback or heal (their commits never stand for what they deployed). For a
 * rollback, `origin`: the restored record (`configurationOrigin`).
 */
function deployingRecord(current: LedgerRecord, origin: LedgerRecord, deploy: ConfigurationRun): LedgerRecord {
  if (current.source.rollbackOf !== undefined) return origin;
  const applies = deploy.run.filter((record) => record.source.rollbackOf === undefined && record.source.healOf === undefined);
  return applies[applies.length - 1] ?? origin;
}

/**
 * When the source's configuration was deployed: the oldest record of the unbroken run of complete
 * records holding it, newest first from `current` (applies with nothing to do repeat it), at its
 * time on the ledger's timeline (`ledgerTimes`: never before a record appended earlier). `deploy`:
 * that run (`configurationRun`), when already found.
 */
export function deployedSince(records: readonly LedgerRecord[], current: LedgerRecord, deploy = configurationRun(records, current)): Date {
  return new Date(ledgerTimes(records).get(runStart(deploy).id) as string);
}

/**
 * The agents the deploy the soak counts from changed (sorted), when that is some of `current`'s
 * agents and not all: those the complete record before it ran otherwise, or not at all. Empty when
 * every agent soaks alike (a first deploy, one after an apply that did not complete, or of them all).
 */
function agentsSoaking(current: LedgerRecord, { before }: ConfigurationRun): string[] {
  if (!before || !COMPLETE.has(before.outcome)) return [];
  const changed = Object.keys(current.agents)
    .filter((name) => !sameVersion(before, current, name))
    .sort();
  return changed.length < Object.keys(current.agents).length ? changed : [];
}

/**
 * How the deploy the soak counts from put the configuration in place when it had been live before:
 * `rollback` (a rollback restores an earlier record's), `again` (an earlier complete record held the
 * same version of every agent that soaks from it, before another replaced it); undefined for a
 * configuration live for the first time. The soak counts from the latest deploy whichever it is, and
 * its line says so, while `min_calls` counts the earlier calls too.
 */
function redeployed(records: readonly LedgerRecord[], current: LedgerRecord, deploy: ConfigurationRun, soaking: readonly string[]): 'rollback' | 'again' | undefined {
  const since = runStart(deploy);
  if (since.source.rollbackOf !== undefined) return 'rollback';
  const names = soaking.length > 0 ? soaking : Object.keys(current.agents);
  const heldBefore = records.slice(records.indexOf(since) + 1).some((record) => COMPLETE.has(record.outcome) && sameConfiguration(record, current, names));
  return heldBefore ? 'again' : undefined;
}

/** Whether a test run ran against the configuration `current` holds: it saw every agent of the record with the record's hash, tested or not. */
function ranConfiguration(run: TestRunRecord, current: LedgerRecord): boolean {
  const names = Object.keys(current.agents);
  return names.length > 0 && names.every((name) => Object.hasOwn(run.agents, name) && run.agents[name]?.configHash === current.agents[name]?.configHash);
}

/** The test suite of the checkout promote runs in (`suiteDigest` of its files), or why there is none to compare with and what to do. */
export type CheckoutSuite = { digest: string } | { problem: string; fix: string };

/**
 * The tests gate: the newest run that talked to the configuration `current` holds and read the
 * checkout's test suite. A newer run of other test files (a pull request's, run against the source)
 * is passed over, never taken for this commit's, and the ✗ line says so when no run is left.
 */
function testsGate(source: string, current: LedgerRecord, origin: LedgerRecord, runs: readonly TestRunRecord[], unsealedRuns: readonly TestRunRecord[], suite: CheckoutSuite, testCommand: string): GateResult {
  const base = { gate: 'tests' as const, required: 'pass' };
  const runSuite = `run the suite against ${source}: \`${testCommand}\``;
  // Said first, run or no run: "run the suite" would send the user to a suite that is not there, or not the commit's.
  if ('problem' in suite) return { ...base, passed: false, evidence: `${suite.problem}, so no run against ${source} can stand for its tests`, fix: suite.fix };
  const ofConfiguration = runs.filter((candidate) => ranConfiguration(candidate, current));
  const newest = ofConfiguration[0];
  if (!newest) {
    // A run of it there is, but not one voxform sealed under this key: "no run" would send the user looking for a run they can see.
    const unsealed = unsealedRuns.find((candidate) => ranConfiguration(candidate, current));
    if (unsealed) {
      const evidence = `the last run against ${configurationAs(source, current, origin)}, run ${unsealed.id}, is not sealed by voxform under this API key (${NOT_SEALED_BY}) and must be run again`;
      return { ...base, passed: false, evidence, fix: runSuite };
    }
    return { ...base, passed: false, evidence: `no \`voxform test --against live\` run against ${source} since ${deployedAs(current, origin)} was deployed`, fix: runSuite };
  }
  const configuration = configurationAs(source, current, origin);
  const run = ofConfiguration.find((candidate) => candidate.suiteDigest === suite.digest);
  if (!run) {
    const why = newest.suiteDigest === undefined ? 'was recorded without the test files it ran (by an earlier voxform)' : "ran other test files than this commit's";
    return { ...base, passed: false, evidence: `no run of this checkout's test files against ${configuration}: the last one (run ${newest.id}, ${testsOf(newest)}) ${why}`, fix: `run this checkout's suite against ${source}: \`${testCommand}\`` };
  }
  // The deploy's commit and the run's are said apart: the run read the tests of its own checkout.
  const lastRun = `the last run against ${configuration}, ${testsOf(run)},`;
  const { failed, errors } = run.summary;
  if (failed + errors > 0) {
    // An error is a test the run could not carry out (the service answered 503): said as a failure, it would send the user to mend a test that did not fail.
    const had = wordList([...(failed > 0 ? [plural(failed, 'failure')] : []), ...(errors > 0 ? [plural(errors, 'error')] : [])], 'and');
    return { ...base, passed: false, evidence: `${lastRun} had ${had} (run ${run.id})`, fix: `once what fails is fixed, ${runSuite}` };
  }
  if (run.summary.passed === 0) return { ...base, passed: false, evidence: `${lastRun} passed no test (${testRunTally(run)})`, fix: `give the suite a test the live agents can run, then ${runSuite}` };
  return { ...base, passed: true, evidence: `${lastRun} passed: ${testRunTally(run)} (run ${run.id})` };
}

/** `staging's configuration (deployed at 4a530e8)`, or `(a rollback to record ID, commit 3cae958)`. */
function configurationAs(source: string, current: LedgerRecord, origin: LedgerRecord): string {
  const commit = origin.source.commit ? shortCommit(origin.source.commit, origin.source.uncommitted) : undefined;
  const rollback = current.source.rollbackOf;
  const how = rollback !== undefined ? `a rollback to record ${rollback}${commit ? `, commit ${commit}` : ''}` : commit ? `deployed at ${commit}` : `record ${current.id}`;
  return `${source}'s configuration (${how})`;
}

/** Whose tests a run read, as `voxform history` lists it: `tests of commit 954b75e`. */
function testsOf(run: TestRunRecord): string {
  return run.source.commit ? `tests of commit ${shortCommit(run.source.commit, run.source.uncommitted)}` : 'tests of no known commit';
}

/** How many agents the soak gate's line names before counting the rest: a line of the gate table. */
const SOAKING_NAMED = 3;

const REDEPLOYED_AS = { rollback: 'again by a rollback ', again: 'again ' } as const;

/** `agents`: those the deploy counted from changed, named when not all of them (`agentsSoaking`); `again`: `redeployed`. */
function soakGate(soak: NonNullable<Gates['soak']>, since: Date, now: Date, agents: readonly string[], again: 'rollback' | 'again' | undefined): GateResult {
  const age = Math.max(0, Math.floor((now.getTime() - since.getTime()) / 1000));
  const base = { gate: 'soak' as const, required: soak.text };
  const named = agents.length > SOAKING_NAMED ? someOf(agents, SOAKING_NAMED) : wordList(agents, 'and');
  const deployed = `${named ? `${named} ` : ''}deployed ${again ? REDEPLOYED_AS[again] : ''}${formatAge(age)} ago`;
  if (age >= soak.seconds) return { ...base, passed: true, evidence: deployed };
  return { ...base, passed: false, evidence: `${deployed}, ${soak.text} required`, fix: `it passes at ${minuteAfter(new Date(since.getTime() + soak.seconds * 1000))}` };
}

/** `2026-11-28 12:01 UTC`: the first whole minute at or after `time`, so the gate passes by then. */
function minuteAfter(time: Date): string {
  const minute = new Date(Math.ceil(time.getTime() / 60_000) * 60_000);
  return `${minute.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** The deploy an agent runs, and whether an earlier deploy had its configuration (before a rollback to it, or a re-apply). */
interface RunningDeploy {
  version: ConfigVersion;
  again: boolean;
}

/**
 * The deploy each agent runs, by agent id: its latest version in the history up to `now`, as the
 * call evidence's window takes it (`deployedUntil`), so its key is that of the report's version.
 */
function runningDeploys(deployed: ReadonlyMap<string, readonly ConfigVersion[]>): Map<string, RunningDeploy> {
  return new Map([...deployed].map(([id, versions]) => [id, { version: versions[versions.length - 1] as ConfigVersion, again: earlierDeploysOfLatest(versions).length > 0 }]));
}

/** The version of an agent's report that runs now: the calls since the latest deploy of `configHash`, none before it. */
function runningVersion(agent: AgentReport | undefined, running: RunningDeploy | undefined, configHash: string): VersionReport | undefined {
  if (running?.version.configHash !== configHash) return undefined;
  return agent?.versions.find((version) => version.key === running.version.key);
}

/** The calls of an agent with the configuration of hash `configHash`, in every period voxform deployed it (before a rollback to it too). */
function callsWithConfiguration(agent: AgentReport | undefined, configHash: string): number {
  return (agent?.versions ?? []).filter((version) => version.source === 'voxform' && version.config_hash === configHash).reduce((sum, version) => sum + version.metrics.calls, 0);
}

function minCallsGate(minCalls: number, current: LedgerRecord, calls: ReadonlyMap<string, AgentReport>): GateResult {
  const counts = Object.entries(current.agents)
    .map(([name, version]) => ({ name, calls: callsWithConfiguration(calls.get(version.id), version.configHash) }))
    .sort((a, b) => a.calls - b.calls || byCodeUnits(a.name, b.name));
  const fewest = counts[0];
  const base = { gate: 'min_calls' as const, required: String(minCalls) };
  if (!fewest) return { ...base, passed: true, evidence: 'no agent to count calls of' };
  if (fewest.calls < minCalls) {
    const short = counts.filter((count) => count.calls < minCalls).map((count) => `${plural(minCalls - count.calls, 'more call')} of ${count.name}`);
    return { ...base, passed: false, evidence: `${fewest.name} ran ${plural(fewest.calls, 'call')} with this configuration, ${minCalls} required`, fix: `it passes after ${wordList(short, 'and')} with this configuration` };
  }
  return { ...base, passed: true, evidence: counts.length === 1 ? `${fewest.name} ran ${plural(fewest.calls, 'call')}` : `every agent ran at least ${plural(minCalls, 'call')} (fewest: ${fewest.name}, ${formatCount(fewest.calls)})` };
}

const METRIC_WORDS: Record<GateMetric, string> = {
  error_rate: 'error rate',
  transfer_rate: 'transfer rate',
  tool_failure_rate: 'tool failure rate',
  mean_duration_seconds: 'mean duration',
  mean_credits_per_call: 'mean credits per call',
};

/** A version's value of a metric, written as the call report writes it: the gate and the report never disagree. */
function metricValue(version: VersionReport, metric: GateMetric): string {
  const metrics = version.metrics;
  if (metric === 'mean_duration_seconds') return secondsText(metrics.duration_seconds.mean);
  if (metric === 'mean_credits_per_call') return creditsText(metrics.credits.mean_per_call);
  return percent({ error_rate: metrics.error_rate, transfer_rate: metrics.transfer_rate, tool_failure_rate: metrics.tool_calls.failure_rate }[metric].value);
}

/** How the no_regression gate says which calls it counts: the latest deploy's, which `again` tells followed an earlier deploy of the same configuration. */
function callsCounted(again: boolean): string {
  return again ? 'since this configuration was deployed again' : 'with this configuration';
}

function noRegressionGate(metrics: readonly GateMetric[], current: LedgerRecord, calls: ReadonlyMap<string, AgentReport>, running: ReadonlyMap<string, RunningDeploy>, reportCommand: string): GateResult {
  const base = { gate: 'no_regression' as const, required: metrics.join(', ') };
  const names = Object.keys(current.agents).sort();
  const qualified = (name: string, text: string) => (names.length === 1 ? text : `${name}: ${text}`);
  let compared = 0;
  let uncalled = 0;
  // The version compared is the latest deploy's: calls of an earlier one of the same configuration (min_calls counts them) are not its.
  let uncalledSinceAgain = false;
  // Every metric of every agent that got worse is named: the report shows them all, and so does the gate.
  const regressions: string[] = [];
  let shortfall: GateResult | undefined;
  for (const name of names) {
    const version = current.agents[name];
    if (!version) continue;
    const agent = calls.get(version.id);
    const deploy = running.get(version.id);
    const now = runningVersion(agent, deploy, version.configHash);
    const comparison = now?.comparison;
    if (!now) uncalled++;
    if (!now && deploy?.again) uncalledSinceAgain = true;
    if (!now || !comparison) continue; // no calls yet, or no version before it: nothing to regress from
    const before = agent?.versions.find((candidate) => candidate.key === comparison.against);
    if (!comparison.enough_calls) {
      const callsBefore = before?.metrics.calls ?? 0;
      const enough = `${plural(now.metrics.calls, 'call')} ${callsCounted(deploy?.again ?? false)} and ${formatCount(callsBefore)} before; a comparison needs ${MIN_CALLS} each`;
      if (callsBefore < MIN_CALLS) {
        // New calls go to the configuration deployed: the version before never gets more.
        shortfall ??= { ...base, passed: false, evidence: qualified(name, `${enough}, and the version before takes no more calls`), fix: `it cannot pass until the version before has ${MIN_CALLS} calls, which no new call adds to, or the gate is changed` };
      } else {
        shortfall ??= { ...base, passed: false, evidence: qualified(name, enough), fix: `the comparison needs ${plural(MIN_CALLS - now.metrics.calls, 'more call')}${names.length === 1 ? '' : ` of ${name}`} with this configuration` };
      }
      continue;
    }
    compared++;
    const worse = before ? metrics.filter((metric) => comparison[metric].verdict === 'higher') : [];
    if (before && worse.length > 0) {
      const values = worse.map((metric) => `${METRIC_WORDS[metric]} ${metricValue(now, metric)} vs ${metricValue(before, metric)} before`).join(', ');
      regressions.push(qualified(name, `${values}, ${worse.length === 1 ? 'interval excludes' : 'intervals exclude'} zero`));
    }
  }
  // A regression fails the gate whatever more calls elsewhere would show: it is named first.
  if (regressions.length > 0) return { ...base, passed: false, evidence: regressions.join('; '), fix: `compare the versions with \`${reportCommand}\`` };
  if (shortfall) return shortfall;
  const nothingCompared = uncalled > 0 ? `no call yet ${callsCounted(uncalledSinceAgain)} to compare (min_calls is the gate for that)` : 'no earlier version with calls to compare with';
  return { ...base, passed: true, evidence: compared === 0 ? nothingCompared : 'no metric is worse than before (95% intervals)' };
}

export interface GateEvidence {
  /** The source environment's name, for sentences. */
  source: string;
  /** The source workspace's history, newest first: whole records or their summaries. */
  records: readonly LedgerRecord[];
  /** The record the source runs (`deployedRecord`), one of `records`. */
  current: LedgerRecord;
  /** The record whose commit made it (`configurationOrigin`); `current` when not given. */
  origin?: LedgerRecord | undefined;
  /** The source workspace's test runs, newest first. */
  testRuns: readonly TestRunRecord[];
  /** The source's test runs not sealed under this API key (`SealedEvidence.unsealedTestRuns`): never evidence, only named. */
  unsealedTestRuns?: readonly TestRunRecord[] | undefined;
  /** The checkout's test suite: read when the `tests` gate is set. */
  suite?: CheckoutSuite | undefined;
  /** By agent id: the call report of the source's agents (needed for `min_calls` and `no_regression`). */
  calls: ReadonlyMap<string, AgentReport>;
  now: Date;
  /** `deployedUntil(records, now)`, when already built for the call evidence. */
  deployed?: ReadonlyMap<string, readonly ConfigVersion[]> | undefined;
  /** The commands the fixes name; by default with `--env` alone. */
  commands?: GateCommands | undefined;
}

/** Every gate the manifest sets, in a fixed order, each with its evidence. */
export function checkGates(gates: Gates, evidence: GateEvidence): GateResult[] {
  const results: GateResult[] = [];
  const commands = evidence.commands ?? { test: `voxform test --against live --env ${evidence.source}`, report: `voxform report --since-deploy --env ${evidence.source}` };
  const unread = { problem: "this checkout's test suite was not read", fix: 'promote again' };
  const deploy = configurationRun(evidence.records, evidence.current);
  // The commit named is the deploy's: a later apply with nothing to do repeats the configuration from its own.
  const deployedBy = deployingRecord(evidence.current, evidence.origin ?? evidence.current, deploy);
  if (gates.tests) results.push(testsGate(evidence.source, evidence.current, deployedBy, evidence.testRuns, evidence.unsealedTestRuns ?? [], evidence.suite ?? unread, commands.test));
  if (gates.minCalls !== undefined) results.push(minCallsGate(gates.minCalls, evidence.current, evidence.calls));
  if (gates.noRegression && gates.noRegression.length > 0) results.push(noRegressionGate(gates.noRegression, evidence.current, evidence.calls, runningDeploys(evidence.deployed ?? deployedUntil(evidence.records, evidence.now.getTime() / 1000)), commands.report));
  if (gates.soak) {
    const soaking = agentsSoaking(evidence.current, deploy);
    results.push(soakGate(gates.soak, deployedSince(evidence.records, evidence.current, deploy), evidence.now, soaking, redeployed(evidence.records, evidence.current, deploy, soaking)));
  }
  return results;
}

/** Whether the gates need the call log (min_calls, no_regression). */
export function gatesNeedCalls(gates: Gates): boolean {
  return gates.minCalls !== undefined || (gates.noRegression?.length ?? 0) > 0;
}
