/**
 * The pull-request comment (`--format markdown`): the behaviour diff first (what this change does
 * to the agent's verdicts), a table of every test, then each failure with its transcript folded
 * away. Capped below GitHub's comment limit by the rule every comment shares (`fitBlocks`): the
 * headline stays; a table or list too long for its share is cut at a row, failing tests first, with
 * a row counting the rest; failures that do not fit are left out, and the comment says how many.
 */
import { markdownCode, markdownFence, markdownHtmlText, markdownText } from '../util/markdown-escape.js';
import { baselineHeadline, callerWordChecks, describeCheckResult, describeProblems, describeVerdict, notComparedWords, regressionLines, runToShow, sinkNote, skipReason, summaryLine, targetsOf, transcriptLines } from './render-shared.js';
import { SINK_URL } from '../secrets/sink.js';
import { gatingErrors, notComparedCount } from './runner.js';
import type { CheckStatus, TestReport, TestRun, TestVerdict } from './types.js';
import { keepText, type Redact } from '../secrets/redact.js';
import { formatCount, plural } from '../util/plural.js';
import { byteLength, COMMENT_SIZE_LIMIT, fitBlocks, fitItems, JSON_OUTPUT_HAS_ALL, linesSize, moreTableRow, wholeLines, type CommentBlock, type CommentList } from '../util/comment-blocks.js';

/** The most one agent's sink note takes of the comment, in bytes; places that do not fit are counted. */
const SINK_NOTE_LIMIT = 1_000;
/** The share of the comment the sink notes may take; agents that do not fit are counted in one last note. */
const SINK_NOTES_SHARE = 0.1;

const ICON: Record<CheckStatus, string> = { passed: '✅', failed: '❌', skipped: '⏭️', error: '⚠️' };

/**
 * Untrusted text into the comment, through the one Markdown escaper (util/markdown-escape.ts). The
 * run's secrets are hidden first: escaping changes how a secret reads, so the final scrub of the
 * comment could no longer find it.
 */
interface Escape {
  text(text: string): string;
  html(text: string): string;
  code(text: string): string;
  fence(lines: string[]): string[];
}

function escaperFor(redact: Redact): Escape {
  return {
    text: (text) => markdownText(redact(text)),
    html: (text) => markdownHtmlText(redact(text)),
    code: (text) => markdownCode(redact(text), { inTable: true }),
    fence: (lines) => markdownFence(lines.map(redact), 'text'),
  };
}

function verdictCell(verdict: TestVerdict | undefined): string {
  return verdict ? `${ICON[verdict.status]} ${describeVerdict(verdict)}` : '';
}

function headline(run: TestRun): string {
  const parts: string[] = [];
  if (run.against.length === 2) {
    const failing = run.changes.filter((c) => c.change === 'newly_failing').length;
    const notCompared = notComparedCount(run);
    parts.push(`${failing} newly failing, ${run.changes.length - failing} newly passing${notCompared > 0 ? `, ${formatCount(notCompared)} not compared` : ''}`);
  }
  for (const [target, summary] of Object.entries(run.summary)) parts.push(summaryLine(target, summary));
  return `### voxform test: ${parts.join(' · ')}`;
}

/** A list the comment may cut to half the room left, so the failures after it keep room. */
function halfList(head: string[], items: string[], foot: string[], more: (omitted: number) => string): CommentList {
  return { head, items, foot, most: Number.POSITIVE_INFINITY, more, share: 0.5 };
}

function changeSection(run: TestRun, md: Escape, whole: string): CommentBlock {
  if (run.against.length !== 2) return [];
  const notCompared = notComparedCount(run);
  const notComparedLine = notCompared > 0 ? [md.text(`${notComparedWords(notCompared)}.`), ''] : [];
  if (run.changes.length === 0) {
    if (notCompared > 0) return ['**Behaviour diff:** no change among the tests compared.', '', ...notComparedLine];
    return ['**Behaviour diff:** no change: every test has the same verdict against the live agent and this change.', ''];
  }
  const rows = run.changes.map(({ report, change }) => {
    const label = change === 'newly_failing' ? '🔴 newly failing' : '🟢 newly passing';
    return `| ${label} | ${md.text(report.name)} (${md.code(report.file)}) | ${verdictCell(report.verdicts.live)} | ${verdictCell(report.verdicts.desired)} |`;
  });
  return halfList(['**Behaviour diff** (live → this change)', '', '| change | test | live | desired |', '|---|---|---|---|'], rows, ['', ...notComparedLine], (omitted) => moreTableRow(omitted, 'change', 4, whole));
}

function baselineSection(run: TestRun, md: Escape): CommentBlock {
  if (!run.baseline) return [];
  const headline = `**Against the baseline** ${md.code(run.baseline.file)}: ${baselineHeadline(run.baseline, gatingErrors(run))}`;
  if (run.baseline.regressions.length === 0) return [`${headline}.`, ''];
  const lines = regressionLines(run.baseline).map((line) => `- 🔴 ${md.text(line)}`);
  return halfList([headline, ''], lines, [''], moreLine);
}

/** Passing checks that prove little: met by what the caller said (checks.ts `flagCallerWords`). */
function callerWordsSection(run: TestRun, md: Escape): CommentBlock {
  const lines = run.reports.flatMap((report) => {
    const gating = report.verdicts.desired ?? report.verdicts.live;
    return gating ? callerWordChecks(gating).map((check) => `- ⚠️ ${md.text(report.name)}: ${md.text(describeCheckResult(check))}`) : [];
  });
  return lines.length > 0 ? halfList(['', "**Checks met by the caller's own words** (they pass, and prove little):", ''], lines, [], moreLine) : [];
}

