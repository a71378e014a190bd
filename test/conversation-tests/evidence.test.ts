/**
 * Which `voxform test --against live` runs are recorded as evidence for `voxform promote`'s tests
 * gate (docs/promotion.md): only a live run of the whole suite, as its files ask. Run on the
 * example project, whose layout (the manifest at the root, its tests in example/tests) has no
 * `tests/` folder beside the manifest.
 */
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTempDirs } from '../helpers/cli.js';
import { SECRETS, useExampleProjects, type ExampleProject } from '../helpers/project.js';

const startProject = useExampleProjects();
const tempDir = useTempDirs();

const NOTE = 'note: this run is not recorded as evidence for `voxform promote`: it ';
const GATE_TAKES = '; the tests gate takes only a live run of the whole suite as its files ask.\n';

async function recordedRuns(project: ExampleProject): Promise<Array<{ suite_digest: string | null; summary: { passed: number; skipped: number } }>> {
  const history = await project.cliInProcess(['history', '--format', 'json']);
  expect(history.code, history.stderr).toBe(0);
  return (JSON.parse(history.stdout) as { test_runs: Array<{ suite_digest: string | null; summary: { passed: number; skipped: number } }> }).test_runs;
}

describe('test runs as evidence for promote', () => {
  it('records no run of the example layout, whose manifest has no tests/ beside it: not one file, nor all of example/tests', async () => {
    const project = await startProject();
    expect((await project.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const noSuite = `${NOTE}runs no suite: a run without paths reads tests/ beside the manifest, which holds no test file${GATE_TAKES}`;
    const oneFile = await project.cliInProcess(['test', 'example/tests/booking.test.yaml', '--against', 'live']);
    expect(oneFile.code, oneFile.stdout).toBe(0);
    expect(oneFile.stderr).toBe(noSuite);
    expect((await project.cliInProcess(['test', 'example/tests', '--against', 'live'])).stderr).toBe(noSuite);
    expect(await recordedRuns(project)).toEqual([]);

    // The suite moved where a run without paths reads it: a run of it is recorded, one of part of it is not.
    await cp(path.join(project.dir, 'example/tests'), path.join(project.dir, 'tests'), { recursive: true });
    const whole = await project.cliInProcess(['test', '--against', 'live']);
    expect(whole.stderr).toBe('');
    const part = await project.cliInProcess(['test', 'tests/booking.test.yaml', '--against', 'live']);
    expect(part.stderr).toBe(`${NOTE}leaves out 1 test file of the suite (tests/front-desk.test.yaml)${GATE_TAKES}`);
    const beyond = await project.cliInProcess(['test', 'tests', 'example/tests/booking.test.yaml', '--against', 'live']);
    expect(beyond.stderr).toBe(`${NOTE}runs test files outside the suite, tests/ (example/tests/booking.test.yaml)${GATE_TAKES}`);
    const runs = await recordedRuns(project);
    expect(runs).toHaveLength(1);
    expect(runs[0]?.suite_digest).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('records the evidence in the state backend --state names, as plan, apply and promote read it', async () => {
    const project = await startProject();
    // A folder of its own beside the project, named as an operator would: relative, outside the project.
    const elsewhere = await tempDir();
    const state = ['--state', path.relative(project.dir, path.join(elsewhere, 'state.json'))];
    expect((await project.cliInProcess(['apply', '--auto-approve', ...state])).code).toBe(0);
    await cp(path.join(project.dir, 'example/tests'), path.join(project.dir, 'tests'), { recursive: true });
    const run = await project.cliInProcess(['test', '--against', 'live', ...state]);
    expect(run.stderr).toBe('');
    expect(run.code, run.stdout).toBe(0);
    const history = await project.cliInProcess(['history', '--format', 'json', ...state]);
    expect((JSON.parse(history.stdout) as { test_runs: unknown[] }).test_runs).toHaveLength(1);
    expect(await recordedRuns(project)).toEqual([]);
  });

  it("records no run that skips the judge's checks or changes a test's repeat:, and a --skip-judge run of a suite with no judge checks", async () => {
    const project = await startProject();
    expect((await project.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    await cp(path.join(project.dir, 'example/tests'), path.join(project.dir, 'tests'), { recursive: true });

    // booking asks for 2 runs of its test; the front desk's tests for 1.
    const fewer = await project.cliInProcess(['test', '--against', 'live', '--repeat', '1']);
    expect(fewer.stderr).toBe(`${NOTE}runs each test 1 time, where "offers to book" asks for 2 (--repeat)${GATE_TAKES}`);
    expect((await project.cliInProcess(['test', '--against', 'live', '--repeat', '2'])).stderr).toContain(`${NOTE}runs each test 2 times, where "greets with the practice's name" asks for 1 (--repeat)`);
    const nothingToSkip = await project.cliInProcess(['test', '--against', 'live', '--skip-judge']);
    expect(nothingToSkip.stderr).toBe('');
    expect(await recordedRuns(project)).toHaveLength(1);

    await writeFile(path.join(project.dir, 'tests/judged.test.yaml'), 'agent: front-desk\ntests:\n  - name: judged\n    turns: [{ expect: [{ judge: Is friendly. }] }]\n');
    const skipped = await project.cliInProcess(['test', '--against', 'live', '--skip-judge']);
    expect(skipped.stdout).toContain('live: 4 passed, 0 failed, 1 skipped\n');
    expect(skipped.stderr).toBe(`${NOTE}skips the judge's checks and simulated callers (--skip-judge)${GATE_TAKES}`);
    expect(await recordedRuns(project)).toHaveLength(1);
  });

  it('records the command of the run as it was given: its test files, target, mode and how each test ran, its environment, never its state', async () => {
    const project = await startProject();
    const state = ['--state', 'kept.json'];
    // A secret holding a quote: the quoted path would split it where the redaction looks.
    const token = { HOOK_TOKEN: "hook'quoted-7f3a9c2e" };
    const cli = (args: string[]) => project.cliInProcess(args, token);
    expect((await cli(['apply', '--env', 'staging', '--auto-approve', ...state])).code).toBe(0);
    await cp(path.join(project.dir, 'example/tests'), path.join(project.dir, 'tests'), { recursive: true });
    const commands = async () => {
      const history = await cli(['history', '--env', 'staging', '--format', 'json', ...state]);
      expect(history.code, history.stderr).toBe(0);
      return (JSON.parse(history.stdout) as { test_runs: Array<{ command: string }> }).test_runs.map((run) => run.command);
    };
    const named = `tests/${token.HOOK_TOKEN}.test.yaml`;
    await writeFile(path.join(project.dir, named), 'agent: front-desk\ntests:\n  - name: answers\n    turns: [{ user: hello, expect: [{ contains: hello }] }]\n');
    const suite = ['tests/booking.test.yaml', 'tests/front-desk.test.yaml', named];
    for (const args of [['--against', 'live'], ['--against', 'both', '--mode', 'record', '--skip-judge', ...suite]]) {
      const run = await cli(['test', ...args, '--env', 'staging', ...state]);
      expect(run.stderr).not.toContain('note:');
      expect(run.code, run.stdout).toBe(0);
    }
    // A secret in a test file's name is hidden in the command as in the run's tests.
    expect(await commands()).toEqual([
      'voxform test tests/booking.test.yaml tests/front-desk.test.yaml \'tests/(sensitive).test.yaml\' --against both --mode record --skip-judge --env staging',
      'voxform test --against live --env staging',
    ]);
  });

  it('keeps no secret a test file names in the run it records: its test names and file paths redacted as the report shows them', async () => {
    const project = await startProject();
    expect((await project.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    await cp(path.join(project.dir, 'example/tests'), path.join(project.dir, 'tests'), { recursive: true });
    const named = `tests/${SECRETS.HOOK_TOKEN}.test.yaml`;
    await writeFile(path.join(project.dir, named), `agent: front-desk\ntests:\n  - name: "tok ${SECRETS.HOOK_TOKEN} here"\n    turns: [{ expect: [{ contains: nothere }] }]\n`);
    const run = await project.cliInProcess(['test', '--against', 'live']);
    expect(run.stdout).toContain('FAIL  tok (sensitive) here');
    const ledger = path.join(project.dir, '.voxform/history/test-runs');
    const records = (await readdir(ledger)).filter((name) => name.endsWith('.json'));
    expect(records).toHaveLength(1);
    const text = await readFile(path.join(ledger, records[0] as string), 'utf8');
    expect(text).toContain('"name": "tok (sensitive) here"');
    expect(text).toContain('"file": "tests/(sensitive).test.yaml"');
    for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
  });
});
