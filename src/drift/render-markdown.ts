/** The drift report as Markdown (an issue, a chat message): every text the repository or the service wrote escaped. */
import { fieldViews } from '../plan/field-lines.js';
import { markdownCode, markdownFence, markdownHtmlText } from '../util/markdown-escape.js';
import { lineAsShown } from '../util/printable.js';
import { checked, classLabel, countsLine, environmentNote, resourceLabel, unlabelledNote, type TakeOverCommands } from './labels.js';
import type { DriftedResource, DriftReport } from './types.js';

function diffLines(resource: DriftedResource): string[] {
  const lines: string[] = [];
  const views = fieldViews(resource.change);
  // Each field's class is said when the resource's fields differ in class.
  const mixed = resource.fields.some((f) => f.class !== resource.class);
  resource.fields.forEach((drifted, index) => {
    const view = views[index];
    if (!view) return;
    const label = mixed ? `   # ${classLabel(drifted)}` : '';
    if (view.summary !== undefined) {
      lines.push(`! ${lineAsShown(view.path)}: ${lineAsShown(view.summary)}${label}`);
      return;
    }
    lines.push(`! ${lineAsShown(view.path)}${label}`);
    for (const line of view.diff ?? []) lines.push(line.kind === '@' ? line.text : `${line.kind}${lineAsShown(line.text)}`);
  });
  return lines;
}

/** The notes on differences not labelled and on those another environment's apply made, addresses in code spans. */
function noteLines(report: DriftReport, takeOver: TakeOverCommands | undefined): string[] {
  const code = (address: string) => markdownCode(address);
  return [unlabelledNote(report, code), environmentNote(report, takeOver, code)].flatMap((note) => (note ? [note, ''] : []));
}

/** `takeOver`: as for `renderDriftText`. */
export function renderDriftMarkdown(report: DriftReport, options: { takeOver?: TakeOverCommands | undefined } = {}): string {
  const where = `${markdownCode(report.baseUrl)}${report.environment ? `, environment ${markdownCode(report.environment)}` : ''}`;
  if (report.resources.length === 0) {
    return `**voxform drift:** no drift — the service (${where}) matches the manifests and the last apply (${checked(report)}).\n`;
  }
  const out = [
    `### voxform drift on ${where}`,
    '',
    `${countsLine(report)}.`,
    '',
    ...noteLines(report, options.takeOver),
    '| resource | difference | fields | `--heal` |',
    '|---|---|---|---|',
    ...report.resources.map((r) => {
      const fields = r.fields.map((f) => markdownCode(f.field.path, { inTable: true })).join(', ');
      return `| ${markdownCode(r.address, { inTable: true })} | ${resourceLabel(r, (name) => markdownCode(name, { inTable: true }))} | ${fields} | ${r.healable ? 'puts it back' : '—'} |`;
    }),
    '',
  ];
  for (const resource of report.resources) {
    out.push(`<details><summary><code>${markdownHtmlText(resource.address)}</code> ${resourceLabel(resource, (name) => `<code>${markdownHtmlText(name)}</code>`)}</summary>`, '', 'Values: `-` the service\'s, `+` the manifests\'.', '');
    out.push(...markdownFence(diffLines(resource), 'diff'), '', '</details>', '');
  }
  return out.join('\n');
}
