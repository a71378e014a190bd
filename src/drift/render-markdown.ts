/**
 * The drift report as Markdown (an issue, a chat message): every text the repository or the service
 * wrote escaped. Within a comment's size limit by the rule every comment shares (`fitBlocks`): the
 * heading and counts stay; the table and the diffs keep what fits, each counting the rest.
 */
import { bothSides, fieldViewOf, LineDiffBudget } from '../plan/field-lines.js';
import { markdownCode, markdownFence, markdownHtmlText } from '../util/markdown-escape.js';
import { lineAsShown } from '../util/printable.js';
import { COMMENT_SIZE_LIMIT, fitBlocks, moreTableRow, type CommentBlock } from '../util/comment-blocks.js';
import { keepText, type Redact } from '../secrets/redact.js';
import { plural } from '../util/plural.js';
import { classLabel, countsLine, diffSides, environmentNote, goneAgentsNote, healCounts, healedNote, healNote, matchesLine, notComparedNote, resourceLabel, serviceSideAbsent, stateNote, unlabelledNote, valueNotShownNote, type TakeOverCommands } from './labels.js';
import type { DriftedResource, DriftReport } from './types.js';

function diffLines(resource: DriftedResource, lineDiffs: LineDiffBudget): string[] {
  const lines: string[] = [];
  // Each field's class is said when the resource's fields differ in class.
  const mixed = resource.fields.some((f) => f.class !== resource.class);
  // The report's fields, not the plan's: a place not compared is one of the plan's, never a difference.
  for (const drifted of resource.fields) {
    const head = `! ${lineAsShown(drifted.field.path)}`;
    const label = mixed ? `   # ${classLabel(drifted)}` : '';
    const notShown = valueNotShownNote(drifted);
    if (notShown !== undefined) {
      lines.push(`${head}: ${notShown}${label}`);
      continue;
    }
    const view = fieldViewOf(drifted.field, resource.change, lineDiffs);
    const absent = serviceSideAbsent(resource, drifted);
    const summary = bothSides(view, absent);
    if (summary !== undefined) lines.push(`${head}: ${lineAsShown(summary)}${label}`);
    else {
      lines.push(`${head}${diffSides(view, absent)}${label}`);
      // One push per line: a diff may have a million lines, past what one call takes as arguments.
      for (const line of view.diff ?? []) lines.push(line.kind === '@' ? line.text : `${line.kind}${lineAsShown(line.text)}`);
    }
  }
  return lines;
}

/** The notes on a state that lost the workspace, on agents the service lost, on differences not labelled and on those another environment's apply made, addresses in code spans. */
function noteBlocks(report: DriftReport, takeOver: TakeOverCommands | undefined, applyCommand: string | undefined): string[][] {
  const code = (address: string) => markdownCode(address);
  return [stateNote(report, code, applyCommand), goneAgentsNote(report, code, applyCommand), unlabelledNote(report, code), environmentNote(report, takeOver, code), notComparedNote(report, code)].flatMap((note) => (note ? [[note, '']] : []));
}

/** The resources that differ: one table row each. */
function tableRows(report: DriftReport): string[] {
  return report.resources.map((r) => {
    const fields = r.fields.map((f) => markdownCode(f.field.path, { inTable: true })).join(', ');
    const heal = report.heal ? healedNote(r, report.heal) : healNote(r, (path) => markdownCode(path, { inTable: true }));
    return `| ${markdownCode(r.address, { inTable: true })} | ${resourceLabel(r, (name) => markdownCode(name, { inTable: true }))} | ${fields} | ${heal ?? '—'} |`;
  });
}

/** Each resource's collapsed diff, with the blank line after it. */
function diffSection(resource: DriftedResource, lineDiffs: LineDiffBudget): string {
  const summary = `<details><summary><code>${markdownHtmlText(resource.address)}</code> ${resourceLabel(resource, (name) => `<code>${markdownHtmlText(name)}</code>`)}</summary>`;
  return [summary, '', 'Values: `-` the service\'s, `+` the manifests\'.', '', ...markdownFence(diffLines(resource, lineDiffs), 'diff'), '', '</details>', ''].join('\n');
}

/**
 * `takeOver`, `applyCommand`: as for `renderDriftText`; `limit`: the most UTF-8 bytes it takes (a comment's);
 * `redact`: the run's secrets, hidden before the comment is measured and cut (`fitBlocks`).
 */
export function renderDriftMarkdown(report: DriftReport, options: { takeOver?: TakeOverCommands | undefined; applyCommand?: string | undefined; limit?: number; redact?: Redact } = {}): string {
  const where = `${markdownCode(report.baseUrl)}${report.environment ? `, environment ${markdownCode(report.environment)}` : ''}`;
  if (report.resources.length === 0) {
    const notCompared = notComparedNote(report, (place) => markdownCode(place));
    return `**voxform drift:** no drift — ${matchesLine(report, where, (text) => markdownCode(text), options.applyCommand)}\n${notCompared ? `\n${notCompared}\n` : ''}`;
  }
  const lineDiffs = new LineDiffBudget();
  const blocks: CommentBlock[] = [
    [`### voxform drift on ${where}`, '', `${countsLine(report)}.${report.heal ? ` ${healCounts(report.heal)}.` : ''}`, ''],
    ...noteBlocks(report, options.takeOver, options.applyCommand),
    {
      head: ['| resource | difference | fields | `--heal` |', '|---|---|---|---|'],
      items: tableRows(report),
      foot: [''],
      most: Number.POSITIVE_INFINITY,
      more: (omitted) => moreTableRow(omitted, 'resource', 4),
      share: 0.5,
    },
    {
      head: [],
      // An agent gone from the service has no field left to show: the table and the note say it all.
      items: report.resources.filter((r) => r.fields.length > 0).map((resource) => diffSection(resource, lineDiffs)),
      foot: [],
      most: Number.POSITIVE_INFINITY,
      more: (omitted) => `_…and ${plural(omitted, 'more resource')}: their differences are not shown here (\`--format json\` has them all)._\n`,
    },
  ];
  return fitBlocks(blocks, options.limit ?? COMMENT_SIZE_LIMIT, options.redact ?? keepText).join('\n');
}
