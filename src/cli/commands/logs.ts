import type { CallLogFilters } from '../../api/index.js';
import { VoxformError } from '../../errors.js';
import type { GlobalCallHistoryRecord } from '../../schema/types.gen.js';
import { resolveConnection } from '../connection.js';
import type { CommandContext, ConnectionOptions } from '../context.js';
import { progressLine } from '../progress.js';

export interface LogsOptions extends ConnectionOptions {
  agent?: string;
  status?: string;
  since?: string;
  until?: string;
  phone?: string;
  campaign?: string;
  limit?: number;
  format?: 'table' | 'json' | 'ndjson';
  stats?: boolean;
}

/**
 * `voxform logs`: the account's call log, newest first, across as many pages as it takes.
 * Records go to stdout (an aligned table, a JSON array, or one JSON object per line as they
 * arrive); progress goes to stderr, and only on a terminal. `--stats` prints a summary instead.
 */
export async function run(rawOptions: Record<string, unknown>, ctx: CommandContext): Promise<number> {
  const options = rawOptions as LogsOptions;
  const format = options.format ?? 'table';
  const filters = buildFilters(options, Date.now());
  const { client } = await resolveConnection(options, ctx);

  // Progress on stderr, on a terminal only (progressLine prints nothing elsewhere).
  const status = progressLine(ctx.stderr);
  const records = client.iterateCallLogs(filters, {
    ...(options.limit === undefined ? {} : { max: options.limit }),
    onPage: ({ records: count }: { records: number }) => status.update(`Reading call logs… ${count} record${count === 1 ? '' : 's'}`),
  });
  const clearProgress = () => status.done();

  if (options.stats) {
    const all: GlobalCallHistoryRecord[] = [];
    for await (const record of records) all.push(record);
    clearProgress();
    const stats = summarizeCalls(all);
    ctx.stdout.write(format === 'table' ? renderStats(stats) : `${JSON.stringify(stats, null, format === 'json' ? 2 : undefined)}\n`);
    return 0;
  }

  if (format === 'ndjson') {
    for await (const record of records) ctx.stdout.write(`${JSON.stringify(record)}\n`);
    clearProgress();
    return 0;
  }

  const all: GlobalCallHistoryRecord[] = [];
  for await (const record of records) all.push(record);
  clearProgress();
  if (format === 'json') {
    ctx.stdout.write(`${JSON.stringify(all, null, 2)}\n`);
    return 0;
  }
  if (all.length === 0) {
    ctx.stderr.write('No call records match.\n');
    return 0;
  }
  ctx.stdout.write(renderTable(all, ctx.stdout.isTTY ? ctx.stdout.columns : undefined));
  return 0;
}

/** The service's filters from the command-line options; times become Unix seconds. */
export function buildFilters(options: LogsOptions, now: number): CallLogFilters {
  const filters: CallLogFilters = {};
  if (options.agent !== undefined) filters.agent_id = options.agent;
  if (options.status !== undefined) filters.call_status = options.status;
  if (options.phone !== undefined) filters.phone_number = options.phone;
  if (options.campaign !== undefined) filters.campaign_id = options.campaign;
  if (options.since !== undefined) filters.start_time = parseTimeArgument('--since', options.since, now);
  if (options.until !== undefined) filters.end_time = parseTimeArgument('--until', options.until, now);
  if (filters.start_time !== undefined && filters.end_time !== undefined && filters.start_time > filters.end_time) {
    throw new VoxformError('invalid_argument', `--since (${options.since}) is later than --until (${options.until}).`, {
      hint: 'Swap them: --since is the start of the window, --until its end.',
    });
  }
  return filters;
}

const UNIT_SECONDS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800 };

/**
 * A point in time as Unix seconds, from ISO 8601 (`2025-01-31`, `2025-01-31T09:00:00Z`), Unix
 * seconds (`1738314000`; 13 digits are read as milliseconds), or a duration back from `now`
 * (`90s`, `30m`, `24h`, `7d`, `2w`).
 */
