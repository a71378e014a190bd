import { describeAction, DRIFT_NOTE, takenOver, fieldViews, LineDiffBudget, movedKeyLines, MOVED_NOTE, MOVES_ONLY, planHasChanges, summaryLine, SWAPPED_NOTE } from './field-lines.js';
import { fitComment, sectionSize, wholeSection, type CommentParts, type CommentSection } from './fit-comment.js';
import type { EnvironmentVariables, Plan, ResourceChange } from './types.js';
import { byteLength, COMMENT_SIZE_LIMIT, fitBlocks, linesSize, type CommentList } from '../util/comment-blocks.js';
import type { Redact } from '../secrets/redact.js';
import { markdownCode, markdownHtmlText, markdownText } from '../util/markdown-escape.js';
import { lineAsShown } from '../util/printable.js';
import { formatCount, plural } from '../util/plural.js';
import { shellWord } from '../util/shell-word.js';
import { missingStateWarning, PLAN_WITHOUT_STATE } from '../state/missing-state.js';
import { workspaceKey } from '../state/types.js';
import { noLongerManagedLine, noLongerManagedTitle } from './no-longer-managed.js';
import { planPolicyMarkdown, policyHasFindings, promptTokensMarkdown, relaxationsMarkdown } from '../policy/render.js';

const ACTION_LABEL = { create: '➕ create', update: '🔄 update', 'no-op': 'unchanged' } as const;

/**
 * The secrets of the run (a `SecretRegistry`), hidden in each diff line before the comment measures
 * and cuts it: a cut inside a secret would leave a start of it the last scrub no longer finds, and
 * sizes measured with it would depend on its length. `size` tells when more became known.
 */
export interface CommentSecrets {
  redact(text: string): string;
  readonly size: number;
}

const NO_SECRETS: CommentSecrets = { redact: (text) => text, size: 0 };

/** The secrets' scrub as `fitBlocks` takes it. */
function redactOf(secrets: CommentSecrets): Redact {
  return (text) => secrets.redact(text);
}

interface MarkdownPlanOptions {
  /** The saved plan file, as the user named it: a cut comment ends saying how to see the whole plan from it. */
  savedPlan?: string | undefined;
  /**
   * Without `savedPlan`: the command line that saves this plan to `SUGGESTED_PLAN_FILE`, which a cut
   * comment ends telling to run; the caller's, since it carries the options that chose the run's
   * manifests, environment, service and state (default `voxform plan --out plan.json`).
   */
  savePlanCommand?: string | undefined;
  /** The largest comment, in UTF-8 bytes (default `COMMENT_SIZE_LIMIT`). */
  limit?: number | undefined;
  /** The run's secrets (default none: a saved plan's values were hidden when it was saved). */
  secrets?: CommentSecrets | undefined;
  /** The budget the sections measured ahead (`prepareMarkdownSection`) were made in (default a budget of this comment's own). */
  lineDiffs?: LineDiffBudget | undefined;
}

/** The lines of a resource's ```diff block, secrets hidden; each hunk header is followed by the field's path, as git does. */
function diffLines(change: ResourceChange, secrets: CommentSecrets, lineDiffs: LineDiffBudget): string[] {
  const lines: string[] = [];
  for (const view of fieldViews(change, lineDiffs)) {
    let drift = view.drift ? `   # drift: ${DRIFT_NOTE}` : '';
    if (view.summary !== undefined) {
      lines.push(secrets.redact(`${view.marker === '~' ? '!' : view.marker} ${lineAsShown(view.path)}: ${lineAsShown(view.summary)}${drift}`));
      continue;
    }
    for (const line of view.diff ?? []) {
      if (line.kind !== '@') {
        // Printed to a terminal as often as posted: no control character goes out raw.
        lines.push(secrets.redact(`${line.kind}${lineAsShown(line.text)}`));
        continue;
      }
      lines.push(`${line.text} ${lineAsShown(view.path)}${drift}`);
      drift = '';
    }
  }
  return lines;
}

