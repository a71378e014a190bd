import type { ApiClient, CallLogFilters } from '../../api/index.js';
import { agentIfExists } from '../../api/agent-if-exists.js';
import type { TrustedSecrets } from '../../secrets/trusted.js';
import { operatorTrustedSecrets, type ProjectOptions } from '../project.js';
import { VoxformError } from '../../errors.js';
import { isPlainObject } from '../../util/json-object.js';
import type { GlobalCallHistoryRecord } from '../../schema/types.gen.js';
import { isSecretKeyName } from '../../secrets/schema-paths.js';
import { didYouMean } from '../../util/did-you-mean.js';
import { controlsAsQuestionMarks, toJsonText } from '../../util/printable.js';
import { REDACTED } from '../../secrets/redact.js';
import { redactValue } from '../../plan/redact.js';
import { manifestAgentNames, resolveAgentArgument } from '../agent-argument.js';
import { resolveConnection } from '../connection.js';
import type { CommandContext } from '../context.js';
import { manifestProject } from '../load-manifests.js';
import { progressLine } from '../progress.js';
import { parseTimeWindow } from '../time-argument.js';
import { plural } from '../../util/plural.js';
import { displayWidth, padToWidth } from '../../util/display-width.js';
import { renderTable as renderTextTable, type TableColumn } from '../../util/table.js';
import { byCodeUnits } from '../../util/compare.js';
import { greatest } from '../../util/extremes.js';

interface LogsOptions extends ProjectOptions {
  agent?: string;
  status?: string;
  since?: string;
  until?: string;
  phone?: string;
  campaign?: string;
  limit?: number;
  all?: boolean;
  format?: 'text' | 'json' | 'ndjson';
  stats?: boolean;
}

/** Records read when neither `--limit` nor `--all` is given: an account's whole history can be huge. */
const DEFAULT_LOG_LIMIT = 50;

/** The call statuses of the service's logs (any case, docs/service-api.md): progress states, then how a call ended. */
export const CALL_STATUSES = [
  'registered',
  'queued',
  'initiated',
  'ringing',
  'in-progress',
  'user-ended',
  'api-ended',
  'agent-ended',
  'voicemail-message',
  'voicemail-hangup',
  'timeout',
  'error',
  'chat_completion',
] as const;

/** `voxform logs`: the call log, newest first, redacted, up to `--limit` records; progress on stderr. */
export async function run(options: LogsOptions, ctx: CommandContext): Promise<number> {
  const format = options.format ?? 'text';
  const limit = recordLimit(options);
  const filters = buildFilters(options, Date.now());
  if (filters.call_status !== undefined && !isKnownStatus(filters.call_status)) {
    // Not repeated: a flag's value is never quoted back (a secret pasted into the wrong flag).
    ctx.stderr.write(`note: the value given to --status is not a call status voxform knows (${CALL_STATUSES.join(', ')}); it is sent to the service as given.\n`);
  }
  // Read also without --agent: the manifests' secrets, registered, stay out of the records' agent_config.
  const project = await manifestProject(options, ctx);
  const { client, serviceId, liveSource } = await resolveConnection({ ...options, manifest: project.service }, ctx);
  const trusted = await operatorTrustedSecrets(options, ctx, { environment: options.env, serviceId, liveSource }, { note: 'later' });
  // Before anything is printed: an unknown agent is a mistake, not an empty result.
  if (options.agent !== undefined) filters.agent_id = await resolveAgentArgument(options.agent, manifestAgentNames(project), client);

  const status = progressLine(ctx);
  let more = false;
  const read = client.iterateCallLogs(filters, {
    // One record past the limit tells whether there were more.
    ...(limit === undefined ? {} : { max: limit + 1 }),
    onPage: ({ records: count }: { records: number }) => status.update(`Reading call logs… ${plural(count, 'record')}`),
  });
  const records = upTo(toldToTrusted(read, trusted, client), limit, () => (more = true));
  const shown = await printRecords(records, format, options.stats === true, ctx);
  status.done();
  if (more && options.limit === undefined) {
    ctx.stderr.write(`Showing the latest ${limit} calls; --limit N reads more, --all reads every one.\n`);
  }
  if (shown === 0 && format === 'text' && !options.stats) ctx.stderr.write('No call records match.\n');
  return 0;
}

