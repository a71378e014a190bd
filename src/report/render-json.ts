/** The report as JSON: `format_version` first; schemas/report.schema.json describes it. */
import type { CallReport } from './types.js';
import { toJsonText } from '../util/printable.js';

export function renderReportJson(report: CallReport): string {
  return `${toJsonText(report, 2)}\n`;
}
