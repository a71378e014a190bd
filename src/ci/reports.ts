/**
 * What `voxform ci` posts: one report per command run, its Markdown made by voxform's own renderers
 * (the plan's comment, the test report's comment) and, for anything else, the one Markdown escaper.
 * Each report records a status that the review's labels are set from.
 */
import { renderTestMarkdown } from '../conversations/render-markdown.js';
import type { TestRun } from '../conversations/types.js';
import { renderPlanMarkdown } from '../plan/render-markdown.js';
import type { Plan } from '../plan/types.js';
import type { Redact } from '../secrets/redact.js';
import { markdownCode, markdownFence } from '../util/markdown-escape.js';
import { shellWord } from '../util/shell-word.js';
import type { ReportKind, ReportStatus } from './markers.js';

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
}

/** The most output of a command (drift, promote) a report quotes, in lines and in characters. */
const MAX_OUTPUT_LINES = 400;
const MAX_OUTPUT_CHARACTERS = 50_000;

function environmentLabel(environment: string | undefined): string {
  return environment ? ` (${markdownCode(environment)})` : '';
}

function thisRun(links: ReportLinks): string {
  return links.runUrl ? `[this run](${links.runUrl})` : 'this run';
}

/** `voxform plan` saved `plan`, or failed (`plan` undefined) with `exitCode`. */
export function planReport(plan: Plan | undefined, environment: string | undefined, links: ReportLinks): Report {
  if (!plan) {
    return {
      kind: 'plan',
      environment,
      status: 'error',
      markdown: `### voxform plan${environmentLabel(environment)}: failed\n\nNo plan was made; the log of ${thisRun(links)} says why.\n`,
    };
  }
  const changed = plan.changes.some((change) => change.action !== 'no-op');
  const markdown = renderPlanMarkdown(plan, { savedPlan: links.savedPlanFile });
  const footer = changed ? `\n_Saved plan: ${links.savedPlanWhere} of ${thisRun(links)}; ${markdownCode(`voxform plan show ${shellWord(links.savedPlanFile)}`)} prints it whole._\n` : '';
  return { kind: 'plan', environment, status: changed ? 'changes' : 'no-changes', markdown: `${markdown}${footer}` };
}

/** `voxform test` wrote `run` (undefined: it stopped before a report), exiting `exitCode`. */
export function testReport(run: TestRun | undefined, exitCode: number, environment: string | undefined, links: ReportLinks, redact: Redact): Report {
  if (!run) {
    return {
      kind: 'test',
      environment,
      status: 'failing',
      markdown: `### voxform test${environmentLabel(environment)}: the tests did not run\n\nThe log of ${thisRun(links)} says why.\n`,
    };
  }
  const markdown = renderTestMarkdown(run, undefined, redact).replace(/^### voxform test:/, `### voxform test${environmentLabel(environment)}:`);
  return { kind: 'test', environment, status: exitCode === 0 ? 'passing' : 'failing', markdown };
}

/** `voxform apply` of the saved `plan` ended with `exitCode`: the result, for the merged review. */
export function applyReport(plan: Plan | undefined, exitCode: number, environment: string | undefined, links: ReportLinks): Report {
  const applied = exitCode === 0;
  const head = `### voxform apply${environmentLabel(environment)}: ${applied ? '✅ applied' : `❌ failed (exit ${exitCode})`}`;
  const said = applied ? `${thisRun(links)} applied the reviewed plan.` : `${thisRun(links)} did not apply the whole plan: its log says why, and what was applied is recorded in the state.`;
  const planned = plan ? `\n<details><summary>The reviewed plan</summary>\n\n${renderPlanMarkdown(plan, { savedPlan: links.savedPlanFile })}\n</details>\n` : '';
  return { kind: 'apply', environment, status: applied ? 'applied' : 'failed', markdown: `${head}\n\n${said}\n${planned}` };
}

/** The lines of a command's output shown whole, cut to the limits with a line saying so. */
function quotedOutput(output: string, redact: Redact): string[] {
  const lines = redact(output).replace(/\n$/, '').split('\n');
  const shown: string[] = [];
  let characters = 0;
  for (const line of lines) {
    if (shown.length >= MAX_OUTPUT_LINES || characters + line.length > MAX_OUTPUT_CHARACTERS) break;
    shown.push(line);
    characters += line.length + 1;
  }
  if (shown.length < lines.length) shown.push(`⋯ ${lines.length - shown.length} more lines in the job log`);
  return markdownFence(shown, 'text');
}

const OUTCOMES: Record<'drift' | 'promote', (exitCode: number) => { status: ReportStatus; words: string }> = {
  drift: (code) => (code === 0 ? { status: 'no-changes', words: '✅ in sync' } : code === 2 ? { status: 'changes', words: '⚠️ drift found' } : { status: 'error', words: `❌ the check failed (exit ${code})` }),
  promote: (code) => (code === 0 ? { status: 'applied', words: '✅ promoted' } : { status: 'failed', words: `❌ not promoted (exit ${code})` }),
};

/** `voxform drift` or `voxform promote` printed `output` and ended with `exitCode`. */
export function outputReport(kind: 'drift' | 'promote', output: string, exitCode: number, environment: string | undefined, redact: Redact): Report {
  const outcome = OUTCOMES[kind](exitCode);
  const head = kind === 'promote' ? `### voxform promote${environment ? ` → ${markdownCode(environment)}` : ''}: ${outcome.words}` : `### voxform drift${environmentLabel(environment)}: ${outcome.words}`;
  return { kind, environment, status: outcome.status, markdown: [head, '', ...quotedOutput(output, redact), ''].join('\n') };
}
