/**
 * The JSON report (`voxform test --format json`, render-json.ts) read back into a `TestRun`: by a
 * later step of the same CI job (`voxform ci run --command test`), which renders it with the Markdown
 * renderer, and by `voxform test --baseline`, which compares a run with it (baseline.ts). It is read
 * as a kept file (size and JSON budgets before parsing), and every field is checked: what is not of
 * the report's shape is refused with the caller's error, never half a report.
 */
import { VoxformError } from '../errors.js';
import { readKeptJson } from '../project-files/kept-files.js';
import { MAX_KEPT_JSON_DEPTH } from '../project-files/limits.js';
import { count, each, isOneOf, list, object, optional, shaped, ShapeError, text, whole } from '../util/json-shape.js';
import { TEST_REPORT_FORMAT_VERSION } from './render-json.js';
import type { CheckResult, CheckStatus, RunResult, Target, TestReport, TestRun, TestRunSummary, TestVerdict } from './types.js';

/**
 * The largest report read back. It holds every transcript of its run, and the biggest run the
 * budgets allow writes less; a baseline is such a report written earlier, so one limit fits both.
 */
const MAX_TEST_REPORT_BYTES = 256 * 1024 * 1024;
const MAX_TEST_REPORT_JSON_VALUES = 20_000_000;

const STATUSES: readonly CheckStatus[] = ['passed', 'failed', 'skipped', 'error'];
const TARGETS: readonly Target[] = ['desired', 'live'];
const CHANGES = ['newly_failing', 'newly_passing'] as const;
const ROLES = ['user', 'assistant'] as const;

const status = (value: unknown, where: string): CheckStatus => shaped(value, isOneOf(STATUSES), where, 'a status');
const target = (value: unknown, where: string): Target => shaped(value, isOneOf(TARGETS), where, 'desired or live');

function readCheck(value: unknown, where: string): CheckResult {
  const check = object(value, where);
  return {
    check: text(check.check, `${where}.check`),
    turn: optional(check.turn, `${where}.turn`, count),
    status: status(check.status, `${where}.status`),
    detail: optional(check.detail, `${where}.detail`, text),
  };
}

function readRun(value: unknown, where: string): RunResult {
  const run = object(value, where);
  return {
    status: status(run.status, `${where}.status`),
    transcript: each(run.transcript, `${where}.transcript`, (item, at) => {
      const message = object(item, at);
      return { role: shaped(message.role, isOneOf(ROLES), `${at}.role`, 'user or assistant'), content: text(message.content, `${at}.content`) };
    }),
    checks: each(run.checks, `${where}.checks`, readCheck),
    toolCalls: optional(run.tool_calls, `${where}.tool_calls`, list) as RunResult['toolCalls'],
    error: optional(run.error, `${where}.error`, text),
    durationMs: count(run.duration_ms, `${where}.duration_ms`),
  };
}

function readVerdict(value: unknown, where: string): TestVerdict {
  const verdict = object(value, where);
  const verdictStatus = status(verdict.status, `${where}.status`);
  const passes = whole(verdict.passes, `${where}.passes`);
  const runs = whole(verdict.runs, `${where}.runs`);
  if (passes > runs) throw new ShapeError(`${where} has more passes than runs`);
  return {
    status: verdictStatus,
    passes,
    runs,
    passRate: count(verdict.pass_rate, `${where}.pass_rate`),
    results: each(verdict.results, `${where}.results`, readRun),
  };
}

function readTest(value: unknown, where: string): TestReport {
  const test = object(value, where);
  const location = object(test.location, `${where}.location`);
  const verdicts: TestReport['verdicts'] = {};
  for (const [name, verdict] of Object.entries(object(test.verdicts, `${where}.verdicts`))) verdicts[target(name, `${where}.verdicts.${name}`)] = readVerdict(verdict, `${where}.verdicts.${name}`);
  return {
    file: text(test.file, `${where}.file`),
    agent: text(test.agent, `${where}.agent`),
    name: text(test.name, `${where}.name`),
    location: { file: text(location.file, `${where}.location.file`), line: count(location.line, `${where}.location.line`), col: count(location.col, `${where}.location.col`) },
    verdicts,
  };
}

function readSummary(value: unknown, where: string): TestRunSummary {
  const summary = object(value, where);
  return { passed: count(summary.passed, `${where}.passed`), failed: count(summary.failed, `${where}.failed`), skipped: count(summary.skipped, `${where}.skipped`), errors: count(summary.errors, `${where}.errors`) };
}

/** A parsed JSON report as a `TestRun`; throws `ShapeError` naming the first field out of shape. */
function testRunFromJson(value: unknown): TestRun {
  const report = object(value, 'the report');
  if (report.format_version !== TEST_REPORT_FORMAT_VERSION) throw new ShapeError(`format_version is not ${TEST_REPORT_FORMAT_VERSION}`);
  const against = each(report.against, 'against', target);
  const reports = each(report.tests, 'tests', readTest);
  const summary: TestRun['summary'] = {};
  for (const [name, counts] of Object.entries(object(report.summary, 'summary'))) summary[target(name, `summary.${name}`)] = readSummary(counts, `summary.${name}`);
  // The report lists each change by file and test name: the change belongs to that test's report.
  const changes = list(report.changes, 'changes').map((item, index) => {
    const change = object(item, `changes[${index}]`);
    const kind = CHANGES.find((known) => known === change.change);
    const test = reports.find((candidate) => candidate.file === change.file && candidate.name === change.test);
    if (!kind || !test) throw new ShapeError(`changes[${index}] names no test of the report`);
    return { report: test, change: kind };
  });
  return { against, reports, changes, summary, durationMs: count(report.duration_ms, 'duration_ms') };
}

/** Makes the caller's error from why a file is not a report (`problem` completes "The file X …"). */
type InvalidReport = (problem: string) => VoxformError;

const CI_HINT = 'Write it with `voxform test --format json --out FILE` in the same job.';

/**
 * The report `voxform test --format json --out FILE` wrote, as a `TestRun`. A file that is missing,
 * over its budget or not of the report's shape is `invalid`'s error: by default `test_report_invalid`
 * (`ci run`); `--baseline` names its own.
 */
export async function readTestReport(file: string, invalid: InvalidReport = (problem) => new VoxformError('test_report_invalid', `The test report ${file} ${problem}.`, { hint: CI_HINT })): Promise<TestRun> {
  const read = await readKeptJson(file, { maxBytes: MAX_TEST_REPORT_BYTES, maxDepth: MAX_KEPT_JSON_DEPTH, maxValues: MAX_TEST_REPORT_JSON_VALUES });
  if (!read.found) throw invalid('does not exist');
  if (!read.ok) throw invalid(read.problem);
  try {
    return testRunFromJson(read.value);
  } catch (error) {
    if (!(error instanceof ShapeError)) throw error;
    throw invalid(`is not a JSON result of voxform test (format_version ${TEST_REPORT_FORMAT_VERSION}): ${error.message}`);
  }
}