/** The variables the manifests read, by name, new ones in bold. */
function environmentVariablesLines(variables: EnvironmentVariables | undefined): string[] {
  if (!variables || variables.names.length === 0) return [];
  const fresh = new Set(variables.new);
  const names = variables.names.map((name) => (fresh.has(name) ? `**${markdownCode(name)} (new)**` : markdownCode(name))).join(', ');
  const note = variables.recorded ? '' : ' No apply has recorded the variables it read, so each counts as new.';
  return [`**Environment variables read** (names only): ${names}.${note}`, ''];
}

/** The resources whose keys were renamed, then the keys swapped, a paragraph each; none when no key was. */
function movedParagraph(plan: Plan): string[] {
  const { renamed, swapped } = movedKeyLines(plan);
  const paragraph = (title: string, note: string, lines: string[]) => (lines.length === 0 ? [] : [`**${title}** (${note}): ${lines.map((line) => markdownCode(line)).join(', ')}.`, '']);
  return [...paragraph('Renamed', MOVED_NOTE, renamed), ...paragraph('Keys swapped', SWAPPED_NOTE, swapped)];
}

/**
 * What the state records that the manifests no longer name, as a heading and a list a comment cuts
 * to what fits (`fitBlocks`); none when there is none. Each entry that fits is shown: each is a
 * resource the pull request stops managing.
 */
function noLongerManagedList(plan: Plan): CommentList[] {
  const removed = plan.noLongerManaged ?? [];
  if (removed.length === 0) return [];
  const code = (text: string) => markdownCode(text);
  const { title, read } = noLongerManagedTitle(plan.files.map(code));
  return [
    {
      head: [`**${title}**${read}:`, ''],
      items: removed.map((resource) => `- ${noLongerManagedLine(resource, code)}`),
      foot: [''],
      most: Number.POSITIVE_INFINITY,
      more: (omitted) => `- …and ${formatCount(omitted)} more not managed any more (\`voxform plan --format json\` lists every one)`,
    },
  ];
}

/** A plan without changes within `limit` bytes: its one line, then the renamed resources and the resources no longer managed, if any. */
function noChangesText(plan: Plan, env: string, limit: number, secrets: CommentSecrets): string {
  const line = noChangesLine(plan, env, limit);
  const after = fitBlocks([movedParagraph(plan), ...noLongerManagedList(plan)], limit - byteLength(line), redactOf(secrets));
  return `${line}${after.length > 0 ? `\n${after.join('\n')}` : ''}`;
}

/**
 * The one line of a plan without changes for the service, naming the new variables read while that
 * fits in `limit`, else counting them. A plan of keys renamed or swapped alone has changes (its
 * apply moves state entries): the summary heading first, as for any plan with changes.
 */
function noChangesLine(plan: Plan, env: string, limit: number): string {
  const checked = plural(plan.summary.unchanged, 'resource');
  const line = planHasChanges(plan)
    ? `### voxform plan${env}: ${summaryLine(plan).replace(/^Plan: /, '')}\n\nNothing to send to the service: it matches the manifests (${checked} checked). ${MOVES_ONLY}`
    : `**voxform plan${env}:** no changes — the service matches the manifests (${checked} checked).`;
  const fresh = plan.environmentVariables?.recorded ? plan.environmentVariables.new : [];
  if (fresh.length === 0) return `${line}\n`;
  const named = `${line} New environment variables read: ${fresh.map((name) => `**${markdownCode(name)}**`).join(', ')}.\n`;
  return byteLength(named) <= limit ? named : `${line} ${plural(fresh.length, 'new environment variable')} read (\`voxform plan\` names them).\n`;
}

