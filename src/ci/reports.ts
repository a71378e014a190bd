/**
 * What `voxform ci` posts: one report per command run, its Markdown made by voxform's own renderers
 * (the plan's comment, the test report's comment) and, for anything else, the one Markdown escaper.
 * Each report records a status that the review's labels are set from.
 */
import { renderTestMarkdown } from '../conversations/render-markdown.js';
import type { TestRun } from '../conversations/types.js';
import { planHasChanges } from '../plan/field-lines.js';
import { renderPlanMarkdown } from '../plan/render-markdown.js';
import type { Plan } from '../plan/types.js';
import type { Redact } from '../secrets/redact.js';
import { byteLength, COMMENT_SIZE_LIMIT, fitList } from '../util/comment-blocks.js';
import { markdownCode, markdownFence } from '../util/markdown-escape.js';
import { plural } from '../util/plural.js';
import { printable } from '../util/printable.js';
import { shorten } from '../util/shorten.js';
import { shellWord } from '../util/shell-word.js';
import { commentHead, type ReportKind, type ReportStatus } from './markers.js';

export interface Report {
  kind: ReportKind;
  environment: string | undefined;
  status: ReportStatus;
  /** The Markdown shown (without voxform's hidden marker lines). */
  markdown: string;
}

/** Where the job's own page and the saved plan are, for the lines that point there. */
export interface ReportLinks {
  /** This run's web page (linkable: see `runUrl`). */
  runUrl: string | undefined;
  /** Where the saved plan is kept, in words (`artifact \`voxform-plan-production\``). */
  savedPlanWhere: string;
  /** The saved plan's file name, once downloaded. */
  savedPlanFile: string;
  /** Where the test report is kept, in words (`artifact \`voxform-tests-production\``). */
  testReportWhere: string;
  /** The test report's file name (every test of a run whose comment is cut). */
  testReportFile: string;
}

/** The most output of a command (drift, promote) a report quotes, in lines and in UTF-8 bytes. */
const OUTPUT_LIMITS: QuoteLimits = { lines: 400, bytes: 50_000 };
/** The most of a failed command's output a report quotes: room is left for the reviewed plan an apply's report folds away. */
const FAILURE_LIMITS: QuoteLimits = { lines: 200, bytes: 20_000 };

interface QuoteLimits {
  lines: number;
  bytes: number;
}

/**
 * The longest line of a command's output a report quotes whole; a longer one is cut. The fence
 * around the quote is one backtick longer than the longest run of backticks inside it, so a line of
 * them (a prompt the pull request wrote, quoted by drift) would otherwise make the fence as long as
 * the quote, twice.
 */
const QUOTED_LINE_CHARS = 2_000;

function environmentLabel(environment: string | undefined): string {
  return environment ? ` (${markdownCode(environment)})` : '';
}

function thisRun(links: ReportLinks): string {
  return links.runUrl ? `[this run](${links.runUrl})` : 'this run';
}

/**
 * What a command that failed printed, as the job log shows it (output and errors in the order
 * written): its end, where the error and the problems it lists are, so the author sees on the review
 * why it failed.
 */
interface FailureOutput {
  output: string;
  redact: Redact;
}

function whyItFailed(failure: FailureOutput, links: ReportLinks, lead = 'The end of what it printed'): string {
  return [`${lead} (the log of ${thisRun(links)} has all of it):`, '', ...quotedOutput(failure.output, failure.redact, FAILURE_LIMITS), ''].join('\n');
}

/** `voxform plan` saved `plan`, or made none (`plan` undefined) and printed `failure`. */
export function planReport(plan: Plan | undefined, environment: string | undefined, links: ReportLinks, failure: FailureOutput): Report {
  if (!plan) {
    return {
      kind: 'plan',
      environment,
      status: 'error',
      markdown: `### voxform plan${environmentLabel(environment)}: failed\n\nNo plan was saved. ${whyItFailed(failure, links)}`,
    };
  }
  const changed = planHasChanges(plan);
  const status = changed ? 'changes' : 'no-changes';
  const footer = changed ? `\n_Saved plan: ${links.savedPlanWhere} of ${thisRun(links)}; ${markdownCode(`voxform plan show ${shellWord(links.savedPlanFile)}`)} prints it whole._\n` : '';
  const markdown = renderPlanMarkdown(plan, { savedPlan: links.savedPlanFile, limit: roomLeft('plan', environment, status, footer) });
  return { kind: 'plan', environment, status, markdown: `${markdown}${footer}` };
}