/** Prints the records (or their summary) in `format`; resolves to how many there were. */
async function printRecords(records: AsyncIterable<GlobalCallHistoryRecord>, format: string, stats: boolean, ctx: CommandContext): Promise<number> {
  if (format === 'ndjson' && !stats) {
    let count = 0;
    for await (const record of records) {
      ctx.stdout.write(`${toJsonText(record)}\n`);
      // A pipe's reader slower than the service: the next record waits, not the whole log in memory.
      await ctx.stdout.drained?.();
      count++;
    }
    return count;
  }
  if (stats) {
    const summary = await summarizeCallStream(records);
    ctx.stdout.write(format === 'text' ? renderStats(summary) : `${toJsonText(summary, format === 'json' ? 2 : undefined)}\n`);
    return summary.calls;
  }
  const all: GlobalCallHistoryRecord[] = [];
  for await (const record of records) all.push(record);
  if (format === 'json') {
    ctx.stdout.write(`${toJsonText(all, 2)}\n`);
  } else if (all.length > 0) {
    ctx.stdout.write(renderTable(all, ctx.stdout.columns));
  }
  return all.length;
}

/** `--limit N`, nothing for `--all`, else the default; both at once is a mistake. */
export function recordLimit(options: Pick<LogsOptions, 'limit' | 'all'>): number | undefined {
  if (options.all && options.limit !== undefined) {
    throw new VoxformError('invalid_argument', '--all and --limit contradict each other.', { hint: 'Pass --limit N for the latest N calls, or --all for every one.' });
  }
  if (options.all) return undefined;
  return options.limit ?? DEFAULT_LOG_LIMIT;
}

/**
 * The records, each told to `trusted` before it is passed on: the agent as the record carries it, and
 * as the service holds it now for an agent the deploy ledger recorded `${env:…}` places of (read once),
 * so a transcript that quotes what `${env:…}` put on the agent is scrubbed whether or not this job holds the variable.
 */
async function* toldToTrusted(records: AsyncIterable<GlobalCallHistoryRecord>, trusted: TrustedSecrets, client: Pick<ApiClient, 'getAgent'>): AsyncIterable<GlobalCallHistoryRecord> {
  const readLive = new Set<string>();
  for await (const record of records) {
    const agentId = record.agent_id;
    if (typeof agentId === 'string') {
      trusted.noteLiveAgent({ id: agentId, config: record.agent_config });
      if (!readLive.has(agentId) && (trusted.ledgerPlaces(agentId).length > 0 || trusted.ledgerNamesOf(agentId).length > 0)) {
        readLive.add(agentId);
        const live = await agentIfExists(client, agentId);
        if (live) trusted.noteLiveAgent(live);
      }
    }
    trusted.noteLive(record);
    yield withUnsearchableMasked(record, trusted);
  }
}

/** The record with its agent's places that hold a secret too short for the scrub `(sensitive)` whole (`unsearchablePlaces`). */
function withUnsearchableMasked(record: GlobalCallHistoryRecord, trusted: TrustedSecrets): GlobalCallHistoryRecord {
  const config = record.agent_config;
  if (typeof record.agent_id !== 'string' || !isPlainObject(config)) return record;
  const places = trusted.unsearchablePlaces({ id: record.agent_id, config });
  if (places.length === 0) return record;
  return { ...record, agent_config: redactValue(config, 'config', places) as typeof config };
}

/** The records, redacted, stopping at `limit`; `onMore` is called when another record was there. */
async function* upTo(records: AsyncIterable<GlobalCallHistoryRecord>, limit: number | undefined, onMore: () => void): AsyncIterable<GlobalCallHistoryRecord> {
  let count = 0;
  for await (const record of records) {
    if (limit !== undefined && count >= limit) {
      onMore();
      return;
    }
    count++;
    yield redactCallRecord(record);
  }
}

/** A copy of a call record with every value under a secret key (`isSecretKeyName`) replaced by the marker. */
export function redactCallRecord(record: GlobalCallHistoryRecord): GlobalCallHistoryRecord {
  const walk = (value: unknown): unknown => {
    if (Array.isArray(value)) return value.map(walk);
    if (!isPlainObject(value)) return value;
    return Object.fromEntries(
      Object.entries(value).map(([key, inner]) => [key, isSecretKeyName(key) && inner !== null && inner !== undefined ? REDACTED : walk(inner)]),
    );
  };
  return walk(record) as GlobalCallHistoryRecord;
}

