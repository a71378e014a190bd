/**
 * Promotion end to end, each `promote` (and the report a gate is compared with) through the built CLI
 * (the rest in the test's process, see setUp) against the emulator on loopback, in a git checkout:
 * staging applied; a failing `voxform test --against live` recorded, so `promote --to production`
 * refuses naming the tests gate; the agent fixed and applied to staging, a passing run recorded, the
 * soak met (the staging record's time set back in the ledger, as a fixture) → the promotion applies
 * staging's configuration to production's agent, the ledger links the two, and `diff` shows no
 * difference left but the overlays'.
 */
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { GITIGNORE_ENTRIES } from '../../src/templates/gitignore.js';
import { makeTree, runCli, runCliInProcess, type CliResult } from '../helpers/cli.js';
import { commitAll, git } from '../helpers/git.js';
import { resealed } from '../helpers/ledger.js';

const STAGING = '-OKstagingFrontDesk01';
const PRODUCTION = '-OKdqbqetEcM4ak369ym';
const SECRET = 'hook-secret-promote-5e6f7a8b';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

function manifest(firstMessage: string, production = { config: 'language: en-US', gates: '    gates: { tests: pass, min_calls: 2, soak: 2h }' }): string {
  return [
    'version: 1',
    'agents:',
    '  desk:',
    '    id: -OKspareAgent0000001',
    '    name: Front desk',
    '    config:',
    '      prompt: You are the front desk of Acme Dental.',
    `      first_message: "${firstMessage}"`,
    '      session_data_webhook: { url: "http://127.0.0.1:9/end", headers: { x-token: "${env:HOOK_TOKEN}" } }',
    'environments:',
    '  staging:',
    `    agents: { desk: { id: "${STAGING}", config: { language: en-GB } } }`,
    '  production:',
    `    agents: { desk: { id: "${PRODUCTION}", config: { ${production.config} } } }`,
    '    promote_from: staging',
    production.gates,
    '',
  ].join('\n');
}

const TESTS = ['agent: desk', 'tests:', '  - name: greets with opening hours', '    turns:', '      - expect: [{ contains: open 9 to 5 }]', ''].join('\n');

/**
 * A git checkout of `manifestText` with an emulator. `cli` runs the built CLI as a process: for the
 * promotions, what these tests are about. `inProcess` runs it in the test's own process: for the
 * applies, test runs, traffic and read-backs that bring staging and the ledger to where a promotion
 * starts (the same commands, secrets and redaction, without a process to start for each).
 */
async function setUp(
  manifestText = manifest('Hello from Acme Dental.'),
  gitignore = '.voxform/\n',
): Promise<{ dir: string; cli: (args: string[]) => Promise<CliResult>; inProcess: (args: string[]) => Promise<CliResult>; emulator: RunningEmulator; outputs: string[] }> {
  const emulator = await startEmulator({ port: 0, quiet: true, webhooks: 'none' });
  cleanups.push(() => emulator.close());
  const tree = await makeTree({ 'voxform.yaml': manifestText, 'tests/desk.test.yaml': TESTS, '.gitignore': gitignore });
  cleanups.push(tree.cleanup);
  const outputs: string[] = [];
  const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: emulator.apiKey, HOOK_TOKEN: SECRET };
  const cli = async (args: string[]) => {
    const result = await runCli(args, { cwd: tree.dir, env, timeoutMs: 120_000 });
    outputs.push(result.stdout, result.stderr);
    return result;
  };
  const inProcess = async (args: string[]) => {
    const result = await runCliInProcess(args, { cwd: tree.dir, env });
    outputs.push(result.stdout, result.stderr);
    return result;
  };
  git(tree.dir, 'init', '-q', '-b', 'main');
  return { dir: tree.dir, cli, inProcess, emulator, outputs };
}

async function liveAgent(emulator: RunningEmulator, id: string): Promise<Agent> {
  const response = await fetch(`${emulator.url}/agents/${encodeURIComponent(id)}`, { headers: { authorization: emulator.apiKey } });
  return (await response.json()) as Agent;
}

/**
 * Hours pass: every record of the ledger is dated `hours` earlier. (Moving one record alone would
 * not do: a record is taken as no earlier than one appended before it, docs/history.md.)
 */
async function setLedgerTimeBack(dir: string, hours: number, apiKey: string): Promise<void> {
  const folder = path.join(dir, '.voxform/history');
  for (const name of (await readdir(folder)).filter((entry) => entry.endsWith('.json'))) {
    const file = path.join(folder, name);
    const record = JSON.parse(await readFile(file, 'utf8')) as { at: string };
    record.at = new Date(Date.parse(record.at) - hours * 3600_000).toISOString();
    // Sealed again with the run's API key: a record changed without it is no evidence for promotion.
    await writeFile(file, JSON.stringify(resealed(record, apiKey), null, 2));
  }
}

