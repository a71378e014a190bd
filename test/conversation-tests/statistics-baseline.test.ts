import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { compareWithBaseline, readBaseline, type Baseline } from '../../src/conversations/baseline.js';
import type { BaselineVerdict } from '../../src/conversations/types.js';
import { JudgeCache } from '../../src/conversations/judge-cache.js';
import { describeStatistics, meetsPassRate, verdictStatistics } from '../../src/conversations/statistics.js';
import { foldVerdict, runSucceeded } from '../../src/conversations/runner.js';
import type { CheckStatus, TestReport, TestRun, TestVerdict } from '../../src/conversations/types.js';
import { wilsonInterval } from '../../src/report/statistics.js';
import { renderTestJson } from '../../src/conversations/render-json.js';
import { renderTestJunit } from '../../src/conversations/render-junit.js';
import { renderTestMarkdown } from '../../src/conversations/render-markdown.js';
import { renderTestText } from '../../src/conversations/render-text.js';
import { defaultAnswer, startFakeModel, type FakeModel, type FakeRequest } from '../helpers/fake-model.js';
import { useExampleProjects } from '../helpers/project.js';

const startProject = useExampleProjects();

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

describe('repeated runs: pass@k, pass^k, the rate with its interval, flaky', () => {
  it.each([
    [0, 0, { passAtK: null, passHatK: null, rate: null, interval: null, flaky: false }, ''],
    [1, 1, { passAtK: true, passHatK: true, rate: 1, flaky: false }, ''],
    [5, 5, { passAtK: true, passHatK: true, rate: 1, flaky: false }, 'pass^5 yes, pass@5 yes, 100% (57%–100%)'],
    [3, 5, { passAtK: true, passHatK: false, rate: 0.6, flaky: true }, 'pass^5 no, pass@5 yes, 60% (23%–88%), flaky'],
    [0, 4, { passAtK: false, passHatK: false, rate: 0, flaky: false }, 'pass^4 no, pass@4 no, 0% (0%–49%)'],
  ])('%i of %i runs', (passes, runs, expected, words) => {
    expect(verdictStatistics({ passes, runs })).toMatchObject(expected);
    expect(describeStatistics({ passes, runs })).toBe(words);
  });

  it("uses the report's Wilson interval, rounded to four places", () => {
    const interval = wilsonInterval(3, 5);
    expect(verdictStatistics({ passes: 3, runs: 5 }).interval).toEqual({ low: Math.round((interval?.low ?? 0) * 1e4) / 1e4, high: Math.round((interval?.high ?? 0) * 1e4) / 1e4 });
  });
});

const runOf = (status: CheckStatus) => ({ status, transcript: [], checks: [], toolCalls: undefined, error: status === 'error' ? 'Not recorded: …' : undefined, durationMs: 0 });

describe('the statistics in every report', () => {
  const flaky: TestRun = {
    against: ['desired'],
    reports: [{ file: 'tests/a.test.yaml', agent: 'desk', name: 'flips', location: { file: 'tests/a.test.yaml', line: 2, col: 5 }, verdicts: { desired: { status: 'passed', passes: 2, runs: 4, passRate: 0.5, results: (['passed', 'failed', 'passed', 'failed'] as const).map(runOf) } } }],
    changes: [],
    summary: { desired: { passed: 1, failed: 0, skipped: 0, errors: 0 } },
    durationMs: 0,
  };

  it('text and Markdown say pass^k, pass@k, the interval and flaky; JUnit carries them as properties', () => {
    const words = '2/4 (needs 50%; pass^4 no, pass@4 yes, 50% (15%–85%), flaky)';
    expect(renderTestText(flaky, { color: false })).toContain(`  PASS  flips  [desired ${words}]\n`);
    expect(renderTestMarkdown(flaky)).toContain(`| flips | \`tests/a.test.yaml\` | ✅ ${words} |`);
    expect(renderTestJunit(flaky)).toContain(
      [
        '    <testcase name="flips" classname="tests.a" file="tests/a.test.yaml" line="2" time="0.000">',
        '      <properties>',
        '        <property name="pass_at_k" value="true"/>',
        '        <property name="pass_hat_k" value="false"/>',
        '        <property name="observed_rate" value="0.5"/>',
        '        <property name="interval_low" value="0.15"/>',
        '        <property name="interval_high" value="0.85"/>',
        '        <property name="flaky" value="true"/>',
        '      </properties>',
        '    </testcase>',
      ].join('\n'),
    );
  });
});

