/**
 * The JSON report (`--format json`), versioned: `format_version` changes only when a field changes
 * meaning or disappears; new fields may appear at any time.
 *
 * It holds every transcript of every run, tens of MB for the largest run allowed, so it is made in
 * small pieces (at most one message of a transcript, one check or one run's tool calls each) for
 * the CLI to write as they come: neither the report nor a run's part of it is ever one string. The pieces joined are
 * `toJsonText(report, 2)` byte for byte, and a piece never cuts a JSON value in two, so a secret
 * inside one is whole for the output's redaction.
 */
import { behaviourChange } from './runner.js';
import { verdictStatistics } from './statistics.js';
import type { BaselineComparison, RunResult, TestReport, TestRun, TestVerdict } from './types.js';
import { jsonContainer, jsonValue, member } from '../util/json-pieces.js';

export const TEST_REPORT_FORMAT_VERSION = 1;

export function renderTestJson(run: TestRun): string {
  return [...testJsonPieces(run)].join('');
}

/** The JSON report in pieces, in order (see above). */
export function testJsonPieces(run: TestRun): Generator<string> {
  return jsonContainer('{', 0, [
    member('format_version', jsonValue(TEST_REPORT_FORMAT_VERSION, 1)),
    member('against', jsonValue(run.against, 1)),
    member('summary', jsonValue(run.summary, 1)),
    member('changes', jsonValue(run.changes.map(({ report, change }) => ({ change, file: report.file, test: report.name })), 1)),
    ...(run.baseline ? [member('baseline', jsonValue(baselineJson(run.baseline), 1))] : []),
    member('tests', jsonContainer('[', 1, mapLazily(run.reports, (report) => testPieces(report, run.against.length === 2)))),
    member('duration_ms', jsonValue(run.durationMs, 1)),
  ], '\n');
}

/** With `--baseline`: the earlier result named, and each test that got worse against it. */
function baselineJson(baseline: BaselineComparison): unknown {
  return {
    file: baseline.file,
    regressions: baseline.regressions.map(({ report, target, change, before }) => {
      const now = report.verdicts[target];
      return { change, file: report.file, test: report.name, target, before: before ?? null, after: now ? { status: now.status, passes: now.passes, runs: now.runs } : null };
    }),
  };
}

function testPieces(report: TestReport, both: boolean): Generator<string> {
  return jsonContainer('{', 2, [
    member('file', jsonValue(report.file, 3)),
    member('agent', jsonValue(report.agent, 3)),
    member('name', jsonValue(report.name, 3)),
    member('location', jsonValue(report.location, 3)),
    member('change', jsonValue(both ? behaviourChange(report) : null, 3)),
    member('verdicts', jsonContainer('{', 3, Object.entries(report.verdicts).map(([target, verdict]) => member(target, verdictPieces(verdict))))),
  ]);
}

function verdictPieces(verdict: TestVerdict): Generator<string> {
  const stats = verdictStatistics(verdict);
  return jsonContainer('{', 4, [
    member('status', jsonValue(verdict.status, 5)),
    member('passes', jsonValue(verdict.passes, 5)),
    member('runs', jsonValue(verdict.runs, 5)),
    member('pass_rate', jsonValue(verdict.passRate, 5)),
    member('pass_at_k', jsonValue(stats.passAtK, 5)),
    member('pass_hat_k', jsonValue(stats.passHatK, 5)),
    member('observed_rate', jsonValue(stats.rate, 5)),
    member('interval', jsonValue(stats.interval, 5)),
    member('flaky', jsonValue(stats.flaky, 5)),
    member('results', jsonContainer('[', 5, mapLazily(verdict.results, runPieces))),
  ]);
}

function runPieces(run: RunResult): Generator<string> {
  return jsonContainer('{', 6, [
    member('status', jsonValue(run.status, 7)),
    member('duration_ms', jsonValue(run.durationMs, 7)),
    member('error', jsonValue(run.error ?? null, 7)),
    member('transcript', jsonContainer('[', 7, mapLazily(run.transcript, (message) => jsonValue(message, 8)))),
    member('checks', jsonContainer('[', 7, mapLazily(run.checks, (check) => jsonValue({ check: check.check, turn: check.turn ?? null, status: check.status, detail: check.detail ?? null, flag: check.flag ?? null }, 8)))),
    member('tool_calls', jsonValue(run.toolCalls ?? null, 7)),
  ]);
}

/** `items.map(render)` made one entry at a time, as the container reaches it. */
function* mapLazily<T>(items: Iterable<T>, render: (item: T) => Iterable<string>): Generator<Iterable<string>> {
  for (const item of items) yield render(item);
}