export function parseTimeArgument(flag: string, raw: string, now: number): number {
  const text = raw.trim();
  const relative = /^(\d+(?:\.\d+)?)\s*([smhdw])$/i.exec(text);
  if (relative) return (now - Number(relative[1]) * (UNIT_SECONDS[(relative[2] as string).toLowerCase()] as number) * 1000) / 1000;
  if (/^\d+(\.\d+)?$/.test(text)) {
    const value = Number(text);
    return /^\d{13}$/.test(text) ? value / 1000 : value;
  }
  if (/^\d{4}-\d{2}-\d{2}/.test(text)) {
    const ms = Date.parse(text);
    if (!Number.isNaN(ms)) return ms / 1000;
  }
  throw new VoxformError(
    'invalid_argument',
    `${flag} "${raw}" is not a time: use ISO 8601 (2025-01-31 or 2025-01-31T09:00:00Z), Unix seconds (1738314000), or a duration back from now (30m, 24h, 7d).`,
  );
}

/** What `--stats` prints: counts by status, duration percentiles, credits by cost type. */
export interface CallStats {
  calls: number;
  by_status: Record<string, number>;
  /** Nearest-rank percentiles over the calls with a duration above 0, in seconds. */
  duration_seconds: { calls: number; p50: number | null; p95: number | null };
  credits: { by_type: Record<string, number>; total: number };
}

export function summarizeCalls(records: readonly GlobalCallHistoryRecord[]): CallStats {
  const byStatus: Record<string, number> = {};
  const durations: number[] = [];
  const byType: Record<string, number> = {};
  let total = 0;
  for (const record of records) {
    const status = record.call_status ?? '(none)';
    byStatus[status] = (byStatus[status] ?? 0) + 1;
    // A call that never connected (registered, queued) has no duration worth averaging.
    if (typeof record.duration === 'number' && Number.isFinite(record.duration) && record.duration > 0) durations.push(record.duration);
    for (const item of record.cost_breakdown ?? []) {
      if (typeof item.credit !== 'number' || !Number.isFinite(item.credit)) continue;
      const type = item.type ?? '(other)';
      byType[type] = roundCredits((byType[type] ?? 0) + item.credit);
      total = roundCredits(total + item.credit);
    }
  }
  durations.sort((a, b) => a - b);
  return {
    calls: records.length,
    by_status: sortByCount(byStatus),
    duration_seconds: { calls: durations.length, p50: percentile(durations, 50), p95: percentile(durations, 95) },
    credits: { by_type: sortByCount(byType), total },
  };
}

