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
import { isPlainObject } from '../util/json-object.js';
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

type Json = Record<string, unknown>;

class ShapeError extends Error {}

function object(value: unknown, where: string): Json {
  if (!isPlainObject(value)) throw new ShapeError(`${where} is not an object`);
  return value as Json;
}

function list(value: unknown, where: string): unknown[] {
  if (!Array.isArray(value)) throw new ShapeError(`${where} is not a list`);
  return value;
}

function text(value: unknown, where: string): string {
  if (typeof value !== 'string') throw new ShapeError(`${where} is not a string`);
  return value;
}

function count(value: unknown, where: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw new ShapeError(`${where} is not a count`);
  return value;
}

function optionalText(value: unknown, where: string): string | undefined {
  return value === null || value === undefined ? undefined : text(value, where);
}

function status(value: unknown, where: string): CheckStatus {
  const found = STATUSES.find((known) => known === value);
  if (!found) throw new ShapeError(`${where} is not a status`);
  return found;
}

function target(value: string, where: string): Target {
  const found = TARGETS.find((known) => known === value);
  if (!found) throw new ShapeError(`${where} is not desired or live`);
  return found;
}

function readCheck(value: unknown, where: string): CheckResult {
  const check = object(value, where);
  return {
    check: text(check.check, `${where}.check`),
    turn: check.turn === null || check.turn === undefined ? undefined : count(check.turn, `${where}.turn`),
    status: status(check.status, `${where}.status`),
    detail: optionalText(check.detail, `${where}.detail`),
  };
}

function readRun(value: unknown, where: string): RunResult {
  const run = object(value, where);
  return {
    status: status(run.status, `${where}.status`),
    transcript: list(run.transcript, `${where}.transcript`).map((item, index) => {
      const message = object(item, `${where}.transcript[${index}]`);
      const role = message.role === 'user' || message.role === 'assistant' ? message.role : undefined;
      if (!role) throw new ShapeError(`${where}.transcript[${index}].role is not user or assistant`);
      return { role, content: text(message.content, `${where}.transcript[${index}].content`) };
    }),
    checks: list(run.checks, `${where}.checks`).map((check, index) => readCheck(check, `${where}.checks[${index}]`)),
    toolCalls: run.tool_calls === null || run.tool_calls === undefined ? undefined : (list(run.tool_calls, `${where}.tool_calls`) as RunResult['toolCalls']),
    error: optionalText(run.error, `${where}.error`),
    durationMs: count(run.duration_ms, `${where}.duration_ms`),
  };
}

function whole(value: unknown, where: string): number {
  if (!Number.isInteger(count(value, where))) throw new ShapeError(`${where} is not a whole number`);
  return value as number;
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
    results: list(verdict.results, `${where}.results`).map((run, index) => readRun(run, `${where}.results[${index}]`)),
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
  const against = list(report.against, 'against').map((name, index) => target(text(name, `against[${index}]`), `against[${index}]`));
  const reports = list(report.tests, 'tests').map((test, index) => readTest(test, `tests[${index}]`));
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
export type InvalidReport = (problem: string) => VoxformError;

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
