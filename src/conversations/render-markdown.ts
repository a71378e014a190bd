/**
 * The pull-request comment (`--format markdown`): the behaviour diff first (what this change does
 * to the agent's verdicts), a table of every test, then each failure with its transcript folded
 * away. Capped below GitHub's comment limit: transcripts that do not fit are left out, and the
 * comment says how many.
 */
import { markdownCode, markdownFence, markdownHtmlText, markdownText } from '../util/markdown-escape.js';
import { callerWordChecks, describeCheckResult, describeProblems, describeVerdict, regressionLines, runToShow, sinkNote, skipReason, targetsOf, transcriptLines } from './render-shared.js';
import { SINK_URL } from '../secrets/sink.js';
import type { CheckStatus, TestReport, TestRun, TestVerdict } from './types.js';
import { keepText, type Redact } from '../secrets/redact.js';
import { plural } from '../util/plural.js';
import { characterLength, COMMENT_SIZE_LIMIT, fitItems, linesSize } from '../util/comment-blocks.js';

/** The most one agent's sink note takes of the comment; places that do not fit are counted. */
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
    parts.push(`${failing} newly failing, ${run.changes.length - failing} newly passing`);
  }
  for (const [target, s] of Object.entries(run.summary)) {
    const extra = [s.skipped > 0 ? `${s.skipped} skipped` : '', s.errors > 0 ? plural(s.errors, 'error') : ''].filter(Boolean).join(', ');
    parts.push(`${target}: ${s.passed} passed, ${s.failed} failed${extra ? `, ${extra}` : ''}`);
  }
  return `### voxform test: ${parts.join(' · ')}`;
}

function changeSection(run: TestRun, md: Escape): string[] {
  if (run.against.length !== 2) return [];
  if (run.changes.length === 0) return ['**Behaviour diff:** no change: every test has the same verdict against the live agent and this change.', ''];
  const out = ['**Behaviour diff** (live → this change)', '', '| change | test | live | desired |', '|---|---|---|---|'];
  for (const { report, change } of run.changes) {
    const label = change === 'newly_failing' ? '🔴 newly failing' : '🟢 newly passing';
    out.push(`| ${label} | ${md.text(report.name)} (${md.code(report.file)}) | ${verdictCell(report.verdicts.live)} | ${verdictCell(report.verdicts.desired)} |`);
  }
  out.push('');
  return out;
}

function baselineSection(run: TestRun, md: Escape): string[] {
  if (!run.baseline) return [];
  const worse = run.baseline.regressions.length;
  if (worse === 0) return [`**Against the baseline** ${md.code(run.baseline.file)}: no test got worse.`, ''];
  return [`**Against the baseline** ${md.code(run.baseline.file)}: ${plural(worse, 'test')} got worse`, '', ...regressionLines(run.baseline).map((line) => `- 🔴 ${md.text(line)}`), ''];
}

/** Passing checks that prove little: met by what the caller said (checks.ts `flagCallerWords`). */
function callerWordsSection(run: TestRun, md: Escape): string[] {
  const lines = run.reports.flatMap((report) => {
    const gating = report.verdicts.desired ?? report.verdicts.live;
    return gating ? callerWordChecks(gating).map((check) => `- ⚠️ ${md.text(report.name)}: ${md.text(describeCheckResult(check))}`) : [];
  });
  return lines.length > 0 ? ['', "**Checks met by the caller's own words** (they pass, and prove little):", '', ...lines] : [];
}

/** Why each skipped verdict was skipped (render-shared.ts `skipReason`). */
function skippedSection(run: TestRun, md: Escape): string[] {
  const lines = run.reports.flatMap((report) =>
    targetsOf(report).flatMap((target) => {
      const reason = skipReason(report.verdicts[target] as TestVerdict);
      return reason ? [`- ${ICON.skipped} ${md.text(report.name)} (${target}): ${md.text(reason)}`] : [];
    }),
  );
  return lines.length > 0 ? ['', '**Skipped:**', '', ...lines] : [];
}

function testTable(run: TestRun, md: Escape): string[] {
  const targets = run.against;
  const out = [`| test | file | ${targets.join(' | ')} |`, `|---|---|${targets.map(() => '---|').join('')}`];
  for (const report of run.reports) out.push(`| ${md.text(report.name)} | ${md.code(report.file)} | ${targets.map((t) => verdictCell(report.verdicts[t])).join(' | ')} |`);
  return out;
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
  const notes = agents.map(({ agent, places }) => quoted(sinkNote(agent, places, (text) => linesSize(quoted(text), characterLength) <= SINK_NOTE_LIMIT)));
  const rest = (omitted: number) => {
    const count = agents.slice(agents.length - omitted).reduce((sum, { places }) => sum + places.length, 0);
    return quoted(`Note: ${plural(omitted, 'more agent')} named URLs the live agent does not call, at ${plural(count, 'place')}; the run sent them to ${SINK_URL} too.`);
  };
  return fitItems(notes, room, rest, characterLength).map((line) => `${line}\n`).join('');
}

/** `redact` hides the run's secrets before the comment is cut at `limit` (a secret cut in two would escape the last scrub). */
export function renderTestMarkdown(run: TestRun, limit = COMMENT_SIZE_LIMIT, redact: Redact = keepText): string {
  const md = escaperFor(redact);
  const head = [headline(run), '', ...baselineSection(run, md), ...changeSection(run, md), ...testTable(run, md), ...skippedSection(run, md), ...callerWordsSection(run, md), ''].join('\n');
  // Failures in order of interest: the behaviour diff's first, then the rest.
  const changed = new Set(run.changes.map((c) => c.report));
  const ordered = [...run.changes.map((c) => c.report), ...run.reports.filter((r) => !changed.has(r))];
  const details = ordered.flatMap((report) => failureDetails(report, md));
  const notes = sinkSection(run, md, Math.floor(limit * SINK_NOTES_SHARE));
  let text = head;
  let shown = 0;
  for (const block of details) {
    if (text.length + block.length + notes.length + 200 > limit) break;
    text += `\n${block}\n`;
    shown++;
  }
  if (shown < details.length) text += `\n_${plural(details.length - shown, 'more failure', 'more failures')} not shown (the comment is size-capped); the job log and \`--format json\` have them all._\n`;
  // The notes stay whole (they are bounded): a cut takes from what comes before them.
  text = redact(text);
  const room = Math.max(40, limit - notes.length);
  return `${text.length > room ? `${text.slice(0, room - 40)}\n\n_(cut at the size limit)_\n` : text}${notes}`;
}
