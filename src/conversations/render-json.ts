/**
 * The JSON report (`--format json`), versioned: `format_version` changes only when a field changes
 * meaning or disappears; new fields may appear at any time.
 */
import { behaviourChange } from './runner.js';
import type { TestRun, TestVerdict } from './types.js';
import { toJsonText } from '../util/printable.js';

export const TEST_REPORT_FORMAT_VERSION = 1;

function verdictJson(verdict: TestVerdict) {
  return {
    status: verdict.status,
    passes: verdict.passes,
    runs: verdict.runs,
    pass_rate: verdict.passRate,
    results: verdict.results.map((run) => ({
      status: run.status,
      duration_ms: run.durationMs,
      error: run.error ?? null,
      transcript: run.transcript,
      checks: run.checks.map((check) => ({ check: check.check, turn: check.turn ?? null, status: check.status, detail: check.detail ?? null })),
      tool_calls: run.toolCalls ?? null,
    })),
  };
}

export function renderTestJson(run: TestRun): string {
  const body = {
    format_version: TEST_REPORT_FORMAT_VERSION,
    against: run.against,
    summary: run.summary,
    changes: run.changes.map(({ report, change }) => ({ change, file: report.file, test: report.name })),
    tests: run.reports.map((report) => ({
      file: report.file,
      agent: report.agent,
      name: report.name,
      location: report.location,
      change: run.against.length === 2 ? behaviourChange(report) : null,
      verdicts: Object.fromEntries(Object.entries(report.verdicts).map(([target, verdict]) => [target, verdictJson(verdict)])),
    })),
    duration_ms: run.durationMs,
  };
  return `${toJsonText(body, 2)}\n`;
}