/** `voxform test` wrote `run` (undefined: it stopped before a report, printing `failure`), exiting `exitCode`. */
export function testReport(run: TestRun | undefined, exitCode: number, environment: string | undefined, links: ReportLinks, failure: FailureOutput): Report {
  if (!run) {
    return {
      kind: 'test',
      environment,
      status: 'failing',
      markdown: `### voxform test${environmentLabel(environment)}: the tests did not run\n\n${whyItFailed(failure, links)}`,
    };
  }
  const whole = `${markdownCode(links.testReportFile)} (${links.testReportWhere} of ${thisRun(links)})`;
  const status = exitCode === 0 ? 'passing' : 'failing';
  const label = environmentLabel(environment);
  const markdown = renderTestMarkdown(run, roomLeft('test', environment, status, label), failure.redact, whole).replace(/^### voxform test:/, `### voxform test${label}:`);
  return { kind: 'test', environment, status, markdown };
}

/** `voxform apply` of the saved `plan` ended with `exitCode` (printing `failure`): the result, for the merged review. */
export function applyReport(plan: Plan | undefined, exitCode: number, environment: string | undefined, links: ReportLinks, failure: FailureOutput): Report {
  const applied = exitCode === 0;
  const head = `### voxform apply${environmentLabel(environment)}: ${applied ? '✅ applied' : `❌ failed (exit ${exitCode})`}`;
  // What it applied, and whether the state recorded it, only its output says: a stale plan applies nothing, a lost lock records nothing more.
  const said = applied ? `${thisRun(links)} applied the reviewed plan.` : whyItFailed(failure, links, `${thisRun(links)} did not apply the whole plan: the end of what it printed says what it applied`);
  const status = applied ? 'applied' : 'failed';
  const [open, close] = ['\n<details><summary>The reviewed plan</summary>\n\n', '\n</details>\n'];
  // The plan gets the comment's room that is left beside the rest (a failure's quote included).
  const limit = roomLeft('apply', environment, status, `${head}\n\n${said}\n`, open, close);
  const planned = plan ? `${open}${renderPlanMarkdown(plan, { savedPlan: links.savedPlanFile, limit })}${close}` : '';
  return { kind: 'apply', environment, status, markdown: `${head}\n\n${said}\n${planned}` };
}

/** The bytes a rendered report may take in a comment of COMMENT_SIZE_LIMIT: what the comment holds beside it (its hidden head, `around`) left out. */
function roomLeft(kind: ReportKind, environment: string | undefined, status: ReportStatus, ...around: string[]): number {
  return COMMENT_SIZE_LIMIT - [commentHead(kind, environment, status), ...around].reduce((sum, text) => sum + byteLength(text), 0);
}

/**
 * A command's output in a fence, cut to the limits with a line saying so. Its end is kept: every
 * command a report quotes ends with its verdict (the drift's count, the promotion's result, the
 * error that stopped it), which a long output's start would leave out.
 */
function quotedOutput(output: string, redact: Redact, limits: QuoteLimits): string[] {
  // Measured as shown: a control character takes more room escaped.
  const lastFirst = redact(output)
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => shorten(printable(line), QUOTED_LINE_CHARS))
    .reverse();
  const more = (cut: number) => `⋯ ${plural(cut, 'earlier line')} in the job log`;
  // The fences, sized for every line whichever are kept, count in the limit.
  const fences = markdownFence([], 'text', { sizedFor: lastFirst });
  const kept = fitList({ head: [], items: lastFirst, foot: [], most: limits.lines, more }, limits.bytes - byteLength(fences.join('\n')) - 1);
  return markdownFence(kept.reverse(), 'text', { sizedFor: lastFirst });
}

const OUTCOMES: Record<'drift' | 'promote', (exitCode: number) => { status: ReportStatus; words: string }> = {
  drift: (code) => (code === 0 ? { status: 'no-changes', words: '✅ in sync' } : code === 2 ? { status: 'changes', words: '⚠️ drift found' } : { status: 'error', words: `❌ the check failed (exit ${code})` }),
  promote: (code) => (code === 0 ? { status: 'applied', words: '✅ promoted' } : { status: 'failed', words: `❌ not promoted (exit ${code})` }),
};

/** `voxform drift` or `voxform promote` printed `output` (its errors too, as the log shows them) and ended with `exitCode`. */
export function outputReport(kind: 'drift' | 'promote', output: string, exitCode: number, environment: string | undefined, redact: Redact): Report {
  const outcome = OUTCOMES[kind](exitCode);
  const head = kind === 'promote' ? `### voxform promote${environment ? ` → ${markdownCode(environment)}` : ''}: ${outcome.words}` : `### voxform drift${environmentLabel(environment)}: ${outcome.words}`;
  return { kind, environment, status: outcome.status, markdown: [head, '', ...quotedOutput(output, redact, OUTPUT_LIMITS), ''].join('\n') };
}
