/**
 * What the renderers share: how a verdict, a target and a transcript read. Every text from a test
 * file, an agent or a model passes `printable` on its way out (the JSON report aside, which JSON
 * escapes): a test name or a reply could otherwise retitle or recolour the reader's terminal.
 */
import { printable } from '../util/printable.js';
import { plural } from '../util/plural.js';
import { SINK_URL } from '../secrets/sink.js';
import { describeStatistics, passRateText } from './statistics.js';
import { describeBaselineVerdict } from './baseline.js';
import type { BaselineComparison, CheckResult, CheckStatus, RunResult, Target, TestReport, TestRunSummary, TestVerdict, TranscriptMessage } from './types.js';

export const STATUS_WORD: Record<CheckStatus, string> = { passed: 'PASS', failed: 'FAIL', skipped: 'SKIP', error: 'ERROR' };

export function targetsOf(report: TestReport): Target[] {
  return (['live', 'desired'] as const).filter((target) => report.verdicts[target] !== undefined);
}

/**
 * "3/5 (needs 80%; pass^5 no, pass@5 yes, 60% (23–88%), flaky)" or "1/1"; "skipped" when no run
 * counted. Runs in error of a repeated test are counted first ("3/5 (2 errors; …)"): they are why the test is an error.
 */
export function describeVerdict(verdict: TestVerdict): string {
  if (verdict.runs === 0) return 'skipped';
  const errors = verdict.results.filter((run) => run.status === 'error').length;
  const notes = [errors > 0 && verdict.runs > 1 ? plural(errors, 'error') : '', verdict.passRate < 1 ? `needs ${passRateText(verdict.passRate)}` : '', describeStatistics(verdict)].filter(Boolean);
  return `${verdict.passes}/${verdict.runs}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}

/**
 * The run every format shows for a verdict: none for one that passed or was skipped (a repeated test
 * that met its pass rate is no failure, whatever some of its runs did); for an error the first run
 * that errored, else the first that failed or errored.
 */
export function runToShow(verdict: TestVerdict): { run: RunResult; index: number } | undefined {
  if (verdict.status === 'passed' || verdict.status === 'skipped') return undefined;
  const shown = (run: RunResult) => (verdict.status === 'error' ? run.status === 'error' : run.status === 'failed' || run.status === 'error');
  const index = verdict.results.findIndex(shown);
  return index === -1 ? undefined : { run: verdict.results[index] as RunResult, index };
}

export function problemChecks(run: RunResult): CheckResult[] {
  return run.checks.filter((check) => check.status === 'failed' || check.status === 'error');
}

/** "turn 2: contains "9": the reply does not contain "9"". */
export function describeCheckResult(check: CheckResult): string {
  const where = check.turn !== undefined ? `turn ${check.turn}: ` : '';
  return printable(`${where}${check.check}${check.detail ? ` — ${check.detail}` : ''}`);
}

/**
 * Why a verdict was skipped, the one source every format quotes: the first skipped check of its
 * first run ("mock_tools — the live agent's tools cannot be mocked (…)", "turn 1: judge: … — no
 * judge (--skip-judge)"); undefined for a verdict that was not skipped.
 */
export function skipReason(verdict: TestVerdict): string | undefined {
  if (verdict.status !== 'skipped') return undefined;
  for (const run of verdict.results) {
    const skipped = run.checks.find((check) => check.status === 'skipped');
    if (skipped) return describeCheckResult(skipped);
  }
  return undefined;
}

/** What went wrong in a run: its error (a run that could not complete), then its failed checks. */
export function describeProblems(run: RunResult): string[] {
  return [...(run.error ? [printable(run.error)] : []), ...problemChecks(run).map(describeCheckResult)];
}

/** `live: 3 passed, 1 failed, 2 skipped, 1 error`: the skipped and errors only when there are any. */
export function summaryLine(target: string, summary: TestRunSummary): string {
  const parts = [`${summary.passed} passed`, `${summary.failed} failed`];
  if (summary.skipped > 0) parts.push(`${summary.skipped} skipped`);
  if (summary.errors > 0) parts.push(plural(summary.errors, 'error'));
  return `${target}: ${parts.join(', ')}`;
}

/** One line per message; line breaks become spaces. */
export function transcriptLines(transcript: readonly TranscriptMessage[]): string[] {
  return transcript.map((line) => `${line.role === 'user' ? 'caller' : 'agent '}: ${printable(line.content.replace(/\r?\n/g, ' '))}`);
}

/** Tests of a run against both skipped or with an error on a side, as the behaviour diff tells them: not a change either way. */
export function notComparedWords(count: number): string {
  return `not compared: ${plural(count, 'test')} skipped or with an error against live or desired (a run that was skipped or could not complete shows no behaviour)`;
}

/**
 * What the run says against its baseline: the tests that got worse, and the tests in error among the
 * verdicts compared, which fail the run though they are no regression (`runSucceeded`).
 */
export function baselineHeadline(baseline: BaselineComparison, errors: number): string {
  const worse = baseline.regressions.length;
  const got = worse === 0 ? 'no test got worse' : `${plural(worse, 'test')} got worse`;
  return errors === 0 ? got : `${got}; ${plural(errors, 'test')} ended in error, ${errors === 1 ? 'its verdict' : 'their verdicts'} unknown`;
}

/** "newly failing  tests/a.test.yaml › greets [desired] (baseline: passed 2/2; now failed 0/2)": one line per regression, printable. */
export function regressionLines(baseline: BaselineComparison): string[] {
  return baseline.regressions.map(({ report, target, change, before }) => {
    const now = report.verdicts[target];
    const label = change === 'newly_failing' ? 'newly failing' : 'pass rate dropped';
    return printable(`${label}  ${report.file} › ${report.name} [${target}] (baseline: ${describeBaselineVerdict(before)}; now ${now ? `${now.status} ${describeVerdict(now)}` : 'not run'})`);
  });
}

/** The checks of a verdict met by the caller's own words (checks.ts `flagCallerWords`), from its first run that has any. */
export function callerWordChecks(verdict: TestVerdict): CheckResult[] {
  for (const run of verdict.results) {
    const flagged = run.checks.filter((check) => check.flag === 'caller_words');
    if (flagged.length > 0) return flagged;
  }
  return [];
}

/**
 * The note of an agent whose configuration under test had URLs sent to the sink (src/secrets/sink.ts),
 * naming as many of its places as let the note pass `fits` and counting the rest: the places are the
 * pull request's, as many and as long as it likes, and the Markdown comment is size-capped.
 */
export function sinkNote(agent: string, places: readonly string[], fits: (note: string) => boolean = () => true): string {
  const named = places.map(printable);
  const noteNaming = (count: number): string => {
    const left = named.length - count;
    const list = left === 0 ? named.join(', ') : count === 0 ? plural(left, 'place') : `${named.slice(0, count).join(', ')} and ${plural(left, 'more place')}`;
    const one = named.length === 1;
    return `Note: ${printable(agent)}: ${list} named ${one ? 'a URL' : 'URLs'} the live agent does not call; the run sent ${one ? 'it' : 'them'} to ${SINK_URL} instead (pass --with-secrets once the change is reviewed).`;
  };
  // The most places that fit: a note only grows with each place named.
  let low = 0;
  let high = named.length;
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (fits(noteNaming(middle))) low = middle;
    else high = middle - 1;
  }
  return noteNaming(low);
}
