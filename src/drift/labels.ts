/** How each class of difference reads, in every format. */
import type { DriftClass, DriftReport } from './types.js';
import { plural } from '../util/plural.js';

export const CLASS_LABEL: Record<DriftClass, string> = {
  outside: 'changed outside voxform',
  pending: 'in git, not applied yet',
  both: 'changed outside voxform and in git',
};

/** `1 changed outside voxform, 0 in git not applied yet, 0 both (5 resources checked)`. */
export function countsLine(report: DriftReport): string {
  const s = report.summary;
  return `${s.outside} changed outside voxform, ${s.pending} in git not applied yet, ${s.both} both (${checked(report)})`;
}

/** `7 resources checked`. */
export function checked(report: DriftReport): string {
  return `${plural(report.summary.checked, 'resource')} checked`;
}

/** The resources that differ, one short line: `drift: 1 changed outside voxform, … — agent.front-desk`. */
export function oneLine(report: DriftReport): string {
  if (report.resources.length === 0) return `no drift (${checked(report)})`;
  const shown = report.resources.slice(0, 5).map((r) => r.address);
  const more = report.resources.length > shown.length ? `, and ${report.resources.length - shown.length} more` : '';
  return `drift: ${countsLine(report)}: ${shown.join(', ')}${more}`;
}
