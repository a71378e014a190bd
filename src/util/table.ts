/** Text tables for the terminal: columns sized by the cells a terminal gives each character. */
import { displayWidth, padToWidth } from './display-width.js';
import { controlsAsQuestionMarks } from './printable.js';
import { shorten } from './shorten.js';
import { greatest } from './extremes.js';

/** `shrinkable`: cells that may be cut with `…` to fit `maxWidth`, the widest column first, never below 6 cells nor its title. */
export type TableColumn = { title: string; align?: 'left' | 'right'; shrinkable?: boolean };

/**
 * The rows under their titles, `gap` spaces between columns, each line trimmed at its end. Cells are data: each
 * control character becomes one `?`, so no escape is sent and a cell keeps its width. With `maxWidth` (a terminal's)
 * shrinkable columns are cut until the table fits or none can shrink (the terminal wraps the rest).
 */
export function renderTable(columns: readonly TableColumn[], rows: readonly string[][], options: { gap: number; maxWidth?: number | undefined }): string {
  const cells = rows.map((row) => row.map(controlsAsQuestionMarks));
  const widths = columns.map((column, i) => greatest(cells.map((row) => displayWidth(row[i] ?? '')), column.title.length));
  const canShrink = (i: number) => columns[i]?.shrinkable === true && (widths[i] as number) > Math.max(6, columns[i]?.title.length ?? 0);
  for (let total = widths.reduce((sum, width) => sum + width, options.gap * (widths.length - 1)); options.maxWidth !== undefined && total > options.maxWidth; total--) {
    const widest = widths.reduce((best, width, i) => (canShrink(i) && (best === -1 || width > (widths[best] as number)) ? i : best), -1);
    if (widest === -1) break;
    widths[widest] = (widths[widest] as number) - 1;
  }
  const line = (row: readonly string[]) =>
    row
      .map((cell, i) => padToWidth(shorten(cell, widths[i] as number, 'cells'), widths[i] as number, columns[i]?.align))
      .join(' '.repeat(options.gap))
      .trimEnd();
  return `${[line(columns.map((column) => column.title)), ...cells.map(line)].join('\n')}\n`;
}