/** The service's filters from the command-line options; times become Unix seconds. */
export function buildFilters(options: LogsOptions, now: number): CallLogFilters {
  const filters: CallLogFilters = {};
  if (options.agent !== undefined) filters.agent_id = options.agent;
  if (options.status !== undefined) filters.call_status = checkStatus(options.status);
  if (options.phone !== undefined) filters.phone_number = checkPhone(options.phone);
  if (options.campaign !== undefined) filters.campaign_id = options.campaign;
  const { since, until } = parseTimeWindow(options, now);
  if (since !== undefined) filters.start_time = since;
  // Without --until no end is sent, as `voxform report` reads: a call the service stamped a moment
  // after this machine's clock is the newest call, not one to leave out.
  if (until !== undefined) filters.end_time = until;
  return filters;
}

/** Whether voxform knows the call status (any case). */
export function isKnownStatus(status: string): boolean {
  return CALL_STATUSES.some((known) => known.toLowerCase() === status.toLowerCase());
}

/**
 * The status to filter by, passed on as given. A near miss of a known one (`user-endd`) is a typo,
 * refused with the suggestion; any other is the service's to match: statuses are examples, never a
 * closed list (vendors change, and the service's own filter examples, `COMPLETED` and `FAILED`, are
 * none of the statuses a record holds). The command notes one it does not know. A value that is no
 * word (spaces, control characters) is no status of any service.
 */
export function checkStatus(status: string): string {
  if (isKnownStatus(status)) return status;
  const suggestion = didYouMean(status, CALL_STATUSES);
  if (suggestion === undefined && /^[A-Za-z0-9_.-]+$/.test(status)) return status;
  throw new VoxformError('invalid_argument', 'The value given to --status is not a call status.', {
    hint: `${suggestion ? `Did you mean ${suggestion}? ` : ''}Known statuses: ${CALL_STATUSES.join(', ')}.`,
  });
}

/**
 * A value that can be (part of) a phone number, passed on as given: digits, with the `+`, spaces,
 * dashes, dots and parentheses numbers are written with. The service matches the calls' numbers by
 * their digits, so a value with none, or with letters, would match nothing: a mistake, not "no calls".
 */
export function checkPhone(phone: string): string {
  if (/\d/.test(phone) && /^[\d+\s().-]+$/.test(phone)) return phone;
  throw new VoxformError('invalid_argument', 'The value given to --phone is not a phone number.', {
    hint: 'Give the number, or part of it, in digits, such as +15551230001 (spaces, dashes, dots and parentheses may stay): the calls\' numbers are matched by their digits.',
  });
}

/** What `--stats` prints: counts by status, duration percentiles, credits by cost type. */
export interface CallStats {
  calls: number;
  by_status: Record<string, number>;
  /** Nearest-rank percentiles over the calls with a duration above 0, in seconds. */
  duration_seconds: { calls: number; p50: number | null; p95: number | null };
  credits: { by_type: Record<string, number>; total: number };
}

/**
 * The stats of calls added one at a time as the pages arrive: counts and sums, and the durations
 * the percentiles need (numbers, never the records), so `--all --stats` over a long call log holds
 * no record once it is counted.
 */
class CallStatsAccumulator {
  private calls = 0;
  private readonly byStatus = new Map<string, number>();
  /** Every duration above 0: an exact nearest-rank percentile needs them all. */
  private readonly durations: number[] = [];
  private readonly byType = new Map<string, number>();
  private total = 0;

  add(record: GlobalCallHistoryRecord): void {
    this.calls++;
    const status = record.call_status ?? '(none)';
    this.byStatus.set(status, (this.byStatus.get(status) ?? 0) + 1);
    // A call that never connected (registered, queued) has no duration worth averaging.
    if (typeof record.duration === 'number' && Number.isFinite(record.duration) && record.duration > 0) this.durations.push(record.duration);
    for (const item of record.cost_breakdown ?? []) {
      if (typeof item.credit !== 'number' || !Number.isFinite(item.credit)) continue;
      const type = item.type ?? '(other)';
      this.byType.set(type, roundCredits((this.byType.get(type) ?? 0) + item.credit));
      this.total = roundCredits(this.total + item.credit);
    }
  }

