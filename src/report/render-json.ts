/** The report as JSON: `format_version` first; schemas/report.schema.json describes it. */
import type { CallReport } from './types.js';

export function renderReportJson(report: CallReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