function commentParts(plan: Plan, changed: ResourceChange[], env: string, secrets: CommentSecrets, lineDiffs: LineDiffBudget): CommentParts {
  const rows = changed.map((change) => {
    const fields = change.fieldChanges.map((f) => markdownCode(f.path, { inTable: true })).join(', ');
    const drift = change.reason === 'drift' ? ' (drift)' : '';
    return `| ${markdownCode(change.address, { inTable: true })} | ${ACTION_LABEL[change.action]}${drift}${markdownText(takenOver(change))} | ${fields} |`;
  });
  const sections = changed.map((change) => commentSection(change, secrets, lineDiffs));
  const notes = [
    { about: 'the keys renamed or swapped', lines: movedParagraph(plan) },
    { about: 'the environment variables read', lines: environmentVariablesLines(plan.environmentVariables) },
  ];
  return {
    head: [`### voxform plan${env}: ${summaryLine(plan).replace(/^Plan: /, '')}`, ''],
    tableHeader: ['| Resource | Action | Fields |', '|---|---|---|'],
    rows,
    sections,
    tail: notes.filter((note) => note.lines.length > 0),
    // A policy with nothing else to report adds only its token counts, after the variables read.
    lists: [...noLongerManagedList(plan), ...(plan.policy && !policyHasFindings(plan.policy) ? promptTokensMarkdown(plan.policy) : [])],
    redact: redactOf(secrets),
  };
}

/** Section sizes measured ahead (`prepareMarkdownSection`), by change, with how many secrets were known then. */
const sectionSizes = new WeakMap<ResourceChange, { size: number; secrets: CommentSecrets; known: number }>();

/** Measures a changed resource's section now, while the other reads are still on the wire; `lineDiffs`: the comment's, given again to `renderPlanMarkdown`. */
export function prepareMarkdownSection(change: ResourceChange, secrets: CommentSecrets, lineDiffs: LineDiffBudget): void {
  if (change.action !== 'no-op' && !sectionSizes.has(change)) sectionSizes.set(change, { size: commentSection(change, secrets, lineDiffs).size, secrets, known: secrets.size });
}

function commentSection(change: ResourceChange, secrets: CommentSecrets, lineDiffs: LineDiffBudget): CommentSection {
  const summary = `<code>${markdownHtmlText(change.address)}</code> ${markdownHtmlText(describeAction(change))}`;
  // Measured again when a secret became known since: a later read may have found one this diff holds.
  const ahead = sectionSizes.get(change);
  const measured = ahead?.secrets === secrets && ahead.known === secrets.size ? ahead.size : undefined;
  return { summary, size: measured ?? sectionSize(summary, diffLines(change, secrets, lineDiffs)), diff: () => diffLines(change, secrets, lineDiffs) };
}

/** The file a cut comment of a plan not saved tells to save it to (`savePlanCommand`). */
export const SUGGESTED_PLAN_FILE = 'plan.json';

/** The last line of a cut comment: where the whole plan is, and the command that shows it. */
function cutFooter(options: Pick<MarkdownPlanOptions, 'savedPlan' | 'savePlanCommand'>): string {
  const { savedPlan } = options;
  const savePlan = options.savePlanCommand ?? `voxform plan --out ${shellWord(SUGGESTED_PLAN_FILE)}`;
  const how = savedPlan
    ? `download the saved plan ${markdownCode(savedPlan)} (this job's artifact) and run ${markdownCode(`voxform plan show ${shellWord(savedPlan)}`)}`
    : `save the plan with ${markdownCode(savePlan)} (keep it as a CI artifact) and run ${markdownCode(`voxform plan show ${shellWord(SUGGESTED_PLAN_FILE)}`)}`;
  return `_This comment is cut to fit the size limit of a pull-request comment. To see the whole plan, ${how}._`;
}

/** Lines as the top of a comment: without trailing blank lines, then one blank line. */
function asTop(lines: readonly string[]): string {
  return lines.length > 0 ? `${lines.join('\n').trimEnd()}\n\n` : '';
}

/**
 * A pull-request comment: "Policy relaxed" and the policy's findings first, then a summary heading, a
 * table of changed resources, a collapsible ```diff section per resource; no changes, one line. Over
 * the size limit both parts are cut (see `fitComment`), the policy to no less than half of it when
 * the changes need that much.
 */
