import { describe, expect, it } from 'vitest';
import type { HistoryRecord, TestRunRecord } from '../../src/history/types.js';
import { configurationOrigin } from '../../src/history/configuration-origin.js';
import { checkGates, deployedAs, deployedRecord, deployedSince, type GateEvidence } from '../../src/promote/gates.js';
import { checkCheckout, gateRefusal, renderGateTable } from '../../src/promote/promotion.js';
import type { AgentReport, VersionReport } from '../../src/report/types.js';
import { rate } from '../../src/report/metrics.js';

const HASH_A = `sha256:${'a'.repeat(64)}`;
const HASH_B = `sha256:${'b'.repeat(64)}`;
const COMMIT = '4a530e8'.padEnd(40, '0');
/** The commit a test run read its tests from: a later one than the deploy's (the state committed after it). */
const TESTS_COMMIT = '954b75e'.padEnd(40, '0');
/** The digests of two versions of a suite: the commit's, and a pull request's. */
const SUITE = `sha256:${'5'.repeat(64)}`;
const OTHER_SUITE = `sha256:${'6'.repeat(64)}`;

function record(id: string, at: string, hash: string, outcome = 'applied'): HistoryRecord {
  return {
    id,
    workspace: 'staging@local',
    at,
    by: 'ana@laptop',
    command: 'voxform apply',
    outcome,
    source: { commit: COMMIT, uncommitted: false },
    summary: { create: 0, update: 1, unchanged: 0, drifted: 0, applied: 1, failed: 0, skipped: 0 },
    agents: { desk: { id: 'ag_s', config: { prompt: hash }, configHash: hash, maskedPaths: [] } },
  };
}

function run(id: string, hash: string, summary: TestRunRecord['summary'], suiteDigest = SUITE): TestRunRecord {
  return { id, workspace: 'staging@local', at: '2026-11-28T11:00:00.000Z', by: 'ana@laptop', command: 'voxform test --against live', source: { commit: TESTS_COMMIT, uncommitted: false }, agents: { desk: { id: 'ag_s', configHash: hash } }, suiteDigest, summary, tests: [] };
}

function version(key: string, hash: string, calls: number, errors: number, against: string | undefined, verdict: 'higher' | 'no clear difference' | 'not enough calls' = 'no clear difference'): VersionReport {
  const difference = { difference: 0, low: 0, high: 0, verdict };
  return {
    key,
    source: 'voxform',
    config_hash: hash,
    deploy: null,
    first_call: '',
    last_call: '',
    metrics: {
      calls,
      by_status: {},
      error_rate: rate(errors, calls),
      transfer_rate: rate(0, calls),
      duration_seconds: { calls: 0, median: null, p90: null, mean: null, exact: true },
      credits: { total: 0, mean_per_call: null },
      tool_calls: { calls: 0, failed: 0, failure_rate: rate(0, 0) },
    },
    series: [],
    comparison:
      against === undefined
        ? null
        : { against, enough_calls: verdict !== 'not enough calls', error_rate: difference, transfer_rate: { ...difference, verdict: verdict === 'higher' ? 'no clear difference' : verdict }, tool_failure_rate: difference, mean_duration_seconds: difference, mean_credits_per_call: difference },
  };
}

function calls(versions: VersionReport[]): Map<string, AgentReport> {
  return new Map([['ag_s', { agent_id: 'ag_s', name: 'desk', managed: true, service_name: null, calls: 0, test_calls: 0, series: { bin_seconds: 60, points: [] }, deploys: [], versions }]]);
}

const older = record('20261128T080000000Z-aaaaaa', '2026-11-28T08:00:00.000Z', HASH_A);
const deploy = record('20261128T100000000Z-bbbbbb', '2026-11-28T10:00:00.000Z', HASH_B);
const repeat = record('20261128T103000000Z-cccccc', '2026-11-28T10:30:00.000Z', HASH_B, 'nothing_to_do');
const records = [repeat, deploy, older];

function evidence(overrides: Partial<GateEvidence> = {}): GateEvidence {
  return { source: 'staging', records, current: repeat, testRuns: [], suite: { digest: SUITE }, calls: new Map(), now: new Date('2026-11-28T10:35:00.000Z'), ...overrides };
}