describe('voxform promote', () => {
  it('refuses on a failing test run, then gives production exactly what staging runs once the gates pass', { timeout: 240_000 }, async () => {
    const { dir, cli, inProcess, emulator, outputs } = await setUp();
    const c1 = commitAll(dir, 'v1');
    expect((await inProcess(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);

    const failing = await inProcess(['test', '--env', 'staging', '--against', 'live']);
    expect(failing.code).toBe(1);
    const refused = await cli(['promote', '--to', 'production', '--auto-approve']);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain('✗ tests pass');
    expect(refused.stderr).toContain(`error[promote_gate_failed]: Refusing to promote staging to production: tests: the last run against staging's configuration (deployed at ${c1.slice(0, 7)}), tests of commit ${c1.slice(0, 7)}, had 1 failure`);
    expect((await liveAgent(emulator, PRODUCTION)).config.first_message).not.toBe('Hello from Acme Dental.');
    // A run narrowed by --grep is no evidence: it would stand for the whole suite in the gate.
    const narrowed = await inProcess(['test', '--env', 'staging', '--against', 'live', '--grep', 'greets']);
    expect(narrowed.stderr).toContain('note: this run is not recorded as evidence for `voxform promote`: it is narrowed by --grep; the tests gate takes only a live run of the whole suite as its files ask.');
    // So is a run of some of the suite's files, named as paths; naming all of them is the whole suite.
    await writeFile(path.join(dir, 'tests/hours.test.yaml'), TESTS.replace('greets with opening hours', 'names the opening hours'));
    const partial = await inProcess(['test', '--env', 'staging', '--against', 'live', 'tests/desk.test.yaml']);
    expect(partial.stderr).toContain('note: this run is not recorded as evidence for `voxform promote`: it leaves out 1 test file of the suite (tests/hours.test.yaml); the tests gate');
    let recordedRuns = JSON.parse((await inProcess(['history', '--env', 'staging', '--format', 'json'])).stdout) as { test_runs: unknown[] };
    expect(recordedRuns.test_runs).toHaveLength(1);
    const whole = await inProcess(['test', '--env', 'staging', '--against', 'live', 'tests/hours.test.yaml', 'tests']);
    expect(whole.stderr).not.toContain('not recorded as evidence');
    recordedRuns = JSON.parse((await inProcess(['history', '--env', 'staging', '--format', 'json'])).stdout) as { test_runs: unknown[] };
    expect(recordedRuns.test_runs).toHaveLength(2);
    await rm(path.join(dir, 'tests/hours.test.yaml'));

    // The fix: the agent says what the test expects; staging gets it from a new commit.
    await writeFile(path.join(dir, 'voxform.yaml'), manifest('Hello from Acme Dental, open 9 to 5.'));
    const c2 = commitAll(dir, 'v2');
    const elsewhere = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(elsewhere.code).toBe(1);
    expect(elsewhere.stderr).toContain(`staging runs commit ${c1.slice(0, 7)}, and this checkout is at ${c2.slice(0, 7)}`);
    expect((await inProcess(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);

    // A pull request's own tests, run against staging (as the CI recipe's pull-request job does),
    // are evidence of its test files, never of main's: the gate passes them over and says why.
    git(dir, 'checkout', '-q', '-b', 'pr');
    await writeFile(path.join(dir, 'tests/desk.test.yaml'), TESTS.replace('open 9 to 5', 'Acme'));
    commitAll(dir, 'tests that pass whatever the agent says');
    expect((await inProcess(['test', '--env', 'staging', '--against', 'both'])).code).toBe(0);
    git(dir, 'checkout', '-q', 'main');
    const othersTests = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(othersTests.code).toBe(1);
    expect(othersTests.stdout).toMatch(new RegExp(`✗ tests pass +no run of this checkout's test files against staging's configuration \\(deployed at ${c2.slice(0, 7)}\\): the last one \\(run [0-9a-fTZ-]+, tests of commit [0-9a-f]{7}\\) ran other test files than this commit's\n`));

    expect((await inProcess(['test', '--env', 'staging', '--against', 'live'])).code).toBe(0);
    expect((await inProcess(['test', '--env', 'staging', '--against', 'live'])).code).toBe(0);

    const history = JSON.parse((await inProcess(['history', '--env', 'staging', '--format', 'json'])).stdout) as {
      records: Array<{ id: string; source: { commit: string } }>;
      test_runs: Array<{ summary: { passed: number; failed: number }; agents: Record<string, { id: string; config_hash: string }> }>;
    };
    expect(history.test_runs.map((run) => [run.summary.passed, run.summary.failed])).toEqual([
      [1, 0],
      [1, 0],
      [1, 0],
      [0, 2],
      [0, 1],
    ]);
    expect(history.test_runs[0]?.agents.desk?.id).toBe(STAGING);
    const stagingRecord = history.records[0] as { id: string; source: { commit: string } };
    expect(stagingRecord.source.commit).toBe(c2);

    // Production figures come from calls the agents took, not from the test runs' own sessions (test traffic).
    const traffic = await inProcess(['emulator', 'traffic', '--url', emulator.url, '--env', 'staging', '--agent', 'desk', '--calls', '5']);
    expect(traffic.code, traffic.stderr).toBe(0);
    const soaking = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(soaking.code).toBe(1);
    expect(soaking.stdout).toMatch(/✓ tests pass +the last run against staging's configuration \(deployed at [0-9a-f]{7}\), tests of commit [0-9a-f]{7}, passed: 1 passed, 0 failed/);
    // Refused as the promotion itself is: the error's code and its hint, after the plan.
    expect(soaking.stderr).toMatch(/^error\[promote_gate_failed\]: Refusing to promote staging to production: soak: deployed \d+ min ago, 2h required\.\n {2}hint: /m);

    await setLedgerTimeBack(dir, 3, emulator.apiKey);
    const dryRun = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(dryRun.stdout).toContain('✓ soak 2h');
    expect(dryRun.stdout).toContain('~ agent.desk');
    expect(dryRun.stdout).toContain('Dry run: nothing was applied.');
    expect(dryRun.code).toBe(0);

    const promoted = await cli(['promote', '--to', 'production', '--auto-approve']);
    expect(promoted.stderr).not.toMatch(/^error/m);
    expect(promoted.code).toBe(0);
    const production = await liveAgent(emulator, PRODUCTION);
    const staging = await liveAgent(emulator, STAGING);
    expect(production.config.first_message).toBe('Hello from Acme Dental, open 9 to 5.');
    expect(production.config.prompt).toBe(staging.config.prompt);
    expect(production.config.language).toBe('en-US');

    const productionHistory = JSON.parse((await inProcess(['history', '--env', 'production', '--format', 'json'])).stdout) as {
      workspace: string;
      records: Array<{ command: string; source: { commit: string; promoted_from: { workspace: string; record: string } | null } }>;
    };
    const record = productionHistory.records[0];
    expect(record?.source.promoted_from).toEqual({ workspace: productionHistory.workspace.replace(/^production@/, 'staging@'), record: stagingRecord.id });
    expect(record?.source.commit).toBe(c2);
    expect(record?.command).toBe('voxform promote --to production --from staging');
    expect((await inProcess(['history', '--env', 'production'])).stdout).toContain(`promoted from staging@${emulator.url} record ${stagingRecord.id}`);

    const diff = await inProcess(['diff', '--env', 'staging', '--env', 'production', '--format', 'json']);
    expect(diff.code).toBe(0);
    const document = JSON.parse(diff.stdout) as { summary: { unexpected: number }; agents: Array<{ differences: Array<{ path: string; expected: boolean }> }> };
    expect(document.summary.unexpected).toBe(0);
    expect(document.agents[0]?.differences).toEqual([{ path: 'config.language', expected: true, drift: [], sensitive: false, a: 'en-GB', b: 'en-US' }]);
    const text = await inProcess(['diff', '--env', 'staging', '--env', 'production']);
    expect(text.stdout).toContain('differ in 1 field: 0 unexpected, 1 set differently by the overlays');
    expect(text.stdout).toContain('~ config.language: "en-GB" → "en-US" (expected: the overlays differ)');
    expect((await inProcess(['plan', '--env', 'production', '--detailed-exitcode'])).code).toBe(0);

    const ledger = await readdir(path.join(dir, '.voxform/history'), { recursive: true });
    const stored = await Promise.all(ledger.filter((name) => name.endsWith('.json')).map((name) => readFile(path.join(dir, '.voxform/history', name), 'utf8')));
    for (const text of [...outputs, ...stored]) expect(text).not.toContain(SECRET);
  });

  it("promotes in the documented setup: voxform init's .gitignore, the state and ledger committed after each apply", { timeout: 180_000 }, async () => {
    const { dir, cli, inProcess, emulator } = await setUp(manifest('Hello from Acme Dental.', { config: 'language: en-US', gates: '' }), `${GITIGNORE_ENTRIES.join('\n')}\n`);
    const c1 = commitAll(dir, 'v1');
    expect((await inProcess(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    // The state and the ledger the apply wrote are voxform's own: not changes beside the commit.
    expect(git(dir, 'status', '--porcelain')).toContain('.voxform/');
    expect((await inProcess(['history', '--env', 'staging'])).stdout).toContain(`commit ${c1.slice(0, 7)} on main\n`);
    const uncommittedState = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(uncommittedState.stderr).not.toMatch(/^error/m);
    expect(uncommittedState.code).toBe(0);

    // docs/ci.md: commit the state after each apply. The commit differs from staging's in .voxform/ alone.
    commitAll(dir, 'state [skip ci]');
    const stateCommitted = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(stateCommitted.stderr).not.toMatch(/^error/m);
    expect(stateCommitted.code).toBe(0);

    // Applied again from the state commit (nothing to do), the state rewritten: still the same source.
    expect((await inProcess(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const promoted = await cli(['promote', '--to', 'production', '--auto-approve']);
    expect(promoted.stderr).not.toMatch(/^error/m);
    expect(promoted.code).toBe(0);
    expect((await liveAgent(emulator, PRODUCTION)).config.first_message).toBe('Hello from Acme Dental.');
    for (const env of ['staging', 'production']) expect((await inProcess(['history', '--env', env])).stdout).not.toContain('with uncommitted changes');

    // A manifest changed and committed, staging not applied: the hint is the way forward, not back.
    commitAll(dir, 'state [skip ci]');
    await writeFile(path.join(dir, 'voxform.yaml'), manifest('Hello again.', { config: 'language: en-US', gates: '' }));
    commitAll(dir, 'v2');
    const stale = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toMatch(/^error\[promote_checkout_mismatch\]: staging runs commit [0-9a-f]{7}, and this checkout is at [0-9a-f]{7}; the two commits differ in voxform\.yaml\.\n {2}hint: Apply staging from this checkout first \(`voxform apply --env staging`\)/m);
    expect((await inProcess(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    expect((await cli(['promote', '--to', 'production', '--dry-run'])).code).toBe(0);
  });

  it('no_regression compares with the configuration before, after a rollback and a re-apply of the regressed one, as the report does', { timeout: 300_000 }, async () => {
    const transferring = (prompt: string) =>
      manifest('Hello from Acme Dental.', { config: 'language: en-US', gates: '    gates: { no_regression: [transfer_rate] }' }).replace(
        '      prompt: You are the front desk of Acme Dental.',
        `      prompt: ${prompt}\n      flow: { call_transfer: { phone: "+15551230001" } }`,
      );
    const { dir, cli, inProcess, emulator } = await setUp(transferring('You are the front desk of Acme Dental.'), '.voxform/\ntransfers.yaml\n');
    // Every call a conversation; 4% of them transferred, 50% once the prompt asks for it.
    const profile = ['name: transfers', 'window: 1h', 'version_effect: 0', 'outcomes: { user-ended: 1 }', 'transfer_rate: 0.04', 'rules:', '  - when: { prompt_contains: "transfer every caller" }', '    scale: { transfers: 12.5 }', ''];
    await writeFile(path.join(dir, 'transfers.yaml'), profile.join('\n'));
    const traffic = async (seed: string) => {
      const result = await inProcess(['emulator', 'traffic', '--url', emulator.url, '--env', 'staging', '--agent', 'desk', '--calls', '100', '--profile', 'transfers.yaml', '--seed', seed]);
      expect(result.code, result.stderr).toBe(0);
    };
    commitAll(dir, 'v1');
    expect((await inProcess(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    await traffic('1');
    await writeFile(path.join(dir, 'voxform.yaml'), transferring('You are the front desk of Acme Dental. Transfer every caller to the office.'));
    commitAll(dir, 'v2');
    expect((await inProcess(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    await traffic('2');
    // The calls are drawn afresh each run (the stream is seeded by the time window too): either rate may have two digits.
    const regressed = /✗ no_regression transfer_rate +transfer rate \d+(\.\d)?% vs \d+(\.\d)?% before, interval excludes zero\n/;
    const first = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(first.code).toBe(1);
    expect(first.stdout).toMatch(regressed);

    // Rolled back, then v2 applied again: the rollback's v1 took no call, and v2's first deploy is v2's own.
    expect((await inProcess(['rollback', 'previous', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    expect((await inProcess(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    await traffic('3');
    const again = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(again.stdout).toMatch(regressed);
    expect(again.stderr).toMatch(/^error\[promote_gate_failed\]: Refusing to promote staging to production: no_regression: transfer rate /m);
    expect(again.code).toBe(1);

    // The report compares the same two versions: the running deploy and v1's, which had the calls.
    const history = JSON.parse((await inProcess(['history', '--env', 'staging', '--format', 'json'])).stdout) as { records: Array<{ id: string }> };
    const [reapplied, , , v1] = history.records;
    const report = JSON.parse((await cli(['report', '--env', 'staging', '--since-deploy', '--format', 'json'])).stdout) as {
      agents: Array<{ versions: Array<{ key: string; metrics: { calls: number }; comparison: { against: string; transfer_rate: { verdict: string } } | null }> }>;
    };
    const versions = report.agents[0]?.versions ?? [];
    expect(versions.map((version) => [version.key, version.metrics.calls])).toEqual([
      [v1?.id, 100],
      [reapplied?.id, 100],
    ]);
    expect(versions[1]?.comparison?.against).toBe(v1?.id);
    expect(versions[1]?.comparison?.transfer_rate.verdict).toBe('higher');
  });

  it("refuses when the source's last record leaves out an agent of the manifests, as an apply with --target does", { timeout: 120_000 }, async () => {
    const twoAgents = (greeting: string) =>
      [
        'version: 1',
        'agents:',
        `  desk: { id: -OKspareAgent0000001, name: Front desk, config: { prompt: You are the front desk., first_message: "${greeting} desk" } }`,
        `  booking: { id: -OKspareAgent0000002, name: Booking, config: { prompt: You book visits., first_message: "${greeting} booking" } }`,
        'environments:',
        `  staging: { agents: { desk: { id: "${STAGING}" }, booking: { id: -OKstagingBooking0001 } } }`,
        `  production: { agents: { desk: { id: "${PRODUCTION}" }, booking: { id: -OKdqbqetEcM4ak369yn } }, promote_from: staging }`,
        '',
      ].join('\n');
    const { dir, cli, inProcess, emulator } = await setUp(twoAgents('v1'));
    commitAll(dir, 'v1');
    expect((await inProcess(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    // The next commit changes both agents; staging is given booking's change alone.
    await writeFile(path.join(dir, 'voxform.yaml'), twoAgents('v2'));
    commitAll(dir, 'v2');
    expect((await inProcess(['apply', '--env', 'staging', '--target', 'agent.booking', '--auto-approve'])).code).toBe(0);
    expect((await liveAgent(emulator, STAGING)).config.first_message).toBe('v1 desk');

    for (const args of [['--dry-run'], ['--auto-approve']]) {
      const refused = await cli(['promote', '--to', 'production', ...args]);
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/^error\[promote_checkout_mismatch\]: The manifests of this checkout give staging's agent desk a configuration its last record \(\S+\) does not hold: /m);
    }
    // Staging never ran desk's v2: production is not given it.
    expect((await liveAgent(emulator, PRODUCTION)).config.first_message).not.toBe('v2 desk');
  });

  it("refuses, dry run or not, when the target's manifests break a mandatory rule, with the gates passing", { timeout: 120_000 }, async () => {
    // Production's overlay gives its agent a first message with a phone number: staging's has none.
    const { dir, cli, inProcess, emulator } = await setUp(manifest('Hello from Acme Dental.', { config: 'language: en-US, first_message: "Call 555-201-3344 for records."', gates: '' }));
    commitAll(dir, 'v1');
    expect((await inProcess(['apply', '--env', 'staging', '--auto-approve'])).code).toBe(0);
    const before = await liveAgent(emulator, PRODUCTION);

    const dryRun = await cli(['promote', '--to', 'production', '--dry-run']);
    expect(dryRun.code).toBe(1);
    expect(dryRun.stdout).toContain('~ agent.desk');
    expect(dryRun.stdout).not.toContain('Dry run: nothing was applied.');
    expect(dryRun.stderr).toContain('mandatory[pii-phone-number]');
    expect(dryRun.stderr).toMatch(/^error\[policy_violated\]: The manifests fail the policy with 1 mandatory finding \(listed above\); nothing was applied\.\n {2}hint: /m);

    const promoted = await cli(['promote', '--to', 'production', '--auto-approve']);
    expect(promoted.code).toBe(1);
    expect(promoted.stderr).toMatch(/^error\[policy_violated\]: /m);
    expect(await liveAgent(emulator, PRODUCTION)).toEqual(before);
  });
});
