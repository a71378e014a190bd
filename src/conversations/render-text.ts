/**
 * The terminal report: behaviour changes first, a line per test and target, failures with their
 * transcript. Made a line at a time, for the CLI to write as they come (as the JSON report is:
 * render-json.ts).
 */
import pc from 'picocolors';
import { printable } from '../util/printable.js';
import { callerWordChecks, describeCheckResult, describeVerdict, problemChecks, regressionLines, runToShow, skipReason, STATUS_WORD, targetsOf, transcriptLines } from './render-shared.js';
import type { CheckStatus, TestRun, TestVerdict } from './types.js';
import { plural } from '../util/plural.js';

export function renderTestText(run: TestRun, options: { color: boolean }): string {
  return [...testTextPieces(run, options)].join('');
}

/** The text report's lines, in order, each ended by a line break. */
export function* testTextPieces(run: TestRun, options: { color: boolean }): Generator<string> {
  const paint = (text: string, style: (s: string) => string) => (options.color ? style(text) : text);
  const statusColor: Record<CheckStatus, (s: string) => string> = { passed: pc.green, failed: pc.red, skipped: pc.yellow, error: pc.red };
  if (run.against.length === 2) {
    yield line(paint('Behaviour changes (live → desired):', pc.bold));
    if (run.changes.length === 0) yield line('  none: every test has the same verdict against both');
    for (const { report, change } of run.changes) {
      const label = change === 'newly_failing' ? paint('newly failing', pc.red) : paint('newly passing', pc.green);
      yield line(`  ${label}  ${printable(report.file)} › ${printable(report.name)}`);
    }
    yield line('');
  }
  let file = '';
  for (const report of run.reports) {
    if (report.file !== file) {
      file = report.file;
      yield line(paint(`${printable(report.file)} (agent ${printable(report.agent)})`, pc.bold));
    }
    const targets = targetsOf(report);
    // The status word is the gating verdict's: desired when it ran (see runSucceeded).
    const gating = report.verdicts.desired ?? report.verdicts.live;
    if (!gating) continue;
    const word = paint(STATUS_WORD[gating.status].padEnd(5), statusColor[gating.status]);
    const verdicts = targets.map((target) => `${target} ${describeVerdict(report.verdicts[target] as TestVerdict)}`);
    yield line(`  ${word} ${printable(report.name)}  [${verdicts.join(' · ')}]`);
    for (const check of callerWordChecks(gating)) yield line(paint(`        ⚠ ${describeCheckResult(check)}`, pc.yellow));
    for (const target of targets) {
      const verdict = report.verdicts[target];
      if (!verdict) continue;
      const skipped = skipReason(verdict);
      if (skipped) yield line(paint(`        ${target} skipped: ${skipped}`, pc.yellow));
      const shown = verdict.status === 'passed' || verdict.status === 'skipped' ? undefined : runToShow(verdict);
      if (!shown) continue;
      yield line(`        ${target}, run ${shown.index + 1} of ${verdict.results.length}:`);
      if (shown.run.error) yield line(`        error: ${printable(shown.run.error)}`);
      for (const check of problemChecks(shown.run)) yield line(`        ✗ ${describeCheckResult(check)}`);
      for (const message of transcriptLines(shown.run.transcript)) yield line(paint(`          ${message}`, pc.dim));
    }
  }
  yield line('');
  for (const [target, summary] of Object.entries(run.summary)) {
    const parts = [`${summary.passed} passed`, `${summary.failed} failed`];
    if (summary.skipped > 0) parts.push(`${summary.skipped} skipped`);
    if (summary.errors > 0) parts.push(plural(summary.errors, 'error'));
    yield line(`${target}: ${parts.join(', ')}`);
  }
  if (run.baseline) {
    const worse = run.baseline.regressions.length;
    yield line(paint(`Against the baseline ${printable(run.baseline.file)}: ${worse === 0 ? 'no test got worse' : `${plural(worse, 'test')} got worse`}`, pc.bold));
    for (const regression of regressionLines(run.baseline)) yield line(`  ${paint(regression, pc.red)}`);
  }
  yield line(`(${plural(run.reports.length, 'test')} in ${(run.durationMs / 1000).toFixed(1)} s)`);
}

function line(text: string): string {
  return `${text}\n`;
}