describe('the pass rate a test needs, beside the rate it measured', () => {
  it('is met exactly, with no slack: a rate written just above the measured one is not', () => {
    expect(meetsPassRate(2, 3, 0.666666667)).toBe(false);
    expect(meetsPassRate(2, 3, 2 / 3)).toBe(true);
    expect(meetsPassRate(7, 10, 0.7)).toBe(true);
    expect(meetsPassRate(3, 10, 0.3)).toBe(true);
    expect(meetsPassRate(95, 100, 0.95)).toBe(true);
    expect(meetsPassRate(1, 3, 0.33333333333333337)).toBe(false);
  });

  const failedRun = { status: 'failed' as const, transcript: [], checks: [], toolCalls: undefined, error: undefined, durationMs: 0 };
  const run = (passes: number, runs: number, passRate: number, status: CheckStatus): TestRun => ({
    against: ['desired'],
    reports: [{ file: 'tests/a.test.yaml', agent: 'desk', name: 'two of three', location: { file: 'tests/a.test.yaml', line: 2, col: 5 }, verdicts: { desired: { status, passes, runs, passRate, results: [failedRun] } } }],
    changes: [],
    summary: { desired: { passed: status === 'passed' ? 1 : 0, failed: status === 'failed' ? 1 : 0, skipped: 0, errors: 0 } },
    durationMs: 0,
  });

  it.each([
    // A failing rate never reads as meeting the pass rate: it gets the decimals that tell them apart.
    [2, 3, 0.67, 'failed', '2/3 (needs 67%; pass^3 no, pass@3 yes, 66.7% (21%–94%), flaky)'],
    [2, 3, 0.6667, 'failed', '2/3 (needs 66.67%; pass^3 no, pass@3 yes, 66.667% (21%–94%), flaky)'],
    [19, 20, 0.951, 'failed', '19/20 (needs 95.1%; pass^20 no, pass@20 yes, 95% (76%–99%), flaky)'],
    [2, 3, 0.666666667, 'failed', '2/3 (needs 66.6666667%; pass^3 no, pass@3 yes, 66.66666667% (21%–94%), flaky)'],
    // A passing one reads as meeting it.
    [2, 3, 0.66, 'passed', '2/3 (needs 66%; pass^3 no, pass@3 yes, 67% (21%–94%), flaky)'],
    [2, 3, 2 / 3, 'passed', '2/3 (needs 66.6666666667%; pass^3 no, pass@3 yes, 67% (21%–94%), flaky)'],
  ] as const)('%i of %i against %d: %s, in text, Markdown and JUnit', (passes, runs, passRate, status, words) => {
    const tests = run(passes, runs, passRate, status);
    expect(renderTestText(tests, { color: false })).toContain(`[desired ${words}]`);
    expect(renderTestMarkdown(tests)).toContain(` ${words} |`);
    if (status === 'failed') expect(renderTestJunit(tests)).toContain(`message="${words} runs passed; failed"`);
  });
});

function reportWith(name: string, status: CheckStatus, passes: number, runs: number): TestReport {
  return { file: 'tests/a.test.yaml', agent: 'desk', name, location: { file: 'tests/a.test.yaml', line: 1, col: 1 }, verdicts: { desired: { status, passes, runs, passRate: 1, results: [] } } };
}