/** Nearest-rank percentile of an ascending list; null when it is empty. */
export function percentile(sorted: readonly number[], p: number): number | null {
  if (sorted.length === 0) return null;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

function roundCredits(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

function sortByCount(counts: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(counts).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
}

export function renderStats(stats: CallStats): string {
  const lines: string[] = [`Calls: ${stats.calls}`, ''];
  lines.push('By status:');
  lines.push(...alignPairs(Object.entries(stats.by_status).map(([status, count]) => [status, String(count)])));
  lines.push('');
  const d = stats.duration_seconds;
  lines.push(
    d.calls === 0
      ? 'Duration: no call has a duration'
      : `Duration (over the ${d.calls} call${d.calls === 1 ? '' : 's'} with one): p50 ${formatDuration(d.p50 ?? 0)}, p95 ${formatDuration(d.p95 ?? 0)}`,
  );
  lines.push('');
  lines.push('Credits by cost type:');
  const credits = Object.entries(stats.credits.by_type).map(([type, credit]): [string, string] => [type, formatCredits(credit)]);
  lines.push(...alignPairs([...credits, ['total', formatCredits(stats.credits.total)]]));
  return `${lines.join('\n')}\n`;
}

function alignPairs(pairs: Array<[string, string]>): string[] {
  const left = Math.max(0, ...pairs.map(([key]) => key.length));
  const right = Math.max(0, ...pairs.map(([, value]) => value.length));
  return pairs.map(([key, value]) => `  ${key.padEnd(left)}  ${value.padStart(right)}`);
}

interface Column {
  title: string;
  /** Cells that may be cut with `…` when the terminal is too narrow, widest first. */
  shrinkable: boolean;
  align: 'left' | 'right';
  cell(record: GlobalCallHistoryRecord): string;
}

const COLUMNS: Column[] = [
  { title: 'TIME (UTC)', shrinkable: false, align: 'left', cell: (r) => (typeof r.ts === 'number' ? formatTime(r.ts) : '') },
  { title: 'STATUS', shrinkable: false, align: 'left', cell: (r) => r.call_status ?? '' },
  { title: 'DURATION', shrinkable: false, align: 'right', cell: (r) => (typeof r.duration === 'number' ? formatDuration(r.duration) : '') },
  { title: 'AGENT', shrinkable: true, align: 'left', cell: (r) => r.agent_id ?? '' },
  { title: 'FROM', shrinkable: true, align: 'left', cell: (r) => voipField(r, 'from') },
  { title: 'TO', shrinkable: true, align: 'left', cell: (r) => voipField(r, 'to') },
  { title: 'CREDITS', shrinkable: false, align: 'right', cell: (r) => formatCredits((r.cost_breakdown ?? []).reduce((sum, item) => sum + (typeof item.credit === 'number' ? item.credit : 0), 0)) },
  { title: 'CALL ID', shrinkable: true, align: 'left', cell: (r) => r.call_id ?? '' },
];

const GAP = 2;
const MIN_SHRUNK = 6;

/**
 * The records as an aligned table. With `columns` (a terminal's width), the widest shrinkable
 * columns (call id, agent, numbers) are cut with `…` until each line fits; without it (a pipe or a
 * file) nothing is cut.
 */
export function renderTable(records: readonly GlobalCallHistoryRecord[], columns: number | undefined): string {
  const rows = records.map((record) => COLUMNS.map((column) => column.cell(record)));
  const widths = COLUMNS.map((column, i) => Math.max(column.title.length, ...rows.map((row) => (row[i] as string).length)));
  if (columns !== undefined) {
    let total = widths.reduce((sum, w) => sum + w, 0) + GAP * (widths.length - 1);
    while (total > columns) {
      let widest = -1;
      COLUMNS.forEach((column, i) => {
        const floor = Math.max(MIN_SHRUNK, column.title.length); // a header is never cut
        if (column.shrinkable && (widths[i] as number) > floor && (widest === -1 || (widths[i] as number) > (widths[widest] as number))) widest = i;
      });
      if (widest === -1) break; // as narrow as it gets; the terminal wraps the rest
      widths[widest] = (widths[widest] as number) - 1;
      total--;
    }
  }
  const line = (cells: string[]) =>
    cells
      .map((cell, i) => {
        const width = widths[i] as number;
        const fitted = cell.length > width ? `${cell.slice(0, width - 1)}…` : cell;
        return COLUMNS[i]?.align === 'right' ? fitted.padStart(width) : fitted.padEnd(width);
      })
      .join(' '.repeat(GAP))
      .trimEnd();
  return `${[line(COLUMNS.map((column) => column.title)), ...rows.map(line)].join('\n')}\n`;
}

function voipField(record: GlobalCallHistoryRecord, key: 'from' | 'to'): string {
  const value = record.voip?.[key];
  return typeof value === 'string' ? value : '';
}

/** `2025-01-31 09:00:05`, always UTC so the output does not depend on the machine. */
function formatTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().slice(0, 19).replace('T', ' ');
}

/** `42s`, `3m05s`, `1h02m03s`. */
export function formatDuration(seconds: number): string {
  const whole = Math.round(seconds);
  const h = Math.floor(whole / 3600);
  const m = Math.floor((whole % 3600) / 60);
  const s = whole % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m${String(s).padStart(2, '0')}s`;
  if (m > 0) return `${m}m${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/** Three decimals always, so a column of credits lines up on the point. */
function formatCredits(value: number): string {
  return value.toFixed(3);
}