/** Why each skipped verdict was skipped (render-shared.ts `skipReason`). */
function skippedSection(run: TestRun, md: Escape): CommentBlock {
  const lines = run.reports.flatMap((report) =>
    targetsOf(report).flatMap((target) => {
      const reason = skipReason(report.verdicts[target] as TestVerdict);
      return reason ? [`- ${ICON.skipped} ${md.text(report.name)} (${target}): ${md.text(reason)}`] : [];
    }),
  );
  return lines.length > 0 ? halfList(['', '**Skipped:**', ''], lines, [], moreLine) : [];
}

function moreLine(omitted: number): string {
  return `- …and ${formatCount(omitted)} more (\`--format json\` lists every one)`;
}

/** A test that did not pass against some target: its row is kept before the passing ones when the table is cut. */
function didNotPass(report: TestReport): boolean {
  return targetsOf(report).some((target) => ['failed', 'error'].includes(report.verdicts[target]?.status ?? ''));
}

/** Every test's row, in file order; `failingFirst` (the table will be cut): the tests that did not pass first. */
function testTable(run: TestRun, md: Escape, failingFirst: boolean, whole: string): CommentList {
  const targets = run.against;
  const reports = failingFirst ? [...run.reports.filter(didNotPass), ...run.reports.filter((report) => !didNotPass(report))] : run.reports;
  const rows = reports.map((report) => `| ${md.text(report.name)} | ${md.code(report.file)} | ${targets.map((t) => verdictCell(report.verdicts[t])).join(' | ')} |`);
  return halfList([`| test | file | ${targets.join(' | ')} |`, `|---|---|${targets.map(() => '---|').join('')}`], rows, [], (omitted) => moreTableRow(omitted, 'test', targets.length + 2, whole));
}

function failureDetails(report: TestReport, md: Escape): string[] {
  const blocks: string[] = [];
  for (const target of targetsOf(report)) {
    const verdict = report.verdicts[target];
    const shown = verdict ? runToShow(verdict) : undefined;
    if (!verdict || !shown) continue;
    const problems = describeProblems(shown.run);
    const summary = `${ICON[verdict.status]} ${md.html(report.name)} (${target}, ${describeVerdict(verdict)}): ${md.html(problems[0] ?? 'failed')}`;
    const transcript = transcriptLines(shown.run.transcript);
    const body = [...problems.map((p) => `- ${md.text(p)}`), '', ...md.fence(transcript.length > 0 ? transcript : ['(no messages)'])].join('\n');
    blocks.push(`<details><summary>${summary}</summary>\n\n${body}\n\n</details>`);
  }
  return blocks;
}

/**
 * The comment's last lines: which places of which agents the run sent to the sink. Each note and all
 * of them are bounded (the pull request chooses how many places and agents there are), so the
 * failures keep the room the cap leaves.
 */
function sinkSection(run: TestRun, md: Escape, room: number): string {
  const agents = run.sinked ?? [];
  const quoted = (note: string) => ['', `> ${md.text(note)}`];
  const notes = agents.map(({ agent, places }) => quoted(sinkNote(agent, places, (text) => linesSize(quoted(text)) <= SINK_NOTE_LIMIT)));
  const rest = (omitted: number) => {
    const count = agents.slice(agents.length - omitted).reduce((sum, { places }) => sum + places.length, 0);
    return quoted(`Note: ${plural(omitted, 'more agent')} named URLs the live agent does not call, at ${plural(count, 'place')}; the run sent them to ${SINK_URL} too.`);
  };
  return fitItems(notes, room, rest).map((line) => `${line}\n`).join('');
}

/** The comment's blocks, in order; `failingFirst`: the test table's failing rows first; `whole` names what has every test. */
function commentBlocks(run: TestRun, md: Escape, failingFirst: boolean, whole: string | undefined): CommentBlock[] {
  // Failures in order of interest: the behaviour diff's first, then the rest.
  const changed = new Set(run.changes.map((c) => c.report));
  const ordered = [...run.changes.map((c) => c.report), ...run.reports.filter((r) => !changed.has(r))];
  // Each failure follows a blank line.
  const details = ordered.flatMap((report) => failureDetails(report, md)).map((block) => `\n${block}`);
  const moreFailures = (omitted: number) => `\n_${plural(omitted, 'more failure', 'more failures')} not shown (the comment is size-capped); ${whole === undefined ? `the job log and ${JSON_OUTPUT_HAS_ALL} have` : `${whole} has`} them all._`;
  return [
    [headline(run), ''],
    baselineSection(run, md),
    changeSection(run, md, whole ?? JSON_OUTPUT_HAS_ALL),
    testTable(run, md, failingFirst, whole ?? JSON_OUTPUT_HAS_ALL),
    skippedSection(run, md),
    callerWordsSection(run, md),
    { head: [], items: details, foot: [], most: Number.POSITIVE_INFINITY, more: moreFailures },
  ];
}

/**
 * `redact` hides the run's secrets before the comment is cut at `limit` (a secret cut in two would
 * escape the last scrub). `hasAll` names what has every test when the comment is cut (`voxform ci
 * run`: the report file it wrote); by default the job log and `--format json`.
 */
export function renderTestMarkdown(run: TestRun, limit = COMMENT_SIZE_LIMIT, redact: Redact = keepText, hasAll?: string): string {
  const md = escaperFor(redact);
  // The notes stay whole (they are bounded): the cut takes from what comes before them.
  const notes = sinkSection(run, md, Math.floor(limit * SINK_NOTES_SHARE));
  const room = limit - byteLength(notes);
  const whole = wholeLines(commentBlocks(run, md, false, hasAll));
  const lines = linesSize(whole) <= room ? whole : fitBlocks(commentBlocks(run, md, true, hasAll), room, redact);
  return `${redact(lines.join('\n'))}\n${notes}`;
}
