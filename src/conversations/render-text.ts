/**
 * The terminal report: behaviour changes first, a line per test and target, failures with their
 * transcript. Made in pieces, a test's lines each, for the CLI to write as they come (as the JSON
 * report is: render-json.ts).
 */
import pc from 'picocolors';
import { printable } from '../util/printable.js';
import { describeCheckResult, describeVerdict, linesPiece, plural, problemChecks, runToShow, STATUS_WORD, targetsOf, transcriptLines } from './render-shared.js';
import type { CheckStatus, TestRun, TestVerdict } from './types.js';

export function renderTestText(run: TestRun, options: { color: boolean }): string {
  return [...testTextPieces(run, options)].join('');
}

/** The text report in pieces, in order. */
export function* testTextPieces(run: TestRun, options: { color: boolean }): Generator<string> {
  const paint = (text: string, style: (s: string) => string) => (options.color ? style(text) : text);
  const statusColor: Record<CheckStatus, (s: string) => string> = { passed: pc.green, failed: pc.red, skipped: pc.yellow, error: pc.red };
  if (run.against.length === 2) {
    const out = [paint('Behaviour changes (live → desired):', pc.bold)];
    if (run.changes.length === 0) out.push('  none: every test has the same verdict against both');
    for (const { report, change } of run.changes) {
      const label = change === 'newly_failing' ? paint('newly failing', pc.red) : paint('newly passing', pc.green);
      out.push(`  ${label}  ${printable(report.file)} › ${printable(report.name)}`);
    }
    out.push('');
    yield linesPiece(out);
  }
  let file = '';
  for (const report of run.reports) {
    const out: string[] = [];
    if (report.file !== file) {
      file = report.file;
      out.push(paint(`${printable(report.file)} (agent ${printable(report.agent)})`, pc.bold));
    }
    const targets = targetsOf(report);
    // The status word is the gating verdict's: desired when it ran (see runSucceeded).
    const gating = report.verdicts.desired ?? report.verdicts.live;
    if (!gating) {
      yield linesPiece(out);
      continue;
    }
    const word = paint(STATUS_WORD[gating.status].padEnd(5), statusColor[gating.status]);
    const verdicts = targets.map((target) => `${target} ${describeVerdict(report.verdicts[target] as TestVerdict)}`);
    out.push(`  ${word} ${printable(report.name)}  [${verdicts.join(' · ')}]`);
    for (const target of targets) {
      const verdict = report.verdicts[target];
      if (!verdict) continue;
      const shown = verdict.status === 'passed' || verdict.status === 'skipped' ? undefined : runToShow(verdict);
      if (!shown) continue;
      out.push(`        ${target}, run ${shown.index + 1} of ${verdict.results.length}:`);
      if (shown.run.error) out.push(`        error: ${printable(shown.run.error)}`);
      for (const check of problemChecks(shown.run)) out.push(`        ✗ ${describeCheckResult(check)}`);
      for (const line of transcriptLines(shown.run.transcript)) out.push(paint(`          ${line}`, pc.dim));
    }
    yield linesPiece(out);
  }
  const out = [''];
  for (const [target, summary] of Object.entries(run.summary)) {
    const parts = [`${summary.passed} passed`, `${summary.failed} failed`];
    if (summary.skipped > 0) parts.push(`${summary.skipped} skipped`);
    if (summary.errors > 0) parts.push(plural(summary.errors, 'error'));
    out.push(`${target}: ${parts.join(', ')}`);
  }
  out.push(`(${plural(run.reports.length, 'test')} in ${(run.durationMs / 1000).toFixed(1)} s)`);
  yield linesPiece(out);
}
