/**
 * The terminal report: behaviour changes first, a line per test and target, failures with their
 * transcript. Made a line at a time, for the CLI to write as they come (as the JSON report is:
 * render-json.ts).
 */
import { terminalColors } from '../util/terminal-colors.js';
import { printable } from '../util/printable.js';
import { baselineHeadline, callerWordChecks, describeCheckResult, describeVerdict, notComparedWords, problemChecks, regressionLines, runToShow, skipReason, STATUS_WORD, summaryLine, targetsOf, transcriptLines } from './render-shared.js';
import { gatingErrors, notComparedCount } from './runner.js';
import type { CheckStatus, TestRun, TestVerdict } from './types.js';
import { plural } from '../util/plural.js';
import { requireOptions } from '../util/required-options.js';

export function renderTestText(run: TestRun, options: { color: boolean }): string {
  requireOptions('renderTestText', options, { color: 'boolean' });
  return [...testTextPieces(run, options)].join('');
}

/** The text report's lines, in order, each ended by a line break. */
export function* testTextPieces(run: TestRun, options: { color: boolean }): Generator<string> {
  const c = terminalColors(options.color);
  const statusColor: Record<CheckStatus, (s: string) => string> = { passed: c.green, failed: c.red, skipped: c.yellow, error: c.red };
  if (run.against.length === 2) {
    yield line(c.bold('Behaviour changes (live → desired):'));
    const notCompared = notComparedCount(run);
    if (run.changes.length === 0) yield line(notCompared > 0 ? '  none among the tests compared' : '  none: every test has the same verdict against both');
    for (const { report, change } of run.changes) {
      const label = change === 'newly_failing' ? c.red('newly failing') : c.green('newly passing');
      yield line(`  ${label}  ${printable(report.file)} › ${printable(report.name)}`);
    }
    if (notCompared > 0) yield line(`  ${notComparedWords(notCompared)}`);
    yield line('');
  }
  let file = '';
  for (const report of run.reports) {
    if (report.file !== file) {
      file = report.file;
      yield line(c.bold(`${printable(report.file)} (agent ${printable(report.agent)})`));
    }
    const targets = targetsOf(report);
    // The status word is the gating verdict's: desired when it ran (see runSucceeded).
    const gating = report.verdicts.desired ?? report.verdicts.live;
    if (!gating) continue;
    const word = statusColor[gating.status](STATUS_WORD[gating.status].padEnd(5));
    const verdicts = targets.map((target) => `${target} ${describeVerdict(report.verdicts[target] as TestVerdict)}`);
    yield line(`  ${word} ${printable(report.name)}  [${verdicts.join(' · ')}]`);
    for (const check of callerWordChecks(gating)) yield line(c.yellow(`        ⚠ ${describeCheckResult(check)}`));
    for (const target of targets) {
      const verdict = report.verdicts[target];
      if (!verdict) continue;
      const skipped = skipReason(verdict);
      if (skipped) yield line(c.yellow(`        ${target} skipped: ${skipped}`));
      const shown = runToShow(verdict);
      if (!shown) continue;
      yield line(`        ${target}, run ${shown.index + 1} of ${verdict.results.length}:`);
      if (shown.run.error) yield line(`        error: ${printable(shown.run.error)}`);
      for (const check of problemChecks(shown.run)) yield line(`        ✗ ${describeCheckResult(check)}`);
      for (const message of transcriptLines(shown.run.transcript)) yield line(c.dim(`          ${message}`));
    }
  }
  yield line('');
  for (const [target, summary] of Object.entries(run.summary)) yield line(summaryLine(target, summary));
  if (run.baseline) {
    yield line(c.bold(`Against the baseline ${printable(run.baseline.file)}: ${baselineHeadline(run.baseline, gatingErrors(run))}`));
    for (const regression of regressionLines(run.baseline)) yield line(`  ${c.red(regression)}`);
  }
  yield line(`(${plural(run.reports.length, 'test')} in ${(run.durationMs / 1000).toFixed(1)} s)`);
}

function line(text: string): string {
  return `${text}\n`;
}