export function renderPlanMarkdown(plan: Plan, options: MarkdownPlanOptions = {}): string {
  // A policy with nothing to report adds only its token counts, beside the variables read.
  const policyBlocks = plan.policy ? [...relaxationsMarkdown(plan.policy.relaxations), ...(policyHasFindings(plan.policy) ? planPolicyMarkdown(plan.policy) : [])] : [];
  const blocks = [...missingStateBlocks(plan), ...policyBlocks];
  const limit = options.limit ?? COMMENT_SIZE_LIMIT;
  const secrets = options.secrets ?? NO_SECRETS;
  const changes = changesPart(plan, cutFooter(options), secrets, options.lineDiffs ?? new LineDiffBudget());
  const policy = asTop(fitBlocks(blocks, Number.POSITIVE_INFINITY, redactOf(secrets)));
  if (byteLength(policy) + changes.size <= limit) return `${policy}${changes.within(limit)}`;
  // asTop adds at most one byte to what the lines cost.
  const top = asTop(fitBlocks(blocks, limit - Math.min(changes.size, Math.floor(limit / 2)) - 1, redactOf(secrets)));
  return `${top}${changes.within(limit - byteLength(top))}`;
}

/** The warning that the state lost the workspace, first: every change of the plan is counted without it. */
function missingStateBlocks(plan: Plan): string[][] {
  if (!plan.missingState) return [];
  const code = (text: string) => markdownCode(text);
  return [['> [!WARNING]', `> ${missingStateWarning(plan.missingState, workspaceKey(plan.environment, plan.baseUrl), PLAN_WITHOUT_STATE, code)}`, '']];
}

/** The changes' part of the comment: its size uncut, and its text within a limit (cut when over it). */
interface ChangesPart {
  size: number;
  within(limit: number): string;
}

/** `footer`: the last line of the part when it is cut (`cutFooter`). */
function changesPart(plan: Plan, footer: string, secrets: CommentSecrets, lineDiffs: LineDiffBudget): ChangesPart {
  const changed = plan.changes.filter((c) => c.action !== 'no-op');
  const env = plan.environment ? ` (${markdownCode(plan.environment)})` : '';
  if (changed.length === 0) return { size: byteLength(noChangesText(plan, env, Number.POSITIVE_INFINITY, secrets)), within: (limit) => noChangesText(plan, env, limit, secrets) };
  const parts = commentParts(plan, changed, env, secrets, lineDiffs);
  const size = wholeSize(parts);
  return { size, within: (limit) => (size <= limit ? asText(wholeLines(parts)) : `${fitComment(parts, footer, limit).join('\n')}\n`) };
}

/** Lines as the comment ends with them: trailing blank lines and spaces left out, one line break. */
function asText(lines: readonly string[]): string {
  return `${lines.join('\n').trimEnd()}\n`;
}

function wholeLines(parts: CommentParts): string[] {
  return [...parts.head, ...parts.tableHeader, ...parts.rows, '', ...parts.sections.flatMap((section) => wholeSection(section)), ...parts.tail.flatMap((note) => note.lines), ...fitBlocks(parts.lists, Number.POSITIVE_INFINITY, parts.redact)];
}

/**
 * The bytes of `asText(wholeLines(parts))`, with only the last section's diff made: what comes
 * after the sections ends the text, and a section is never blank, so only those lines are trimmed.
 */
function wholeSize(parts: CommentParts): number {
  const sections = parts.sections;
  const first = [...parts.head, ...parts.tableHeader, ...parts.rows, ''];
  const middle = sections.slice(0, -1).reduce((total, section) => total + section.size, 0);
  const end = [...wholeSection(sections[sections.length - 1]!), ...parts.tail.flatMap((note) => note.lines), ...fitBlocks(parts.lists, Number.POSITIVE_INFINITY, parts.redact)];
  return linesSize(first) + middle + byteLength(asText(end));
}