  summary(): CallStats {
    const durations = [...this.durations].sort((a, b) => a - b);
    return {
      calls: this.calls,
      by_status: sortByCount(this.byStatus),
      duration_seconds: { calls: durations.length, p50: percentile(durations, 50), p95: percentile(durations, 95) },
      credits: { by_type: sortByCount(this.byType), total: this.total },
    };
  }
}

/** The stats of the records as they arrive: each is counted and let go before the next is read. */
export async function summarizeCallStream(records: AsyncIterable<GlobalCallHistoryRecord>): Promise<CallStats> {
  const stats = new CallStatsAccumulator();
  for await (const record of records) stats.add(record);
  return stats.summary();
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

function sortByCount(counts: ReadonlyMap<string, number>): Record<string, number> {
  return Object.fromEntries([...counts].sort(([a, x], [b, y]) => y - x || byCodeUnits(a, b)));
}

export function renderStats(stats: CallStats): string {
  const lines: string[] = [`Calls: ${stats.calls}`, ''];
  const statuses = Object.entries(stats.by_status);
  // No call, no status: a heading with nothing under it reads as if the list were cut off.
  if (statuses.length === 0) lines.push('By status: none');
  else lines.push('By status:', ...alignPairs(statuses.map(([status, count]) => [status, String(count)])));
  lines.push('');
  const d = stats.duration_seconds;
  lines.push(
    d.calls === 0
      ? 'Duration: no call has a duration'
      : `Duration (over the ${plural(d.calls, 'call')} with one): p50 ${formatDuration(d.p50 ?? 0)}, p95 ${formatDuration(d.p95 ?? 0)}`,
  );
  lines.push('');
  lines.push('Credits by cost type:');
  const credits = Object.entries(stats.credits.by_type).map(([type, credit]): [string, string] => [type, formatCredits(credit)]);
  lines.push(...alignPairs([...credits, ['total', formatCredits(stats.credits.total)]]));
  return `${lines.join('\n')}\n`;
}

/** Pairs aligned in two columns; a key is the service's data (a status, a cost type), shown as the table shows it. */
function alignPairs(pairs: Array<[string, string]>): string[] {
  const shown = pairs.map(([key, value]): [string, string] => [controlsAsQuestionMarks(key), value]);
  const left = greatest(shown.map(([key]) => displayWidth(key)), 0);
  const right = greatest(shown.map(([, value]) => value.length), 0);
  return shown.map(([key, value]) => `  ${padToWidth(key, left)}  ${value.padStart(right)}`);
}

interface Column extends TableColumn {
  cell(record: GlobalCallHistoryRecord): string;
}

const COLUMNS: Column[] = [
  { title: 'TIME (UTC)', cell: (r) => (typeof r.ts === 'number' ? formatTime(r.ts) : '') },
  { title: 'STATUS', cell: (r) => r.call_status ?? '' },
  { title: 'DURATION', align: 'right', cell: (r) => (typeof r.duration === 'number' ? formatDuration(r.duration) : '') },
  { title: 'AGENT', shrinkable: true, cell: (r) => r.agent_id ?? '' },
  { title: 'FROM', shrinkable: true, cell: (r) => voipField(r, 'from') },
  { title: 'TO', shrinkable: true, cell: (r) => voipField(r, 'to') },
  { title: 'CREDITS', align: 'right', cell: (r) => formatCredits((r.cost_breakdown ?? []).reduce((sum, item) => sum + (typeof item.credit === 'number' ? item.credit : 0), 0)) },
  // Never cut: `test capture` and `webhook send --call` take the whole id, copied from here.
  { title: 'CALL ID', cell: (r) => r.call_id ?? '' },
];

/** The records as an aligned table; with `columns` (a terminal's width) the widest shrinkable ones are cut to fit. */
export function renderTable(records: readonly GlobalCallHistoryRecord[], columns: number | undefined): string {
  return renderTextTable(COLUMNS, records.map((record) => COLUMNS.map((column) => column.cell(record))), { gap: 2, maxWidth: columns });
}

function voipField(record: GlobalCallHistoryRecord, key: 'from' | 'to'): string {
  const value = record.voip?.[key];
  return typeof value === 'string' ? value : '';
}

/** `2025-01-31 09:00:05` in UTC; a time no date can hold is printed as it came. */
function formatTime(seconds: number): string {
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? String(seconds) : date.toISOString().slice(0, 19).replace('T', ' ');
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
