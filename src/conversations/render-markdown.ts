/**
 * The pull-request comment (`--format markdown`): the behaviour diff first (what this change does
 * to the agent's verdicts), a table of every test, then each failure with its transcript folded
 * away. Capped below GitHub's comment limit: transcripts that do not fit are left out, and the
 * comment says how many.
 */
import { printable } from '../util/printable.js';
import { describeProblems, describeVerdict, runToShow, targetsOf, transcriptLines } from './render-shared.js';
import type { CheckStatus, TestReport, TestRun, TestVerdict } from './types.js';
import { keepText, type Redact } from '../secrets/redact.js';

/** GitHub refuses comments over 65,536 characters; this leaves room for the rest of a comment. */
export const MARKDOWN_LIMIT = 60_000;

const ICON: Record<CheckStatus, string> = { passed: '✅', failed: '❌', skipped: '⏭️', error: '⚠️' };

/** A table cell (or a <summary>) of untrusted text: one line, control characters escaped, `|` escaped. */
function cell(text: string): string {
  return printable(text.replace(/\r?\n/g, ' ')).replace(/\|/g, '\\|');
}

/** A fenced block whose fence is longer than any backtick run inside (a transcript cannot break out of it). */
function fence(content: string): string {
  const longest = Math.max(2, ...[...content.matchAll(/`+/g)].map((m) => m[0].length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}text\n${content}\n${marks}`;
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
    const extra = [s.skipped > 0 ? `${s.skipped} skipped` : '', s.errors > 0 ? `${s.errors} errors` : ''].filter(Boolean).join(', ');
    parts.push(`${target}: ${s.passed} passed, ${s.failed} failed${extra ? `, ${extra}` : ''}`);
  }
  return `### voxform test: ${parts.join(' · ')}`;
}

function changeSection(run: TestRun): string[] {
  if (run.against.length !== 2) return [];
  if (run.changes.length === 0) return ['**Behaviour diff:** no change: every test has the same verdict against the live agent and this change.', ''];
  const out = ['**Behaviour diff** (live → this change)', '', '| change | test | live | desired |', '|---|---|---|---|'];
  for (const { report, change } of run.changes) {
    const label = change === 'newly_failing' ? '🔴 newly failing' : '🟢 newly passing';
    out.push(`| ${label} | ${cell(report.name)} (\`${cell(report.file)}\`) | ${verdictCell(report.verdicts.live)} | ${verdictCell(report.verdicts.desired)} |`);
  }
  out.push('');
  return out;
}

function testTable(run: TestRun): string[] {
  const targets = run.against;
  const out = [`| test | file | ${targets.join(' | ')} |`, `|---|---|${targets.map(() => '---|').join('')}`];
  for (const report of run.reports) out.push(`| ${cell(report.name)} | \`${cell(report.file)}\` | ${targets.map((t) => verdictCell(report.verdicts[t])).join(' | ')} |`);
  return out;
}

function failureDetails(report: TestReport): string[] {
  const blocks: string[] = [];
  for (const target of targetsOf(report)) {
    const verdict = report.verdicts[target];
    const shown = verdict ? runToShow(verdict) : undefined;
    if (!verdict || !shown) continue;
    const problems = describeProblems(shown.run);
    const summary = `${ICON[verdict.status]} ${cell(report.name)} (${target}, ${describeVerdict(verdict)}): ${cell(problems[0] ?? 'failed')}`;
    const body = [...problems.map((p) => `- ${p}`), '', fence(transcriptLines(shown.run.transcript).join('\n') || '(no messages)')].join('\n');
    blocks.push(`<details><summary>${summary.replace(/</g, '&lt;')}</summary>\n\n${body}\n\n</details>`);
  }
  return blocks;
}

/** `redact` hides the run's secrets before the comment is cut at `limit` (a secret cut in two would escape the last scrub). */
export function renderTestMarkdown(run: TestRun, limit = MARKDOWN_LIMIT, redact: Redact = keepText): string {
  const head = [headline(run), '', ...changeSection(run), ...testTable(run), ''].join('\n');
  // Failures in order of interest: the behaviour diff's first, then the rest.
  const changed = new Set(run.changes.map((c) => c.report));
  const ordered = [...run.changes.map((c) => c.report), ...run.reports.filter((r) => !changed.has(r))];
  const details = ordered.flatMap(failureDetails);
  let text = head;
  let shown = 0;
  for (const block of details) {
    if (text.length + block.length + 200 > limit) break;
    text += `\n${block}\n`;
    shown++;
  }
  if (shown < details.length) text += `\n_${details.length - shown} more failure${details.length - shown === 1 ? '' : 's'} not shown (the comment is size-capped); the job log and \`--format json\` have them all._\n`;
  text = redact(text);
  return text.length > limit ? `${text.slice(0, limit - 40)}\n\n_(cut at the size limit)_\n` : text;
}
