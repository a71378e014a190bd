/**
 * JUnit XML (`--format junit`), as GitHub and GitLab test reports read it: one <testsuite> per test
 * file, one <testcase> per test and target (the target in brackets when both run), <failure>,
 * <error> or <skipped> with the failed checks, and the transcript in <system-out>; a check met by
 * the caller's own words is flagged in both <system-out> and a `caller_words` property.
 */
import { printable } from '../util/printable.js';
import { callerWordChecks, describeCheckResult, describeProblems, describeVerdict, runToShow, skipReason, targetsOf, transcriptLines } from './render-shared.js';
import type { TestReport, TestRun, TestVerdict } from './types.js';
import { verdictStatistics } from './statistics.js';

/**
 * Characters XML 1.0 does not allow at all (control characters other than tab, newline, return),
 * for text that has not passed `printable` (which escapes the controls readably).
 */
const INVALID_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]/g;

function escapeXml(text: string): string {
  return text
    .replace(INVALID_XML, '\uFFFD')
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replaceAll('"', '&quot;')
    .replaceAll("'", '&apos;');
}

/**
 * A testcase's properties: a repeated test's statistics (statistics.ts: pass@k, pass^k, the rate and
 * its interval, flaky), and one `caller_words` property per check met by the caller's own words.
 */
function testcaseProperties(verdict: TestVerdict, callerWords: readonly string[]): string {
  const property = (name: string, value: string | number | boolean) => `        <property name="${name}" value="${escapeXml(String(value))}"/>\n`;
  const stats = verdictStatistics(verdict);
  const statistics =
    stats.runs < 2 || stats.rate === null || !stats.interval
      ? []
      : [
          property('pass_at_k', stats.passAtK === true),
          property('pass_hat_k', stats.passHatK === true),
          property('observed_rate', stats.rate),
          property('interval_low', stats.interval.low),
          property('interval_high', stats.interval.high),
          property('flaky', stats.flaky),
        ];
  const flagged = callerWords.map((words) => property('caller_words', words));
  if (statistics.length + flagged.length === 0) return '';
  return ['      <properties>\n', ...statistics, ...flagged, '      </properties>\n'].join('');
}

function* testcase(report: TestReport, both: boolean): Generator<string> {
  for (const target of targetsOf(report)) {
    const verdict = report.verdicts[target];
    if (!verdict) continue;
    const seconds = verdict.results.reduce((sum, run) => sum + run.durationMs, 0) / 1000;
    const name = printable(both ? `${report.name} [${target}]` : report.name);
    const file = printable(report.file);
    const attrs = `name="${escapeXml(name)}" classname="${escapeXml(file.replace(/\.test\.ya?ml$/i, '').replaceAll('/', '.'))}" file="${escapeXml(file)}" line="${report.location.line}" time="${seconds.toFixed(3)}"`;
    // Passing checks that prove little, in the words of the text report (render-text.ts).
    const callerWords = callerWordChecks(verdict).map(describeCheckResult);
    const properties = testcaseProperties(verdict, callerWords);
    if (verdict.status === 'passed' && properties === '') {
      yield `    <testcase ${attrs}/>\n`;
      continue;
    }
    yield `    <testcase ${attrs}>\n`;
    yield properties;
    if (verdict.status === 'skipped') yield `      <skipped message="${escapeXml(skipReason(verdict) ?? 'skipped')}"/>\n`;
    const shown = runToShow(verdict);
    if (shown) {
      const problems = describeProblems(shown.run);
      const element = verdict.status === 'error' ? 'error' : 'failure';
      const message = `${describeVerdict(verdict)} runs passed; ${problems[0] ?? 'failed'}`;
      yield `      <${element} message="${escapeXml(message)}" type="${verdict.status}">${escapeXml(problems.join('\n'))}</${element}>\n`;
    }
    // The warnings, then the transcript a message at a time: escaping each line is escaping the whole.
    const out = [...callerWords.map((words) => `⚠ ${words}`), ...(shown ? transcriptLines(shown.run.transcript) : [])];
    if (out.length > 0) {
      yield '      <system-out>';
      for (const [index, line] of out.entries()) yield `${index === 0 ? '' : '\n'}${escapeXml(line)}`;
      yield '</system-out>\n';
    }
    yield '    </testcase>\n';
  }
}

export function renderTestJunit(run: TestRun): string {
  return [...testJunitPieces(run)].join('');
}

/** The JUnit report in pieces, in order, a transcript's message at most each (as the JSON report is made: render-json.ts). */
export function* testJunitPieces(run: TestRun): Generator<string> {
  const both = run.against.length === 2;
  const suites = [...new Set(run.reports.map((report) => report.file))].map((file) => {
    const reports = run.reports.filter((report) => report.file === file);
    const verdicts = reports.flatMap((report) => Object.values(report.verdicts));
    return {
      file,
      reports,
      tests: verdicts.length,
      failures: verdicts.filter((v) => v.status === 'failed').length,
      errors: verdicts.filter((v) => v.status === 'error').length,
      skipped: verdicts.filter((v) => v.status === 'skipped').length,
      seconds: verdicts.flatMap((v) => v.results).reduce((sum, r) => sum + r.durationMs, 0) / 1000,
    };
  });
  // Times add up as the report's readers expect, whole = sum of its parts: tests run side by side, so
  // the run's own wall-clock time (in the JSON report) would be shorter than its suites'.
  const total = (key: 'tests' | 'failures' | 'errors' | 'skipped' | 'seconds') => suites.reduce((sum, suite) => sum + suite[key], 0);
  yield '<?xml version="1.0" encoding="UTF-8"?>\n';
  yield `<testsuites name="voxform test" tests="${total('tests')}" failures="${total('failures')}" errors="${total('errors')}" skipped="${total('skipped')}" time="${total('seconds').toFixed(3)}">\n`;
  for (const suite of suites) {
    yield `  <testsuite name="${escapeXml(printable(suite.file))}" tests="${suite.tests}" failures="${suite.failures}" errors="${suite.errors}" skipped="${suite.skipped}" time="${suite.seconds.toFixed(3)}">\n`;
    for (const report of suite.reports) yield* testcase(report, both);
    yield '  </testsuite>\n';
  }
  yield '</testsuites>\n';
}