describe('the gates', () => {
  it('soaks from the first record of the configuration, not from an apply that repeated it', () => {
    expect(deployedSince(records, repeat).toISOString()).toBe('2026-11-28T10:00:00.000Z');
    const [soak] = checkGates({ soak: { text: '2h', seconds: 7200 } }, evidence());
    expect(soak).toEqual({ gate: 'soak', required: '2h', passed: false, evidence: 'deployed 35 min ago, 2h required', fix: 'it passes at 2026-11-28 12:00 UTC' });
    const [later] = checkGates({ soak: { text: '2h', seconds: 7200 } }, evidence({ now: new Date('2026-11-28T13:00:00.000Z') }));
    expect(later).toMatchObject({ passed: true, evidence: 'deployed 3h ago' });
  });

  it('names the agents the deploy it counts from changed, when there are several and not all of them changed', () => {
    const front = { id: 'ag_f', config: { prompt: HASH_A }, configHash: HASH_A, maskedPaths: [] };
    const both = (base: HistoryRecord, id: string, at: string, desk: string): HistoryRecord => ({ ...base, id, at, agents: { desk: { ...base.agents.desk!, config: { prompt: desk }, configHash: desk }, front } });
    const first = both(older, '20261128T080000000Z-aaaaaa', '2026-11-28T08:00:00.000Z', HASH_A);
    const deskChanged = both(deploy, '20261128T100000000Z-bbbbbb', '2026-11-28T10:00:00.000Z', HASH_B);
    const [soak] = checkGates({ soak: { text: '2h', seconds: 7200 } }, evidence({ records: [deskChanged, first], current: deskChanged }));
    expect(soak).toMatchObject({ passed: false, evidence: 'desk deployed 35 min ago, 2h required' });
    // A first deploy: every agent soaks alike, none is named.
    expect(checkGates({ soak: { text: '2h', seconds: 7200 } }, evidence({ records: [first], current: first }))[0]?.evidence).toBe('deployed 2h 35 min ago');
  });

  it('soaks in the ledger order: a deploy recorded on a slow clock counts from no earlier than the record appended before it', () => {
    // Applied from a machine 40 min slow, after `older` (appended at 10:00 on a good clock); then repeated from a good one.
    const before = record('20261128T100000000Z-aaaaaa', '2026-11-28T10:00:00.000Z', HASH_A);
    const slowDeploy = record('20261128T100000001Z-bbbbbb', '2026-11-28T09:25:00.000Z', HASH_B);
    const repeated = record('20261128T103000000Z-cccccc', '2026-11-28T10:30:00.000Z', HASH_B, 'nothing_to_do');
    const ledger = [repeated, slowDeploy, before];
    expect(deployedSince(ledger, repeated).toISOString()).toBe('2026-11-28T10:00:00.000Z');
    const [soak] = checkGates({ soak: { text: '30m', seconds: 1800 } }, evidence({ records: ledger, current: repeated, now: new Date('2026-11-28T10:05:00.000Z') }));
    // It passes 30 min after 10:00, the time it counts from: said in UTC, to the minute.
    expect(soak).toMatchObject({ passed: false, evidence: 'deployed 5 min ago, 30m required', fix: 'it passes at 2026-11-28 10:30 UTC' });
  });

  it('takes the last test run of the configuration the source runs, and names its failures', () => {
    const failing = run('20261128T110000000Z-dddddd', HASH_B, { passed: 3, failed: 2, skipped: 0, errors: 0 });
    const ofOlder = run('20261128T120000000Z-eeeeee', HASH_A, { passed: 5, failed: 0, skipped: 0, errors: 0 });
    const [tests] = checkGates({ tests: true }, evidence({ testRuns: [ofOlder, failing] }));
    expect(tests).toEqual({ gate: 'tests', required: 'pass', passed: false, evidence: 'the last run against staging\'s configuration (deployed at 4a530e8), tests of commit 954b75e, had 2 failures (run 20261128T110000000Z-dddddd)', fix: 'once what fails is fixed, run the suite against staging: `voxform test --against live --env staging`' });
    const [none] = checkGates({ tests: true }, evidence({ testRuns: [ofOlder] }));
    expect(none?.evidence).toBe('no `voxform test --against live` run against staging since commit 4a530e8 was deployed');
    // The fix names the run as this run of promote was given: its manifests and service.
    const commands = { test: 'voxform test --against live -f p.yaml --env staging --local', report: 'voxform report --since-deploy -f p.yaml --env staging --local' };
    expect(checkGates({ tests: true }, evidence({ testRuns: [ofOlder], commands }))[0]?.fix).toBe('run the suite against staging: `voxform test --against live -f p.yaml --env staging --local`');
    const passing = run('20261128T130000000Z-ffffff', HASH_B, { passed: 5, failed: 0, skipped: 1, errors: 0 });
    expect(checkGates({ tests: true }, evidence({ testRuns: [passing, failing] }))[0]).toMatchObject({ passed: true, evidence: 'the last run against staging\'s configuration (deployed at 4a530e8), tests of commit 954b75e, passed: 5 passed, 0 failed, 1 skipped (run 20261128T130000000Z-ffffff)' });
    // A run read outside git, against a rollback's configuration: each said as it is.
    const rollback = { ...repeat, source: { commit: 'bbbbbbb'.padEnd(40, '2'), rollbackOf: 'ORIGIN' } };
    const outsideGit = { ...passing, source: {} };
    expect(checkGates({ tests: true }, evidence({ current: rollback, origin: deploy, testRuns: [outsideGit] }))[0]?.evidence).toBe(
      "the last run against staging's configuration (a rollback to record ORIGIN, commit 4a530e8), tests of no known commit, passed: 5 passed, 0 failed, 1 skipped (run 20261128T130000000Z-ffffff)",
    );
    // An apply with nothing to do, from a later commit, repeats the configuration: the commit named is the deploy's.
    const repeatedLater = { ...repeat, source: { commit: '951054b'.padEnd(40, '0'), uncommitted: false } };
    const ledger = [repeatedLater, deploy, older];
    expect(checkGates({ tests: true }, evidence({ records: ledger, current: repeatedLater, testRuns: [passing] }))[0]?.evidence).toBe(
      "the last run against staging's configuration (deployed at 4a530e8), tests of commit 954b75e, passed: 5 passed, 0 failed, 1 skipped (run 20261128T130000000Z-ffffff)",
    );
    expect(checkGates({ tests: true }, evidence({ records: ledger, current: repeatedLater, testRuns: [ofOlder] }))[0]?.evidence).toBe('no `voxform test --against live` run against staging since commit 4a530e8 was deployed');
    // The only run of the configuration is not sealed (an older voxform's): said so, with the deploy's commit, not the later apply's.
    expect(checkGates({ tests: true }, evidence({ records: ledger, current: repeatedLater, testRuns: [ofOlder], unsealedTestRuns: [passing] }))[0]).toMatchObject({
      passed: false,
      evidence: "the last run against staging's configuration (deployed at 4a530e8), run 20261128T130000000Z-ffffff, is not sealed by voxform under this API key (written by a voxform that does not seal records, under another API key, or by hand) and must be run again",
      fix: 'run the suite against staging: `voxform test --against live --env staging`',
    });
    const skippedOnly = run('20261128T130000000Z-ffffff', HASH_B, { passed: 0, failed: 0, skipped: 4, errors: 0 });
    expect(checkGates({ tests: true }, evidence({ testRuns: [skippedOnly] }))[0]?.passed).toBe(false);
  });

  it('says the errors of a run as errors, not failures: a test the service could not run did not fail', () => {
    const tested = (summary: { passed: number; failed: number; skipped: number; errors: number }) => checkGates({ tests: true }, evidence({ testRuns: [run('20261128T110000000Z-dddddd', HASH_B, summary)] }))[0];
    const prefix = "the last run against staging's configuration (deployed at 4a530e8), tests of commit 954b75e,";
    expect(tested({ passed: 2, failed: 0, skipped: 0, errors: 1 })).toMatchObject({ passed: false, evidence: `${prefix} had 1 error (run 20261128T110000000Z-dddddd)` });
    expect(tested({ passed: 0, failed: 1, skipped: 0, errors: 2 })).toMatchObject({ passed: false, evidence: `${prefix} had 1 failure and 2 errors (run 20261128T110000000Z-dddddd)` });
    expect(tested({ passed: 0, failed: 3, skipped: 0, errors: 0 })).toMatchObject({ passed: false, evidence: `${prefix} had 3 failures (run 20261128T110000000Z-dddddd)` });
  });

  it("takes only a run of the checkout's own test files: a newer run of a pull request's passes over, and says why when it is the only one", () => {
    const failing = run('20261128T110000000Z-dddddd', HASH_B, { passed: 0, failed: 1, skipped: 0, errors: 0 });
    const ofPullRequest = run('20261128T120000000Z-eeeeee', HASH_B, { passed: 1, failed: 0, skipped: 0, errors: 0 }, OTHER_SUITE);
    expect(checkGates({ tests: true }, evidence({ testRuns: [ofPullRequest, failing] }))[0]).toMatchObject({ passed: false, evidence: 'the last run against staging\'s configuration (deployed at 4a530e8), tests of commit 954b75e, had 1 failure (run 20261128T110000000Z-dddddd)' });
    expect(checkGates({ tests: true }, evidence({ testRuns: [ofPullRequest] }))[0]).toMatchObject({
      passed: false,
      evidence: "no run of this checkout's test files against staging's configuration (deployed at 4a530e8): the last one (run 20261128T120000000Z-eeeeee, tests of commit 954b75e) ran other test files than this commit's",
    });
    const unknownFiles = { ...run('20261128T120000000Z-eeeeee', HASH_B, { passed: 1, failed: 0, skipped: 0, errors: 0 }), suiteDigest: undefined };
    expect(checkGates({ tests: true }, evidence({ testRuns: [unknownFiles] }))[0]?.evidence).toBe(
      "no run of this checkout's test files against staging's configuration (deployed at 4a530e8): the last one (run 20261128T120000000Z-eeeeee, tests of commit 954b75e) was recorded without the test files it ran (by an earlier voxform)",
    );
    expect(checkGates({ tests: true }, evidence({ testRuns: [ofPullRequest], suite: { problem: 'this checkout has no test suite (tests/ beside the manifest holds no test file)', fix: 'put the test files in tests/' } }))[0]?.evidence).toBe(
      'this checkout has no test suite (tests/ beside the manifest holds no test file), so no run against staging can stand for its tests',
    );
    // With no run yet, the same: "run the suite" would send the user to a suite that is not there.
    expect(checkGates({ tests: true }, evidence({ testRuns: [], suite: { problem: 'this checkout has no test suite (tests/ beside the manifest holds no test file)', fix: 'put the test files in tests/' } }))[0]).toMatchObject({
      evidence: 'this checkout has no test suite (tests/ beside the manifest holds no test file), so no run against staging can stand for its tests',
      fix: 'put the test files in tests/',
    });
  });

  it('counts the calls of the version the source runs, and refuses a regression whose interval excludes zero', () => {
    const before = version('20261128T080000000Z-aaaaaa', HASH_A, 400, 6, undefined);
    const steady = calls([before, version('20261128T100000000Z-bbbbbb', HASH_B, 120, 2, before.key)]);
    expect(checkGates({ minCalls: 50, noRegression: ['error_rate', 'transfer_rate'] }, evidence({ calls: steady })).map((r) => [r.gate, r.passed, r.evidence])).toEqual([
      ['min_calls', true, 'desk ran 120 calls'],
      ['no_regression', true, 'no metric is worse than before (95% intervals)'],
    ]);
    // One call, and `min_calls: 1`, are said in the singular.
    const once = calls([version('20261128T100000000Z-bbbbbb', HASH_B, 1, 0, undefined)]);
    expect(checkGates({ minCalls: 1 }, evidence({ calls: once }))[0]?.evidence).toBe('desk ran 1 call');
    const twoAgents = { ...repeat, agents: { ...repeat.agents, front: { id: 'ag_s', config: { prompt: HASH_B }, configHash: HASH_B, maskedPaths: [] } } };
    expect(checkGates({ minCalls: 1 }, evidence({ calls: once, current: twoAgents }))[0]?.evidence).toBe('every agent ran at least 1 call (fewest: desk, 1)');
    expect(checkGates({ minCalls: 3 }, evidence({ calls: once, current: twoAgents }))[0]?.fix).toBe('it passes after 2 more calls of desk and 2 more calls of front with this configuration');
    const few = checkGates({ minCalls: 200 }, evidence({ calls: steady }))[0];
    expect(few?.evidence).toBe('desk ran 120 calls with this configuration, 200 required');
    const worse = calls([before, version('20261128T100000000Z-bbbbbb', HASH_B, 400, 25, before.key, 'higher')]);
    expect(checkGates({ noRegression: ['error_rate'] }, evidence({ calls: worse }))[0]?.evidence).toBe('error rate 6.3% vs 1.5% before, interval excludes zero');
    // Every metric that got worse is named, not the first alone: the report shows them all.
    const bothWorse = version('20261128T100000000Z-bbbbbb', HASH_B, 400, 25, before.key, 'higher');
    bothWorse.metrics.transfer_rate = rate(40, 400);
    if (bothWorse.comparison) bothWorse.comparison.transfer_rate = { difference: 0.1, low: 0.05, high: 0.15, verdict: 'higher' };
    expect(checkGates({ noRegression: ['error_rate', 'transfer_rate'] }, evidence({ calls: calls([before, bothWorse]) }))[0]?.evidence).toBe(
      'error rate 6.3% vs 1.5% before, transfer rate 10.0% vs 0.0% before, intervals exclude zero',
    );
    // And every agent's: one whose comparison needs more calls does not hide another's regression.
    const front = { id: 'ag_f', config: { prompt: HASH_B }, configHash: HASH_B, maskedPaths: [] };
    const agentsOf = new Map([...calls([before, bothWorse]), ['ag_f', { ...calls([]).get('ag_s')!, agent_id: 'ag_f', name: 'front', versions: [before, version('20261128T100000000Z-bbbbbb', HASH_B, 12, 0, before.key, 'not enough calls')] }]]);
    expect(checkGates({ noRegression: ['error_rate'] }, evidence({ calls: agentsOf, current: { ...repeat, agents: { ...repeat.agents, a_front: front } } }))[0]?.evidence).toBe('desk: error rate 6.3% vs 1.5% before, interval excludes zero');
    // Seconds as the call report writes them, so the gate and the report say the same.
    const [earlier, slower] = [version('20261128T080000000Z-aaaaaa', HASH_A, 400, 6, undefined), version('20261128T100000000Z-bbbbbb', HASH_B, 400, 6, '20261128T080000000Z-aaaaaa', 'higher')];
    earlier.metrics.duration_seconds.mean = 12.34;
    slower.metrics.duration_seconds.mean = 123.4;
    expect(checkGates({ noRegression: ['mean_duration_seconds'] }, evidence({ calls: calls([earlier, slower]) }))[0]?.evidence).toBe('mean duration 123s vs 12.3s before, interval excludes zero');
    const thin = calls([before, version('20261128T100000000Z-bbbbbb', HASH_B, 12, 0, before.key, 'not enough calls')]);
    expect(checkGates({ noRegression: ['error_rate'] }, evidence({ calls: thin }))[0]).toMatchObject({
      evidence: '12 calls with this configuration and 400 before; a comparison needs 30 each',
      fix: 'the comparison needs 18 more calls with this configuration',
    });
    // Too few calls before: new calls go to this configuration, so the gate cannot pass as it is set.
    const thinBefore = version('20261128T080000000Z-aaaaaa', HASH_A, 8, 0, undefined);
    const fewBefore = calls([thinBefore, version('20261128T100000000Z-bbbbbb', HASH_B, 60, 0, thinBefore.key, 'not enough calls')]);
    expect(checkGates({ noRegression: ['error_rate'] }, evidence({ calls: fewBefore }))[0]).toMatchObject({
      passed: false,
      evidence: '60 calls with this configuration and 8 before; a comparison needs 30 each, and the version before takes no more calls',
      fix: 'it cannot pass until the version before has 30 calls, which no new call adds to, or the gate is changed',
    });
    expect(checkGates({ noRegression: ['error_rate'] }, evidence({ calls: worse }))[0]?.fix).toBe('compare the versions with `voxform report --since-deploy --env staging`');
    expect(few?.fix).toBe('it passes after 80 more calls of desk with this configuration');
    // No call yet with this configuration is said as such, not blamed on the version before.
    expect(checkGates({ noRegression: ['error_rate'] }, evidence())[0]).toMatchObject({ passed: true, evidence: 'no call yet with this configuration to compare (min_calls is the gate for that)' });
    const first = calls([version('20261128T100000000Z-bbbbbb', HASH_B, 120, 2, undefined)]);
    expect(checkGates({ noRegression: ['error_rate'] }, evidence({ calls: first }))[0]).toMatchObject({ passed: true, evidence: 'no earlier version with calls to compare with' });
  });

  it('counts the calls of the configuration in every period it ran, and soaks from the rollback that put it back, saying so', () => {
    // v2 (HASH_A) ran 80 calls, v3 (HASH_B) 40, then a rollback put v2 back a minute ago.
    const v2 = record('20261128T080000000Z-aaaaaa', '2026-11-28T08:00:00.000Z', HASH_A);
    const v3 = record('20261128T100000000Z-bbbbbb', '2026-11-28T10:00:00.000Z', HASH_B);
    const rollback = { ...record('20261128T103400000Z-dddddd', '2026-11-28T10:34:00.000Z', HASH_A), source: { commit: COMMIT, rollbackOf: v2.id } };
    const ledger = { records: [rollback, v3, v2], current: rollback, origin: v2 };
    const ran = version(v2.id, HASH_A, 80, 1, undefined);
    const replaced = version(v3.id, HASH_B, 40, 0, v2.id, 'not enough calls');
    const gates = { minCalls: 50, noRegression: ['error_rate' as const], soak: { text: '2m', seconds: 120 } };
    expect(checkGates(gates, evidence({ ...ledger, calls: calls([ran, replaced]) })).map((r) => [r.gate, r.passed, r.evidence])).toEqual([
      ['min_calls', true, 'desk ran 80 calls'],
      ['no_regression', true, 'no call yet since this configuration was deployed again to compare (min_calls is the gate for that)'],
      ['soak', false, 'deployed again by a rollback 1 min ago, 2m required'],
    ]);
    // Calls since the rollback add to the earlier ones; the comparison takes those since the rollback alone.
    const since = version(rollback.id, HASH_A, 10, 0, v3.id, 'not enough calls');
    expect(checkGates({ minCalls: 100, noRegression: ['error_rate'] }, evidence({ ...ledger, calls: calls([ran, replaced, since]) })).map((r) => r.evidence)).toEqual([
      'desk ran 90 calls with this configuration, 100 required',
      '10 calls since this configuration was deployed again and 40 before; a comparison needs 30 each',
    ]);
    // The configuration applied again from a commit, not by a rollback: said as such.
    const reapplied = record('20261128T103400000Z-eeeeee', '2026-11-28T10:34:00.000Z', HASH_A);
    expect(checkGates({ soak: gates.soak }, evidence({ records: [reapplied, v3, v2], current: reapplied }))[0]?.evidence).toBe('deployed again 1 min ago, 2m required');
  });

  it('prints a table and refuses with one sentence naming the first failed gate', () => {
    const results = checkGates({ tests: true, soak: { text: '2h', seconds: 7200 } }, evidence());
    expect(renderGateTable(results, 'staging', 'production')).toBe(
      [
        'Gates of production (evidence from staging):',
        '  ✗ tests pass  no `voxform test --against live` run against staging since commit 4a530e8 was deployed',
        '  ✗ soak 2h     deployed 35 min ago, 2h required',
        '',
      ].join('\n'),
    );
    expect(gateRefusal(results, 'staging', 'production')?.message).toBe(
      'Refusing to promote staging to production: tests: no `voxform test --against live` run against staging since commit 4a530e8 was deployed; also failing: soak.',
    );
    // The hint gives each failed gate its own fix, then where the gates are changed.
    expect(gateRefusal(results, 'staging', 'production')?.hint).toBe(
      'tests: run the suite against staging: `voxform test --against live --env staging`. soak: it passes at 2026-11-28 12:00 UTC. ' +
        'The gates are set in the manifest under environments.production.gates (docs/promotion.md); the table above shows each with its evidence.',
    );
    expect(gateRefusal([], 'staging', 'production')).toBeUndefined();
    // With no gates, the table says so without naming a promote_from: --from may name the source, where the target sets none.
    expect(renderGateTable([], 'production', 'staging')).toBe('Gates of staging: none set, so production is promoted to it without conditions.\n');
  });

  it("takes a rollback's configuration from the record it restored, through a rollback to a rollback, and knows none for a rollback of some agents", () => {
    const first = { ...older, source: { commit: 'aaaaaaa'.padEnd(40, '1'), uncommitted: false } };
    const ranAt = { commit: 'bbbbbbb'.padEnd(40, '2') };
    const rollback = { ...record('20261128T110000000Z-dddddd', '2026-11-28T11:00:00.000Z', HASH_A), source: { ...ranAt, rollbackOf: first.id } };
    const again = { ...record('20261128T120000000Z-eeeeee', '2026-11-28T12:00:00.000Z', HASH_A), source: { ...ranAt, rollbackOf: rollback.id } };
    const ledger = [again, rollback, deploy, first];
    expect(configurationOrigin(ledger, deploy)).toEqual({ record: deploy });
    expect(configurationOrigin(ledger, rollback)).toEqual({ record: first });
    expect(configurationOrigin(ledger, again)).toEqual({ record: first });
    expect(deployedAs(rollback, first)).toBe(`a rollback to record ${first.id} (commit aaaaaaa)`);
    expect(configurationOrigin([rollback, deploy], rollback)).toEqual({ problem: `record ${first.id} is not in its history` });
    const twoAgents = { ...first, agents: { ...first.agents, billing: { id: 'ag_b', config: {}, configHash: HASH_A, maskedPaths: [] } } };
    expect(configurationOrigin([rollback, deploy, twoAgents], rollback)).toEqual({ problem: `the rollback did not restore every agent of record ${first.id} under the name it has there (billing)` });
    const looped = { ...rollback, source: { ...ranAt, rollbackOf: rollback.id } };
    expect(configurationOrigin([looped], looped)).toEqual({ problem: `the rollbacks it restored lead back to record ${rollback.id}` });
  });

  it('follows a chain of thousands of rollbacks with one listing of the ledger', () => {
    const chain: HistoryRecord[] = [{ ...older, source: { commit: 'aaaaaaa'.padEnd(40, '1'), uncommitted: false } }];
    for (let i = 1; i <= 2_000; i++) {
      const id = `20261128T11${String(i).padStart(7, '0')}Z-${String(i).padStart(6, '0')}`;
      chain.unshift({ ...record(id, '2026-11-28T11:00:00.000Z', HASH_A), source: { commit: 'bbbbbbb'.padEnd(40, '2'), rollbackOf: (chain[0] as HistoryRecord).id } });
    }
    let reads = 0;
    const ledger = new Proxy(chain, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++;
        return Reflect.get(target, key, receiver);
      },
    });
    expect(configurationOrigin(ledger, chain[0] as HistoryRecord)).toEqual({ record: chain.at(-1) });
    // Each record read about once, not once per step of the chain.
    expect(reads).toBeLessThan(3 * chain.length);
  });

  it('refuses a source whose last apply did not finish, or that never applied', () => {
    expect(() => deployedRecord([record('20261128T110000000Z-dddddd', '2026-11-28T11:00:00.000Z', HASH_B, 'failed'), deploy], 'staging', 'staging@local')).toThrow(
      "staging's last apply (20261128T110000000Z-dddddd) ended failed: what staging runs is not known.",
    );
    expect(() => deployedRecord([], 'staging', 'staging@http://127.0.0.1:9')).toThrow('staging has no apply in the history of staging@http://127.0.0.1:9: there is nothing to promote.');
    expect(deployedRecord(records, 'staging', 'staging@local')).toBe(repeat);
  });

  it('names a few of the files two commits hold differently, then counts the rest', () => {
    const files = ['a.md', 'b.md', 'c.md', 'd.md', 'e.md', 'f.md', 'voxform.yaml'];
    const checkout = { commit: 'd422dd5'.padEnd(40, '0'), uncommitted: false };
    expect(() => checkCheckout(deploy, { record: deploy }, checkout, 'staging', files)).toThrow(
      'staging runs commit 4a530e8, and this checkout is at d422dd5; the two commits differ in a.md, b.md, c.md, d.md, e.md and 2 more.',
    );
    // When git cannot tell which, the sentence names none; with none, the commits hold the same deploy.
    expect(() => checkCheckout(deploy, { record: deploy }, checkout, 'staging', undefined)).toThrow(/^staging runs commit 4a530e8, and this checkout is at d422dd5\.$/);
    expect(checkCheckout(deploy, { record: deploy }, checkout, 'staging', [])).toBe(deploy);
  });
});
