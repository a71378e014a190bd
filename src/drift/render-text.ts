/** The drift report for people: one block per resource that differs, each field with its class and diff. */
import { terminalColors, type Colors } from '../util/terminal-colors.js';
import { bothSides, fieldViewOf, LineDiffBudget, type FieldView } from '../plan/field-lines.js';
import { lineAsShown } from '../util/printable.js';
import { classLabel, countsLine, diffSides, environmentNote, goneAgentsNote, healNote, matchesLine, notComparedNote, resourceLabel, serviceSideAbsent, stateNote, unlabelledNote, valueNotShownNote, type TakeOverCommands } from './labels.js';
import type { DriftedResource, DriftReport } from './types.js';
import { plural, pluralNoun } from '../util/plural.js';

function where(report: DriftReport): string {
  return `${report.baseUrl}${report.environment ? `, environment ${report.environment}` : ''}`;
}

/** `head`: the field's path, and its class when the resource's fields differ in class; `absent`: how the service's side reads where it holds no value (`serviceSideAbsent`). */
function fieldLines(c: Colors, view: FieldView, head: string, absent: string): string[] {
  const summary = bothSides(view, absent);
  if (summary !== undefined) return [`${head}: ${summary}`];
  return [
    `${head}${diffSides(view, absent)}:`,
    ...(view.diff ?? []).map((line) => {
      if (line.kind === '@') return `          ${c.cyan(line.text)}`;
      const text = `${line.kind}${lineAsShown(line.text)}`;
      return `          ${line.kind === '+' ? c.green(text) : line.kind === '-' ? c.red(text) : c.dim(text)}`;
    }),
  ];
}

function resourceLines(c: Colors, resource: DriftedResource, lineDiffs: LineDiffBudget): string[] {
  const id = resource.change.id && !resource.address.endsWith(resource.change.id) ? c.dim(` (${resource.change.id})`) : '';
  const note = healNote(resource, lineAsShown);
  const heal = note ? c.dim(`  --heal ${note}`) : '';
  const lines = [`  ! ${c.bold(resource.address)}${id} ${resourceLabel(resource)}${heal}`];
  const mixed = resource.fields.some((f) => f.class !== resource.class);
  // The report's fields, not the plan's: a place not compared is one of the plan's, never a difference.
  for (const drifted of resource.fields) {
    const head = `      ~ ${lineAsShown(drifted.field.path)}${mixed ? ` ${c.magenta(`[${classLabel(drifted)}]`)}` : ''}`;
    const notShown = valueNotShownNote(drifted);
    if (notShown !== undefined) lines.push(`${head}: ${notShown}`);
    // One push per line: a field's diff may have a million lines, past what one call takes as arguments.
    else for (const line of fieldLines(c, fieldViewOf(drifted.field, resource.change, lineDiffs), head, serviceSideAbsent(resource, drifted))) lines.push(line);
  }
  return lines;
}

/**
 * `takeOver`: the commands that move a resource another environment's apply set to this one (see
 * `environmentNote`); `applyCommand`: the `voxform apply` line with this run's options (see `goneAgentsNote`).
 */
export function renderDriftText(report: DriftReport, options: { color: boolean; takeOver?: TakeOverCommands | undefined; applyCommand?: string | undefined }): string {
  const c = terminalColors(options.color);
  const notCompared = notComparedNote(report, lineAsShown);
  if (report.resources.length === 0) {
    return `No drift: ${matchesLine(report, where(report), lineAsShown, options.applyCommand)}\n${notCompared ? `${notCompared}\n` : ''}`;
  }
  const out = [`Drift on ${where(report)} (values: - the service's, + the manifests'):`, ''];
  // Before the resources: it says what every one of them is worth. Its record's id and time are a ledger file's: shown, never run on the terminal.
  const missing = stateNote(report, lineAsShown, options.applyCommand);
  if (missing) out.push(c.yellow(missing), '');
  const lineDiffs = new LineDiffBudget();
  for (const resource of report.resources) {
    for (const line of resourceLines(c, resource, lineDiffs)) out.push(line);
    out.push('');
  }
  for (const note of [goneAgentsNote(report, lineAsShown, options.applyCommand), unlabelledNote(report), environmentNote(report, options.takeOver), notCompared]) if (note) out.push(note, '');
  const n = report.resources.length;
  out.push(c.bold(`Drift: ${plural(n, 'resource')} ${pluralNoun(n, 'differs', 'differ')}: ${countsLine(report)}.`), '');
  return out.join('\n');
}