describe('--baseline: only what got worse', () => {
  const before = (status: CheckStatus, passes: number, runs: number): Partial<Record<'desired', BaselineVerdict>> => ({ desired: { status, passes, runs } });

  it('flags newly failing tests and pass rates whose interval lies below the baseline’s, nothing else', () => {
    const baseline: Baseline = new Map([
      ['tests/a.test.yaml\0was passing', before('passed', 1, 1)],
      ['tests/a.test.yaml\0was failing', before('failed', 0, 1)],
      ['tests/a.test.yaml\0always passed', before('passed', 10, 10)],
      ['tests/a.test.yaml\0about the same', before('failed', 5, 10)],
      ['tests/a.test.yaml\0now skipped', before('passed', 1, 1)],
      ['tests/a.test.yaml\0still passing', before('passed', 1, 1)],
    ]);
    const reports = [
      reportWith('was passing', 'failed', 0, 1),
      reportWith('was failing', 'failed', 0, 1),
      reportWith('always passed', 'failed', 2, 10),
      reportWith('about the same', 'failed', 4, 10),
      reportWith('now skipped', 'skipped', 0, 0),
      reportWith('still passing', 'passed', 1, 1),
      reportWith('new and failing', 'error', 0, 1),
      reportWith('new and passing', 'passed', 1, 1),
    ];
    const run: TestRun = { against: ['desired'], reports, changes: [], summary: {}, durationMs: 0 };
    const comparison = compareWithBaseline(run, baseline, 'base.json');
    expect(comparison.regressions.map((r) => [r.report.name, r.change])).toEqual([
      ['was passing', 'newly_failing'],
      ['always passed', 'newly_failing'],
      ['new and failing', 'newly_failing'],
    ]);
    // A pass rate that fell below the baseline's interval, though the test's verdict did not change.
    const rates: Baseline = new Map([['tests/a.test.yaml\0always passed', before('failed', 10, 12)]]);
    const dropped = compareWithBaseline({ ...run, reports: [reportWith('always passed', 'failed', 1, 12)] }, rates, 'base.json');
    expect(dropped.regressions.map((r) => r.change)).toEqual(['rate_dropped']);
    // With both targets, the live agent getting worse is news, not the change's regression.
    const both: Baseline = new Map([['tests/a.test.yaml\0t', { live: { status: 'passed', passes: 1, runs: 1 }, desired: { status: 'passed', passes: 1, runs: 1 } }]]);
    const liveWorse = reportWith('t', 'passed', 1, 1);
    liveWorse.verdicts.live = { status: 'failed', passes: 0, runs: 1, passRate: 1, results: [] };
    expect(compareWithBaseline({ ...run, against: ['live', 'desired'], reports: [liveWorse] }, both, 'base.json').regressions).toEqual([]);
  });

  it('fails a run with a test in error though nothing got worse, and says so rather than that all is well', () => {
    // Failing in the baseline, in error now (a replay not recorded, the judge down): no regression, but no verdict either.
    const baseline: Baseline = new Map([['tests/a.test.yaml\0was failing', before('failed', 0, 1)]]);
    const reports = [reportWith('was failing', 'error', 0, 1)];
    const run: TestRun = { against: ['desired'], reports, changes: [], summary: { desired: { passed: 0, failed: 0, skipped: 0, errors: 1 } }, durationMs: 0 };
    run.baseline = compareWithBaseline(run, baseline, 'base.json');
    expect(run.baseline.regressions).toEqual([]);
    expect(runSucceeded(run)).toBe(false);
    expect(renderTestText(run, { color: false })).toContain('Against the baseline base.json: no test got worse; 1 test ended in error, its verdict unknown\n');
    expect(renderTestMarkdown(run)).toContain('**Against the baseline** `base.json`: no test got worse; 1 test ended in error, its verdict unknown.');
    // Only the verdicts that decide: the live agent in error beside a passing desired one fails nothing.
    const both: TestRun = { ...run, against: ['live', 'desired'], summary: { live: { passed: 0, failed: 0, skipped: 0, errors: 1 }, desired: { passed: 1, failed: 0, skipped: 0, errors: 0 } }, baseline: { file: 'base.json', regressions: [] } };
    expect(runSucceeded(both)).toBe(true);
    expect(renderTestText(both, { color: false })).toContain('Against the baseline base.json: no test got worse\n');
  });

  it('reads the verdicts of a JSON result by test file, name and target', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-baseline-'));
    try {
      const report = reportWith('greets', 'failed', 1, 3);
      report.verdicts.live = { status: 'passed', passes: 2, runs: 2, passRate: 1, results: [] };
      await writeFile(path.join(dir, 'base.json'), renderTestJson({ against: ['desired', 'live'], reports: [report], changes: [], summary: {}, durationMs: 0 }));
      expect(await readBaseline(path.join(dir, 'base.json'), 'base.json')).toEqual(
        new Map([['tests/a.test.yaml\0greets', { desired: { status: 'failed', passes: 1, runs: 3 }, live: { status: 'passed', passes: 2, runs: 2 } }]]),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('refuses a file that is not a JSON result, naming it', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-baseline-'));
    // A result as voxform test writes it, with one verdict out of shape.
    const withVerdict = (verdict: unknown): string => {
      const result = JSON.parse(renderTestJson({ against: ['desired'], reports: [reportWith('y', 'passed', 1, 1)], changes: [], summary: {}, durationMs: 0 }));
      result.tests[0].verdicts.desired = verdict;
      return JSON.stringify(result);
    };
    try {
      await writeFile(path.join(dir, 'a.json'), withVerdict({ status: 'won' }));
      await expect(readBaseline(path.join(dir, 'a.json'), 'a.json')).rejects.toMatchObject({ code: 'baseline_invalid', message: 'The baseline a.json is not a JSON result of voxform test (format_version 1): tests[0].verdicts.desired.status is not a status.' });
      await writeFile(path.join(dir, 'c.json'), withVerdict({ status: 'passed', passes: 3, runs: 2, pass_rate: 1, results: [] }));
      await expect(readBaseline(path.join(dir, 'c.json'), 'c.json')).rejects.toMatchObject({ code: 'baseline_invalid', message: 'The baseline c.json is not a JSON result of voxform test (format_version 1): tests[0].verdicts.desired has more passes than runs.' });
      await writeFile(path.join(dir, 'd.json'), withVerdict({ status: 'passed', passes: 0.5, runs: 1, pass_rate: 1, results: [] }));
      await expect(readBaseline(path.join(dir, 'd.json'), 'd.json')).rejects.toMatchObject({ code: 'baseline_invalid', message: 'The baseline d.json is not a JSON result of voxform test (format_version 1): tests[0].verdicts.desired.passes is not a whole number.' });
      await writeFile(path.join(dir, 'e.json'), JSON.stringify({ format_version: 2, tests: [] }));
      await expect(readBaseline(path.join(dir, 'e.json'), 'e.json')).rejects.toMatchObject({ code: 'baseline_invalid', message: 'The baseline e.json is not a JSON result of voxform test (format_version 1): format_version is not 1.' });
      await writeFile(path.join(dir, 'b.json'), 'not json {');
      await expect(readBaseline(path.join(dir, 'b.json'), 'b.json')).rejects.toMatchObject({ code: 'baseline_invalid', message: 'The baseline b.json is not valid JSON.' });
      await expect(readBaseline(path.join(dir, 'none.json'), 'none.json')).rejects.toMatchObject({ code: 'baseline_invalid', message: 'The baseline none.json does not exist.', hint: expect.stringContaining('voxform test --format json --out FILE') });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("the judge's verdict cache", () => {
  it('reuses a verdict for the same model, rubric, text and run of a test until it expires; a key names entries no one else can', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'voxform-judge-cache-'));
    try {
      let now = Date.parse('2026-03-01T00:00:00Z');
      const options = { folder, modelName: 'judge-a', apiKey: undefined, redact: (text: string) => text.replaceAll('s3cret-value', '(sensitive)'), now: () => now };
      const cache = new JudgeCache(options);
      const question = { rubric: 'Is friendly.', subject: 'Hello!', what: 'reply of the agent' };
      const run = { file: 'tests/a.test.yaml', test: 'greets', target: 'desired' as const, run: 1 };
      expect(await cache.get(question, run)).toBeUndefined();
      await cache.put(question, run, { pass: true, reason: 'warm; says s3cret-value' });
      expect(await cache.get(question, run)).toEqual({ pass: true, reason: 'warm; says (sensitive)' });
      expect(await cache.get({ ...question, subject: 'Go away.' }, run)).toBeUndefined();
      // Another run of the test, another test or another target has verdicts of its own.
      for (const other of [{ ...run, run: 2 }, { ...run, test: 'stays polite' }, { ...run, target: 'live' as const }]) expect(await cache.get(question, other)).toBeUndefined();
      expect(await cache.forRun(run).get(question)).toEqual({ pass: true, reason: 'warm; says (sensitive)' });
      expect(await new JudgeCache({ ...options, modelName: 'judge-b' }).get(question, run)).toBeUndefined();
      // Under a judge key the same question has another entry: one written without the key is not found.
      expect(await new JudgeCache({ ...options, apiKey: 'judge-key-123456' }).get(question, run)).toBeUndefined();
      now += 14 * 24 * 60 * 60 * 1000;
      expect(await cache.get(question, run)).toEqual({ pass: true, reason: 'warm; says (sensitive)' });
      now += 1;
      expect(await cache.get(question, run)).toBeUndefined();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

describe("the judge's verdict cache under a judge key", () => {
  it('reads no verdict a pull request wrote or changed: an entry whose seal does not hold is a miss', async () => {
    const folder = await mkdtemp(path.join(tmpdir(), 'voxform-judge-cache-'));
    try {
      let now = Date.parse('2026-03-01T00:00:00Z');
      const cache = new JudgeCache({ folder, modelName: 'judge-a', apiKey: 'judge-key-123456', redact: (text: string) => text, now: () => now });
      const run = { file: 'tests/a.test.yaml', test: 'greets', target: 'desired' as const, run: 1 };
      const failing = { rubric: 'Is friendly.', subject: 'Go away.', what: 'reply of the agent' };
      const passing = { ...failing, subject: 'Hello!' };
      await cache.put(failing, run, { pass: false, reason: 'rude' });
      await cache.put(passing, run, { pass: true, reason: 'warm' });
      expect(await cache.get(failing, run)).toEqual({ pass: false, reason: 'rude' });
      const [failingFile, passingFile] = await Promise.all([entryFile(folder, 'rude'), entryFile(folder, 'warm')]);
      const failingText = await readFile(failingFile, 'utf8');
      // The verdict turned: a miss, so the judge is asked again.
      await writeFile(failingFile, failingText.replace('"fail"', '"pass"'));
      expect(await cache.get(failing, run)).toBeUndefined();
      // Another question's passing entry copied under this one's name: a miss.
      await writeFile(failingFile, await readFile(passingFile, 'utf8'));
      expect(await cache.get(failing, run)).toBeUndefined();
      // An expired entry made young again: a miss.
      await writeFile(failingFile, failingText);
      now += 15 * 24 * 60 * 60 * 1000;
      expect(await cache.get(failing, run)).toBeUndefined();
      await writeFile(failingFile, failingText.replace('2026-03-01', '2026-03-15'));
      expect(await cache.get(failing, run)).toBeUndefined();
      // An entry without a seal (as voxform wrote them before entries were sealed): a miss.
      const unsealed = JSON.parse(failingText) as Record<string, unknown>;
      delete unsealed.seal;
      await writeFile(failingFile, JSON.stringify({ ...unsealed, stored_at: new Date(now).toISOString() }));
      expect(await cache.get(failing, run)).toBeUndefined();
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  });
});

/** The cache file in `folder` whose entry gives `reason`. */
async function entryFile(folder: string, reason: string): Promise<string> {
  for (const name of await readdir(folder)) {
    const file = path.join(folder, name);
    if ((JSON.parse(await readFile(file, 'utf8')) as { reason: string }).reason === reason) return file;
  }
  throw new Error(`no entry gives ${reason}`);
}

/** A judge that is not deterministic: it alternates pass and fail, whatever it is asked. */
function coinJudge(): (request: FakeRequest) => ReturnType<typeof defaultAnswer> {
  let verdicts = 0;
  return (request) => (request.model === 'fake-judge' ? { content: JSON.stringify({ verdict: verdicts++ % 2 === 0 ? 'pass' : 'fail', reason: 'a coin' }) } : defaultAnswer(request));
}

const JUDGED_COIN_TESTS = ['agent: front-desk', 'tests:', '  - name: is judged by a coin', '    turns: [{ user: hello, expect: [{ judge: Is polite. }] }]', '    repeat: 4', '    pass_rate: 0.5', ''].join('\n');

describe("the judge's cache and repeated runs", () => {
  it('gives each repeat its own verdict: a second run reproduces the first repeat by repeat, and a new repeat asks the judge', { timeout: 120_000 }, async () => {
    fake = await startFakeModel(coinJudge());
    const project = await startProject();
    await writeFile(path.join(project.dir, 'example/tests/judged.test.yaml'), JUDGED_COIN_TESTS);
    const judge = { VOXFORM_JUDGE_URL: fake.url, VOXFORM_JUDGE_MODEL: 'fake-judge' };
    const judgeCalls = () => fake?.requests.filter((request) => request.model === 'fake-judge').length;
    const verdictOf = async (args: string[] = []) => {
      const run = await project.cliInProcess(['test', 'example/tests/judged.test.yaml', '--format', 'json', ...args], judge);
      const json = JSON.parse(run.stdout) as { tests: Array<{ verdicts: { desired: { status: string; passes: number; results: Array<{ status: string }> } } }> };
      const verdict = json.tests[0]?.verdicts.desired;
      return { status: verdict?.status, passes: verdict?.passes, runs: verdict?.results.map((result) => result.status) };
    };

    const first = await verdictOf();
    expect(first).toMatchObject({ status: 'passed', passes: 2 });
    expect(judgeCalls()).toBe(4);
    // Nothing changed: the same verdicts, run by run, and the judge is not asked.
    expect(await verdictOf()).toEqual(first);
    expect(judgeCalls()).toBe(4);
    // Two more runs: the first four keep their verdicts; only the new ones ask the judge.
    const more = await verdictOf(['--repeat', '6']);
    expect(more.runs?.slice(0, 4)).toEqual(first.runs);
    expect(judgeCalls()).toBe(6);
  });
});

/** The agent model: a coin that alternates heads and tails for "coin", else its default answer. */
function coinModel(): (request: FakeRequest) => ReturnType<typeof defaultAnswer> {
  let flips = 0;
  return (request) => {
    const last = request.messages.at(-1)?.content;
    if (request.model === 'fake-agent' && last === 'coin') return { content: flips++ % 2 === 0 ? 'heads' : 'tails' };
    return defaultAnswer(request);
  };
}

const COIN_TESTS = [
  'agent: front-desk',
  'tests:',
  '  - name: flips a coin',
  '    turns: [{ user: coin, expect: [{ contains: heads }] }]',
  '    repeat: 4',
  '    pass_rate: 0.5',
  '  - name: stays polite',
  '    turns: [{ user: hello, expect: [{ not_contains: rude }] }]',
  '  - name: knows a word it never says',
  '    turns: [{ user: hello, expect: [{ contains: xylophone }] }]',
  '  - name: is judged friendly',
  '    turns: [{ user: hello, expect: [{ judge: Mentions "hello" }] }]',
  '',
].join('\n');

describe('voxform test: statistics, baseline and cache on the CLI', () => {
  it('reports pass^k and a flaky test in JSON, fails a baseline run on exactly one regression, and caches the judge', { timeout: 300_000 }, async () => {
    fake = await startFakeModel(coinModel());
    const project = await startProject({ llm: { url: fake.url, model: 'fake-agent' } });
    await writeFile(path.join(project.dir, 'example/tests/coin.test.yaml'), COIN_TESTS);
    const judge = { VOXFORM_JUDGE_URL: fake.url, VOXFORM_JUDGE_MODEL: 'fake-judge' };
    const judgeCalls = () => fake?.requests.filter((request) => request.model === 'fake-judge').length;

    const first = await project.cliInProcess(['test', 'example/tests/coin.test.yaml', '--format', 'json', '--out', 'base.json'], judge);
    expect(first.code).toBe(1); // "knows a word it never says" fails
    const base = JSON.parse(await readFile(path.join(project.dir, 'base.json'), 'utf8')) as { tests: Array<{ name: string; verdicts: { desired: Record<string, unknown> } }> };
    const coin = base.tests.find((test) => test.name === 'flips a coin')?.verdicts.desired;
    expect(coin).toMatchObject({ status: 'passed', passes: 2, runs: 4, pass_rate: 0.5, pass_at_k: true, pass_hat_k: false, observed_rate: 0.5, flaky: true });
    expect(coin?.interval).toEqual({ low: 0.15, high: 0.85 });
    expect(judgeCalls()).toBe(1);

    // Against the baseline, the test that failed before and still fails is known: the run passes. The judge is not asked again (cache).
    const same = await project.cliInProcess(['test', 'example/tests/coin.test.yaml', '--baseline', 'base.json'], judge);
    expect(same.stdout).toContain('flips a coin  [desired 2/4 (needs 50%; pass^4 no, pass@4 yes, 50% (15%–85%), flaky)]');
    expect(same.stdout).toContain('Against the baseline base.json: no test got worse\n');
    expect(same.code).toBe(0);
    expect(judgeCalls()).toBe(1);
    await project.cliInProcess(['test', 'example/tests/coin.test.yaml', '--no-cache'], judge);
    expect(judgeCalls()).toBe(2);

    // The prompt now makes the agent rude: exactly one test got worse, and the run fails on it alone.
    const promptFile = path.join(project.dir, 'example/prompts/front-desk.md');
    await writeFile(promptFile, `You are rude.\n${await readFile(promptFile, 'utf8')}`);
    const worse = await project.cliInProcess(['test', 'example/tests/coin.test.yaml', '--baseline', 'base.json'], judge);
    expect(worse.stdout).toContain(
      'Against the baseline base.json: 1 test got worse\n  newly failing  example/tests/coin.test.yaml › stays polite [desired] (baseline: passed 1/1; now failed 0/1)\n',
    );
    expect(worse.code).toBe(1);
    const json = JSON.parse((await project.cliInProcess(['test', 'example/tests/coin.test.yaml', '--baseline', 'base.json', '--format', 'json'], judge)).stdout) as { baseline: unknown };
    expect(json.baseline).toEqual({
      file: 'base.json',
      regressions: [{ change: 'newly_failing', file: 'example/tests/coin.test.yaml', test: 'stays polite', target: 'desired', before: { status: 'passed', passes: 1, runs: 1 }, after: { status: 'failed', passes: 0, runs: 1 } }],
    });
    const markdown = await project.cliInProcess(['test', 'example/tests/coin.test.yaml', '--baseline', 'base.json', '--format', 'markdown'], judge);
    expect(markdown.stdout).toContain('**Against the baseline** `base.json`: 1 test got worse');
  });
});

describe('a run in error is never absorbed by the pass rate', () => {
  it.each([
    [['passed', 'passed', 'error', 'passed'], 'error', 3, 4, false],
    [['passed', 'error', 'failed', 'passed'], 'error', 2, 4, true],
    [['passed', 'failed', 'passed', 'passed'], 'passed', 3, 4, true],
    [['skipped', 'passed', 'passed'], 'passed', 2, 2, false],
  ] as const)('%j against a pass rate of 0.5', (statuses, status, passes, runs, flaky) => {
    const verdict: TestVerdict = { status: 'passed', passes: 0, runs: 0, passRate: 0.5, results: statuses.map(runOf) };
    foldVerdict(verdict);
    expect(verdict).toMatchObject({ status, passes, runs });
    expect(verdictStatistics(verdict).flaky).toBe(flaky);
  });

  it('a judge that answers nonsense in one of four runs makes the test an error, shown in its counts, and the run exit 1', { timeout: 120_000 }, async () => {
    // The judge's first two answers (run 1 and its one retry) are not JSON; every other run passes.
    let judged = 0;
    fake = await startFakeModel((request) => (request.model === 'fake-judge' && judged++ < 2 ? { content: 'Sure! It is polite.' } : defaultAnswer(request)));
    const project = await startProject();
    await writeFile(path.join(project.dir, 'example/tests/judged.test.yaml'), ['agent: front-desk', 'tests:', '  - name: polite', '    turns: [{ user: hello, expect: [{ judge: Mentions "hello" }] }]', '    repeat: 4', '    pass_rate: 0.5', ''].join('\n'));
    const judge = { VOXFORM_JUDGE_URL: fake.url, VOXFORM_JUDGE_MODEL: 'fake-judge' };
    const text = await project.cliInProcess(['test', 'example/tests/judged.test.yaml', '--parallelism', '1', '--no-cache'], judge);
    expect(text.stdout).toContain('  ERROR polite  [desired 3/4 (1 error; needs 50%; pass^4 no, pass@4 yes, 75% (30%–95%))]\n');
    expect(text.stdout).toContain('desired: 0 passed, 0 failed, 1 error\n');
    expect(text.code).toBe(1);
    judged = 0;
    const junit = await project.cliInProcess(['test', 'example/tests/judged.test.yaml', '--parallelism', '1', '--no-cache', '--format', 'junit'], judge);
    expect(junit.stdout).toContain('<testsuites name="voxform test" tests="1" failures="0" errors="1" skipped="0"');
    expect(junit.stdout).toContain('<error message="3/4 (1 error; needs 50%;');
  });
});
