import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { displayWidth } from '../../src/util/display-width.js';
import { run as runLogs, buildFilters, checkPhone, checkStatus, formatDuration, percentile, recordLimit, redactCallRecord, renderStats, renderTable, summarizeCallStream, type CallStats } from '../../src/cli/commands/logs.js';
import { parseTimeArgument } from '../../src/cli/time-argument.js';
import { reportable } from '../../src/cli/report-error.js';
import { VoxformError } from '../../src/errors.js';
import { COMMAND_HELP } from '../../src/cli/help.js';
import { defaultSeed, startEmulator } from '../../src/emulator/index.js';
import type { GlobalCallHistoryRecord } from '../../src/schema/types.gen.js';
import { makeTree, runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { makeContext } from '../helpers/context.js';

const tempDir = useTempDirs();

/** What every refused time's hint says. */
const FORMS = 'Use ISO 8601 (2025-01-31 or 2025-01-31T09:00:00Z), Unix seconds (1738314000), or a duration back from now (30m, 24h, 7d).';

const NOW = Date.parse('2026-01-10T12:00:00Z');

describe('parseTimeArgument', () => {
  it.each([
    ['2026-01-01', 1_767_225_600],
    ['2026-01-01T09:30:00Z', 1_767_225_600 + 9.5 * 3600],
    ['2026-01-01T09:30:00+02:00', 1_767_225_600 + 7.5 * 3600],
    ['1767225600', 1_767_225_600],
    ['1767225600.5', 1_767_225_600.5],
    ['1767225600000', 1_767_225_600], // milliseconds, recognised by their 13 digits
    ['90s', NOW / 1000 - 90],
    ['30m', NOW / 1000 - 1800],
    ['24h', NOW / 1000 - 86_400],
    ['7d', NOW / 1000 - 7 * 86_400],
    ['2w', NOW / 1000 - 14 * 86_400],
    ['1.5h', NOW / 1000 - 5400],
  ])('%s → %d', (raw, expected) => {
    expect(parseTimeArgument('--since', raw, NOW)).toBe(expected);
  });

  it.each([['yesterday'], ['7 days'], ['-5m'], ['']])('refuses %j with one sentence', (raw) => {
    expect(() => parseTimeArgument('--since', raw, NOW)).toThrow(
      expect.objectContaining({ message: 'The value given to --since is not a time: it is none of the forms voxform reads.', hint: FORMS }),
    );
  });

  it.each([
    ['1764489150000000', 'read as Unix seconds it is after 9999-12-31T23:59:59Z, and voxform reads times from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z (Unix seconds up to 253402300799; 13 digits are read as milliseconds)'],
    ['253402300800', 'read as Unix seconds it is after 9999-12-31T23:59:59Z, and voxform reads times from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z (Unix seconds up to 253402300799; 13 digits are read as milliseconds)'],
    ['99999d', '99999d back from now is before 1970-01-01T00:00:00Z, and voxform reads times from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z'],
    ['1969-12-31', 'it is before 1970-01-01T00:00:00Z, and voxform reads times from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z'],
    ['9999-12-31T23:30:00-01:00', 'it is after 9999-12-31T23:59:59Z, and voxform reads times from 1970-01-01T00:00:00Z to 9999-12-31T23:59:59Z'],
  ])('refuses %j, a form it reads, as out of the range it takes', (raw, reason) => {
    expect(() => parseTimeArgument('--since', raw, NOW)).toThrow(expect.objectContaining({ message: `The value given to --since is not a time: ${reason}.`, hint: FORMS }));
  });

  it.each([
    ['5', 'read as Unix seconds it is 1970-01-01T00:00:05Z, and Unix seconds voxform reads have 10 digits or more; a duration back from now needs its unit (5m, 5h, 5d)'],
    ['0', 'read as Unix seconds it is 1970-01-01T00:00:00Z, and Unix seconds voxform reads have 10 digits or more; a duration back from now needs its unit (0m, 0h, 0d)'],
    ['1.5', 'read as Unix seconds it is 1970-01-01T00:00:01.500Z, and Unix seconds voxform reads have 10 digits or more; a duration back from now needs its unit (1.5m, 1.5h, 1.5d)'],
    ['999999999', 'read as Unix seconds it is 2001-09-09T01:46:39Z, and Unix seconds voxform reads have 10 digits or more; a duration back from now needs its unit (999999999m, 999999999h, 999999999d)'],
  ])('refuses the bare number %j, a duration that lost its unit, instead of reading every call since 1970', (raw, reason) => {
    expect(() => parseTimeArgument('--since', raw, NOW)).toThrow(expect.objectContaining({ message: `The value given to --since is not a time: ${reason}.`, hint: FORMS }));
  });

  it.each([
    ['2028-02-29', 1_835_395_200], // a leap day
    ['2026-01-01T09:30Z', 1_767_225_600 + 9.5 * 3600],
    ['2026-01-01T09:30:00.25Z', 1_767_225_600 + 9.5 * 3600 + 0.25],
    ['2026-01-01 09:30:00Z', 1_767_225_600 + 9.5 * 3600],
    ['2026-01-01T09:30:00-0500', 1_767_225_600 + 14.5 * 3600],
    ['2026-01-01T23:59:59+14:00', 1_767_225_600 + 9 * 3600 + 59 * 60 + 59],
  ])('reads ISO 8601 %s exactly', (raw, expected) => {
    expect(parseTimeArgument('--since', raw, NOW)).toBe(expected);
  });

  it.each([
    ['2026-02-30', 'February 2026 has 28 days'],
    ['2028-02-30', 'February 2028 has 29 days'],
    ['2026-04-31T00:00:00Z', 'April 2026 has 30 days'],
    ['2026-00-10', 'there is no month 00'],
    ['2026-13-01', 'there is no month 13'],
    ['2026-01-00', 'there is no day 00'],
    ['2026-01-01T24:00:00Z', 'hours go from 00 to 23'],
    ['2026-01-01T09:60:00Z', 'minutes go from 00 to 59'],
    ['2026-01-01T09:30:60Z', 'seconds go from 00 to 59'],
    ['2026-01-01T09:30:00+24:00', 'a time zone offset is at most 23:59'],
    ['2026-01-01T09:30:00', 'a time of day needs its time zone: add Z for UTC (2026-01-01T09:30:00Z) or an offset (2026-01-01T09:30:00+01:00)'],
  ])('refuses the impossible %j, saying why', (raw, reason) => {
    expect(() => parseTimeArgument('--until', raw, NOW)).toThrowError(`The value given to --until is not a time: ${reason}.`);
  });

  it.each([['2026-11-01 junk'], ['2026-11-24 december'], ['2026-1-1'], ['2026-01-01T09'], ['2026-01-01T09:30:00ZZ'], ['2026-01-01T09:30:00 +01:00'], ['2026-01-01T'], ['+2026-01-01']])(
    'refuses %j instead of reading part of it',
    (raw) => {
      expect(() => parseTimeArgument('--since', raw, NOW)).toThrow(
        expect.objectContaining({ message: 'The value given to --since is not a time: it is none of the forms voxform reads.', hint: FORMS }),
      );
    },
  );

  it('refuses a window that ends before it starts, or, without --until, starts after now', () => {
    expect(() => buildFilters({ since: '1d', until: '2d' }, NOW)).toThrowError('--since (1d) is later than --until (2d).');
    expect(() => buildFilters({ since: '2099-01-01' }, NOW)).toThrowError('--since (2099-01-01) is later than now.');
    expect(buildFilters({ since: String(NOW / 1000) }, NOW)).toEqual({ start_time: NOW / 1000 });
  });

  it('maps every option to the service’s filter', () => {
    expect(buildFilters({ agent: '-OKa', status: 'ERROR', phone: '+1555', campaign: 'c', since: '2026-01-01', until: '1767312000' }, NOW)).toEqual({
      agent_id: '-OKa',
      call_status: 'ERROR',
      phone_number: '+1555',
      campaign_id: 'c',
      start_time: 1_767_225_600,
      end_time: 1_767_312_000,
    });
  });
});

describe('limit, status and redaction', () => {
  it('reads the latest 50 by default, every record with --all, and refuses both --all and --limit', () => {
    expect(recordLimit({})).toBe(50);
    expect(recordLimit({ limit: 7 })).toBe(7);
    expect(recordLimit({ all: true })).toBeUndefined();
    expect(() => recordLimit({ all: true, limit: 3 })).toThrowError('--all and --limit contradict each other.');
  });

  it('accepts a known status in any case, suggests the closest for a typo, and passes any other on as the service may know it', () => {
    expect(checkStatus('ERROR')).toBe('ERROR');
    expect(checkStatus('in-progress')).toBe('in-progress');
    // The service's own filter examples are no status a record holds: the service decides what they match.
    expect(checkStatus('COMPLETED')).toBe('COMPLETED');
    expect(checkStatus('FAILED')).toBe('FAILED');
    expect(() => checkStatus('user-endd')).toThrowError('The value given to --status is not a call status.');
    try {
      checkStatus('user-endd');
    } catch (error) {
      expect((error as { hint: string }).hint).toMatch(/^Did you mean user-ended\? Known statuses: registered, /);
    }
  });

  it('refuses a --phone that can be no number (no digit, or letters), as --status refuses a typo, rather than matching nothing', () => {
    expect(checkPhone('+15551230001')).toBe('+15551230001');
    expect(checkPhone('+1 (555) 123-0001')).toBe('+1 (555) 123-0001');
    expect(checkPhone('0001')).toBe('0001');
    for (const phone of ['abc', '+', '', '555-CALL', '+1555\u001b[2J']) {
      expect(() => checkPhone(phone), phone).toThrowError('The value given to --phone is not a phone number.');
    }
    expect(() => buildFilters({ phone: 'abc' }, NOW)).toThrowError('The value given to --phone is not a phone number.');
  });

  it("the help's --status example is a known status that the emulator's default account has calls of", () => {
    const example = COMMAND_HELP.logs?.examples.find((line) => line.includes('--status')) ?? '';
    const status = /--status (\S+)/.exec(example)?.[1] ?? '';
    expect(checkStatus(status)).toBe(status);
    expect((defaultSeed().call_logs ?? []).some((record) => record.call_status?.toLowerCase() === status.toLowerCase())).toBe(true);
  });

  it('redacts webhook and tool headers, credentials and keys anywhere in a record, and nothing else', () => {
    const record = {
      call_id: 'c1',
      agent_config: {
        prompt: 'hello',
        tools: [{ name: 't', header: { 'x-token': 'tool-secret' } }],
        session_data_webhook: { url: 'https://h/x', headers: { authorization: 'hook-secret' } },
        app_functions: [{ name: 'crm', credentials: { key: 'app-secret' } }],
      },
      function_calls: [{ name: 'lookup', request: { Authorization: 'Bearer fn-secret', body: 'ok' } }],
      carrier_call_log: { api_key: 'carrier-secret', empty: null },
    } as unknown as GlobalCallHistoryRecord;
    expect(redactCallRecord(record)).toEqual({
      call_id: 'c1',
      agent_config: {
        prompt: 'hello',
        tools: [{ name: 't', header: '(sensitive)' }],
        session_data_webhook: { url: 'https://h/x', headers: '(sensitive)' },
        app_functions: [{ name: 'crm', credentials: '(sensitive)' }],
      },
      function_calls: [{ name: 'lookup', request: { Authorization: '(sensitive)', body: 'ok' } }],
      carrier_call_log: { api_key: '(sensitive)', empty: null },
    });
  });
});

/** `count` varied calls, the same each run: statuses, durations (none, 0, fractions) and credits of several types, some unusable. */
function manyCalls(count: number): GlobalCallHistoryRecord[] {
  const statuses = ['user-ended', 'agent-ended', 'error', 'registered', '__proto__', undefined];
  const types = ['stt', 'tts', 'llm', undefined];
  return Array.from({ length: count }, (_, n): GlobalCallHistoryRecord => {
    const status = statuses[(n * 7) % statuses.length];
    const duration = n % 11 === 0 ? undefined : n % 13 === 0 ? 0 : ((n * 7_919) % 600) + (n % 3) / 4;
    const costs = n % 5 === 0 ? undefined : [{ type: types[n % 4], credit: ((n * 37) % 1_000) / 1_000 }, { type: 'stt', credit: n % 17 === 0 ? Number.NaN : 0.125 }];
    return { call_id: `c${n}`, agent_id: 'a', ts: 1_767_225_600 - n, ...(status === undefined ? {} : { call_status: status }), ...(duration === undefined ? {} : { duration }), ...(costs ? { cost_breakdown: costs } : {}) } as GlobalCallHistoryRecord;
  });
}

/** The records as the command's pages give them: one at a time. */
async function* arrivingAll(records: readonly GlobalCallHistoryRecord[]): AsyncGenerator<GlobalCallHistoryRecord> {
  yield* records;
}

/** The stats as the documentation defines them, computed from the whole list at once (the reference the streamed summary must equal). */
function statsOfList(records: readonly GlobalCallHistoryRecord[]): CallStats {
  const countBy = (keys: string[], weights: number[]) => {
    const sums = new Map<string, number>();
    keys.forEach((key, i) => sums.set(key, (sums.get(key) ?? 0) + (weights[i] as number)));
    return Object.fromEntries([...sums].map(([key, sum]) => [key, Math.round(sum * 1e6) / 1e6] as const).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)));
  };
  const durations = records.map((r) => r.duration).filter((d): d is number => typeof d === 'number' && Number.isFinite(d) && d > 0).sort((a, b) => a - b);
  const nearestRank = (p: number) => (durations.length === 0 ? null : (durations[Math.max(1, Math.ceil((p / 100) * durations.length)) - 1] as number));
  const costs = records.flatMap((r) => r.cost_breakdown ?? []).filter((c) => typeof c.credit === 'number' && Number.isFinite(c.credit));
  return {
    calls: records.length,
    by_status: countBy(records.map((r) => r.call_status ?? '(none)'), records.map(() => 1)),
    duration_seconds: { calls: durations.length, p50: nearestRank(50), p95: nearestRank(95) },
    credits: { by_type: countBy(costs.map((c) => c.type ?? '(other)'), costs.map((c) => c.credit as number)), total: Math.round(costs.reduce((sum, c) => sum + (c.credit as number), 0) * 1e6) / 1e6 },
  };
}

describe('stats and table', () => {
  const records: GlobalCallHistoryRecord[] = [
    { call_id: 'c1', agent_id: 'a', ts: 1_767_225_600, duration: 10, call_status: 'COMPLETED', cost_breakdown: [{ type: 'stt', credit: 0.5 }, { type: 'tts', credit: 0.25 }], voip: { from: '+15550000001', to: '+15551230001' } },
    { call_id: 'c2', agent_id: 'a', ts: 1_767_225_500, duration: 30, call_status: 'COMPLETED', cost_breakdown: [{ type: 'stt', credit: 1 }] },
    { call_id: 'c3', agent_id: 'b', ts: 1_767_225_400, duration: 200, call_status: 'FAILED', cost_breakdown: [] },
    { call_id: 'c4', agent_id: 'b', ts: 1_767_225_300, duration: 0, call_status: 'registered' },
  ];

  it('percentile is nearest-rank', () => {
    expect(percentile([], 50)).toBeNull();
    expect(percentile([5], 95)).toBe(5);
    const hundred = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(percentile(hundred, 50)).toBe(50);
    expect(percentile(hundred, 95)).toBe(95);
    expect(percentile([1, 2, 3], 50)).toBe(2);
  });

  it('summarizeCallStream counts, takes percentiles over calls that connected, and sums credits', async () => {
    expect(await summarizeCallStream(arrivingAll(records))).toEqual({
      calls: 4,
      by_status: { COMPLETED: 2, FAILED: 1, registered: 1 },
      duration_seconds: { calls: 3, p50: 30, p95: 200 },
      credits: { by_type: { stt: 1.5, tts: 0.25 }, total: 1.75 },
    });
  });

  it('summarizeCallStream equals the stats of the whole list, and reads each record only before the next arrives', async () => {
    const many = manyCalls(5_000);
    // Each record a proxy revoked once the next one is asked for: a summary that kept a record to read later throws.
    async function* arriving(): AsyncGenerator<GlobalCallHistoryRecord> {
      for (const record of many) {
        const { proxy, revoke } = Proxy.revocable(record, {});
        yield proxy;
        revoke();
      }
    }
    const streamed = await summarizeCallStream(arriving());
    expect(streamed).toEqual(statsOfList(many));
    expect(streamed.calls).toBe(5_000);
  });

  it('renderStats', async () => {
    expect(renderStats(await summarizeCallStream(arrivingAll(records)))).toBe(
      [
        'Calls: 4',
        '',
        'By status:',
        '  COMPLETED   2',
        '  FAILED      1',
        '  registered  1',
        '',
        'Duration (over the 3 calls with one): p50 30s, p95 3m20s',
        '',
        'Credits by cost type:',
        '  stt    1.500',
        '  tts    0.250',
        '  total  1.750',
        '',
      ].join('\n'),
    );
  });

  it('renderStats of no call says "By status: none", not a heading with nothing under it', async () => {
    expect(renderStats(await summarizeCallStream(arrivingAll([])))).toBe(
      ['Calls: 0', '', 'By status: none', '', 'Duration: no call has a duration', '', 'Credits by cost type:', '  total  0.000', ''].join('\n'),
    );
  });

  it('renderTable aligns columns, and cuts the wide ones to fit a terminal', () => {
    const wide = renderTable(records, undefined).split('\n');
    expect(wide).toEqual([
      'TIME (UTC)           STATUS      DURATION  AGENT  FROM          TO            CREDITS  CALL ID',
      '2026-01-01 00:00:00  COMPLETED        10s  a      +15550000001  +15551230001    0.750  c1',
      '2025-12-31 23:58:20  COMPLETED        30s  a                                    1.000  c2',
      '2025-12-31 23:56:40  FAILED         3m20s  b                                    0.000  c3',
      '2025-12-31 23:55:00  registered        0s  b                                    0.000  c4',
      '',
    ]);
    const long = records.map((r, i) => ({ ...r, agent_id: `-OKdqbqetEcM4ak369y${i}`, call_id: `call_7d1c0a5e2b9f4c3d8e6a${i}` }));
    const fitted = renderTable(long, 110).split('\n').filter(Boolean);
    expect(fitted[0]).toContain('CALL ID');
    for (const line of fitted) expect(line.length).toBeLessThanOrEqual(110);
    expect(fitted[1]).toMatch(/-OKdqbq\S*…/);
    expect(fitted[1]).toMatch(/ call_7d1c0a5e2b9f4c3d8e6a0$/);
  });

  it('renderTable never cuts a call id, the one `test capture` takes: a terminal too narrow wraps the line', () => {
    const long = records.map((r, i) => ({ ...r, agent_id: `-OKdqbqetEcM4ak369y${i}`, call_id: `call_590b5115c1d94e0f8a7b6c5d4e3f2a1${i}` }));
    const fitted = renderTable(long, 80).split('\n').filter(Boolean);
    expect(fitted.slice(1).map((line) => line.split(' ').at(-1))).toEqual(long.map((r) => r.call_id));
    // The other columns gave what they could.
    expect(fitted[1]).toMatch(/ -OKdq… /);
  });

  it('renderTable lines up and fits wide characters by the cells a terminal gives them', () => {
    const wide = records.map((r, i) => ({ ...r, agent_id: i === 0 ? '受付エージェント' : `b${i}`, call_id: i === 0 ? '😀'.repeat(20) : `c${i}` }));
    const lines = renderTable(wide, undefined).split('\n').filter(Boolean);
    const callIdColumn = (line: string) => displayWidth(line.slice(0, line.indexOf('CALL ID') === -1 ? undefined : line.indexOf('CALL ID')));
    const starts = lines.map((line) => displayWidth(line.split(/  (?=\S+$)/)[0] as string));
    expect(new Set(starts.slice(1)).size).toBe(1);
    expect(starts[1]).toBe(callIdColumn(lines[0] as string) - 2);
    const longAgent = wide.map((r, i) => ({ ...r, agent_id: i === 0 ? '受付エージェント'.repeat(4) : `b${i}` }));
    const fitted = renderTable(longAgent, 130).split('\n').filter(Boolean);
    for (const line of fitted) expect(displayWidth(line)).toBeLessThanOrEqual(130);
    expect(fitted[1]).toMatch(/受付エ\S*…\s/);
    expect(fitted[1]).toMatch(/ (😀){20}$/);
  });

  it('renderTable prints a record whose time no date can hold as the number it came as', () => {
    const far = [{ ...(records[0] as GlobalCallHistoryRecord), ts: 99_999_999_999_991_140 }];
    expect(renderTable(far, undefined).split('\n')[1]).toMatch(/^99999999999991140 +COMPLETED/);
  });

  it('formatDuration', () => {
    expect([0, 42, 65, 3600, 3723].map(formatDuration)).toEqual(['0s', '42s', '1m05s', '1h00m00s', '1h02m03s']);
  });
});

describe('voxform logs (the built CLI against the emulator)', () => {
  const KEY = 'cliLogsPrivateKey000000000000001';
  const AGENT = '-OKdqbqetEcM4ak369ym';
  const OTHER = '-OKdqbqetEcM4ak369yn';
  const HEADER_SECRETS = { tool: 'toolHeaderPlanted7731', webhook: 'Bearer webhookHeaderPlanted4410' };
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    const calls: GlobalCallHistoryRecord[] = Array.from({ length: 1000 }, (_, i) => ({
      call_id: `call_${String(i).padStart(4, '0')}`,
      agent_id: i % 4 === 0 ? OTHER : AGENT,
      ts: 1_767_225_600 - i * 60 - (i % 3 === 0 ? 0 : 0.5),
      duration: 10 + (i % 100),
      call_status: i % 10 === 0 ? 'error' : 'user-ended',
      voip: { provider: 'twilio', from: `+1555010${String(i % 100).padStart(4, '0')}`, to: '+15551230001' },
      cost_breakdown: [{ type: 'stt', provider: 'deepgram', credit: 0.002 }, { type: 'llm', provider: 'x', credit: 0.001 }],
      campaign_id: i % 5 === 0 ? 'cmp_1' : null,
    }));
    calls[0]!.agent_config = {
      tools: [{ name: 'lookup', header: { 'x-tool-token': HEADER_SECRETS.tool } }],
      session_data_webhook: { url: 'https://hooks.example.com/end', headers: { authorization: HEADER_SECRETS.webhook } },
    };
    emulator = await startEmulator({ port: 0, seed: { keys: [{ type: 'private', key: KEY }], call_logs: calls } });
    env = { VOXFORM_API_KEY: KEY, VOXFORM_BASE_URL: emulator.url };
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('a rate limit that outlasts the retries is advised as this command can act on it: logs has no --parallelism to lower', async () => {
    emulator.control.setFaults([{ path: '/call-logs', rateLimit: { burst: 0, retryAfterSeconds: 0, limited: 100 } }], { seed: 1 });
    try {
      const result = await runCliInProcess(['logs', '--limit', '1'], { env });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('error[api_rate_limited]: GET /call-logs failed: the service answered 429 Too Many Requests (after 5 attempts).\n  hint: The service is limiting the request rate; try again in a minute.\n');
    } finally {
      emulator.control.clearFaults();
    }
    // A command that has --parallelism (plan, apply, drift, diff, test) keeps the advice to lower it.
    const limited = new VoxformError('api_rate_limited', 'GET /agents/x failed.', { hint: 'The service is limiting the request rate; lower --parallelism or try again in a minute.' });
    expect(reportable(limited, true)?.hint).toBe(limited.hint);
    expect(reportable(limited, false)?.hint).toBe('The service is limiting the request rate; try again in a minute.');
  });


  it('--format ndjson waits for stdout to take each record before writing the next, so a slow pipe holds one record, not the log', async () => {
    const { ctx, close } = makeContext({ cwd: await tempDir({}), env });
    const events: string[] = [];
    ctx.stdout = { write: () => void events.push('write'), drained: async () => void events.push('drained'), isTTY: false, columns: undefined };
    try {
      expect(await runLogs({ all: true, format: 'ndjson' }, ctx)).toBe(0);
    } finally {
      await close();
    }
    expect(events.join(' ')).toBe(Array.from({ length: 1000 }, () => 'write drained').join(' '));
  });

  it('--format ndjson walks every page: 1,000 records, none twice', async () => {
    const result = await runCliInProcess(['logs', '--all', '--format', 'ndjson'], { env });
    expect(result.code).toBe(0);
    const ids = result.stdout.trim().split('\n').map((line) => (JSON.parse(line) as { call_id: string }).call_id);
    expect(ids).toHaveLength(1000);
    expect(new Set(ids).size).toBe(1000);
    expect(result.stderr).toBe(''); // no progress off a terminal
  });

  it('filters: an agent id starting with "-", a status, a window, a phone, a campaign, a limit', async () => {
    const result = await runCliInProcess(
      ['logs', '--agent', OTHER, '--status', 'ERROR', '--since', '2025-12-31T00:00:00Z', '--until', '1767225600', '--phone', '+15550100020', '--campaign', 'cmp_1', '--limit', '3', '--format', 'json'],
      { env },
    );
    expect(result.code).toBe(0);
    const records = JSON.parse(result.stdout) as GlobalCallHistoryRecord[];
    expect(records.length).toBeGreaterThan(0);
    expect(records.length).toBeLessThanOrEqual(3);
    for (const r of records) {
      expect(r).toMatchObject({ agent_id: OTHER, call_status: 'error', campaign_id: 'cmp_1' });
      expect(r.voip?.from).toBe('+15550100020');
      expect(r.ts).toBeGreaterThanOrEqual(1_767_139_200);
    }
  });

  it('prints an aligned table by default', async () => {
    const result = await runCliInProcess(['logs', '--limit', '3'], { env });
    expect(result.code).toBe(0);
    const lines = result.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^TIME \(UTC\) +STATUS +DURATION +AGENT +FROM +TO +CREDITS +CALL ID$/);
    expect(lines[1]).toMatch(/^2026-01-01 00:00:00 +(user-ended|error) /);
    expect(lines[1]?.indexOf('call_0000')).toBe(lines[0]?.indexOf('CALL ID'));
  });

  it('--stats counts by status, duration percentiles and credits by cost type', async () => {
    const result = await runCliInProcess(['logs', '--all', '--stats', '--format', 'json'], { env });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({
      calls: 1000,
      by_status: { 'user-ended': 900, error: 100 },
      duration_seconds: { calls: 1000, p50: 59, p95: 104 },
      credits: { by_type: { stt: 2, llm: 1 }, total: 3 },
    });
    const text = await runCliInProcess(['logs', '--all', '--stats'], { env });
    expect(text.stdout).toContain('Calls: 1000');
    expect(text.stdout).toContain('  user-ended  900');
  });

  it('a missing key is one clear sentence and a hint, exit 1', async () => {
    const result = await runCliInProcess(['logs'], { env: { VOXFORM_BASE_URL: emulator.url } });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe('error[api_key_missing]: No API key: VOXFORM_API_KEY is not set.\n  hint: Set VOXFORM_API_KEY to your private key (from the service’s dashboard), or use --local for the embedded emulator.\n');
  });

  it('a bad --since is one clear sentence and a hint, exit 1', async () => {
    const result = await runCliInProcess(['logs', '--since', 'last tuesday'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error\[invalid_argument\]: The value given to --since is not a time: .+\.\n {2}hint: Use ISO 8601 .+\.\n$/);
  });

  it('a bad base URL and a wrong key are clear errors', async () => {
    const badUrl = await runCliInProcess(['logs', '--base-url', 'not a url'], { env });
    expect(badUrl.code).toBe(1);
    expect(badUrl.stderr).toContain('error[base_url_invalid]: The value given to --base-url is not usable: it is not an absolute URL.');
    const wrong = await runCliInProcess(['logs'], { env: { ...env, VOXFORM_API_KEY: 'wrongwrongwrongwrongwrongwrong01' } });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/^error\[api_unauthorized\]: GET \/call-logs failed: the service answered 401 .+\.\n {2}hint: Check VOXFORM_API_KEY/);
    expect(wrong.stderr).not.toContain('wrongwrongwrongwrongwrongwrong01');
    expect(wrong.stderr).not.toMatch(/\n\s+at /); // no stack trace
  });

  it('VOXFORM_DEBUG=1 logs each request with the key redacted', async () => {
    const result = await runCliInProcess(['logs', '--limit', '150', '--format', 'ndjson'], { env: { ...env, VOXFORM_DEBUG: '1' } });
    expect(result.code).toBe(0);
    const debug = result.stderr.split('\n').filter((line) => line.startsWith('[voxform api]'));
    expect(debug.filter((line) => line.includes('→ GET'))).toHaveLength(2);
    expect(debug.some((line) => line.includes('authorization: (sensitive)'))).toBe(true);
    expect(result.stderr).not.toContain(KEY);
    expect(result.stdout).not.toContain(KEY);
  });

  it('takes an agent name from the manifests, and reads on without them, with a warning, when they have errors', async () => {
    const named = await makeTree({ 'voxform.yaml': `agents:\n  desk: { id: "${OTHER}" }\n` });
    const broken = await makeTree({ 'voxform.yaml': `agents:\n  desk: { id: "${OTHER}", colour: blue }\n` });
    try {
      const byName = await runCliInProcess(['logs', '--agent', 'desk', '--limit', '2', '--format', 'json'], { cwd: named.dir, env });
      expect(byName.code, byName.stderr).toBe(0);
      expect((JSON.parse(byName.stdout) as GlobalCallHistoryRecord[]).map((record) => record.agent_id)).toEqual([OTHER, OTHER]);
      const byId = await runCliInProcess(['logs', '--agent', OTHER, '--limit', '2', '--format', 'json'], { cwd: broken.dir, env });
      expect(byId.code, byId.stderr).toBe(0);
      expect(byId.stderr).toBe('warning: the manifests have 1 error (`voxform validate` lists them): their agent names and service are not used.\n');
      expect((JSON.parse(byId.stdout) as GlobalCallHistoryRecord[]).map((record) => record.agent_id)).toEqual([OTHER, OTHER]);
      // A mistyped -f is not taken for "no manifests": the run stops before reading the service.
      const mistyped = await runCliInProcess(['logs', '--agent', 'desk', '-f', 'voxfrom.yaml'], { cwd: named.dir, env });
      expect(mistyped.code).toBe(1);
      expect(mistyped.stderr).toContain('error[manifest_not_found]: voxfrom.yaml does not exist; did you mean voxform.yaml?');
      expect(mistyped.stdout).toBe('');
    } finally {
      await named.cleanup();
      await broken.cleanup();
    }
  });

  it('a name the manifests give an id themselves, when they have errors, is theirs and unread: never said to have no id because an environment gives it another', async () => {
    const manifest = `agents:\n  desk:\n    id: "${OTHER}"\n    config: { prompt: hi, first_message: "\${env:VOXFORM_TEST_UNSET_GREETING}" }\nenvironments:\n  staging:\n    agents:\n      desk: { id: -OKstagingFrontDesk01 }\n`;
    const tree = await makeTree({ 'voxform.yaml': manifest });
    try {
      const result = await runCliInProcess(['logs', '--agent', 'desk'], { cwd: tree.dir, env });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'warning: the manifests have 1 error (`voxform validate` lists them): their agent names and service are not used.\n' +
          'error[manifest_invalid]: --agent "desk" is an agent of the manifests, which have errors: its id is not known.\n' +
          "  hint: Fix the errors `voxform validate` lists (with the same -f and --env), or give the agent's id.\n",
      );
    } finally {
      await tree.cleanup();
    }
  });

  it('--local uses the embedded emulator, with its data in .voxform/local.json', async () => {
    const tree = await makeTree({});
    try {
      const result = await runCliInProcess(['logs', '--local', '--format', 'json', '--limit', '5'], { cwd: tree.dir });
      expect(result.code).toBe(0);
      expect(JSON.parse(result.stdout)).toHaveLength(5);
      const { existsSync } = await import('node:fs');
      expect(existsSync(`${tree.dir}/.voxform/local.json`)).toBe(true);
    } finally {
      await tree.cleanup();
    }
  });

  it('reads the latest 50 calls by default and says so on stderr', async () => {
    const result = await runCliInProcess(['logs', '--format', 'ndjson'], { env });
    expect(result.code).toBe(0);
    expect(result.stdout.trim().split('\n')).toHaveLength(50);
    expect(result.stderr).toBe('Showing the latest 50 calls; --limit N reads more, --all reads every one.\n');
  });

  it.each([['text'], ['json'], ['ndjson']])('redacts webhook and tool header values (--format %s)', async (format) => {
    const result = await runCliInProcess(['logs', '--limit', '2', '--format', format], { env });
    expect(result.code).toBe(0);
    for (const secret of Object.values(HEADER_SECRETS)) {
      expect(result.stdout).not.toContain(secret);
      expect(result.stderr).not.toContain(secret);
    }
    if (format !== 'text') expect(result.stdout).toMatch(/"headers": ?"\(sensitive\)"/);
  });

  it('a misspelled --status is refused with a suggestion', async () => {
    const result = await runCliInProcess(['logs', '--status', 'eror'], { env });
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error\[invalid_argument\]: The value given to --status is not a call status\.\n {2}hint: Did you mean error\? /);
  });

  it("a status voxform does not know (the service's filter examples completed, failed) is sent as given, with a note; the emulator's records hold none", async () => {
    for (const status of ['completed', 'FAILED']) {
      const result = await runCliInProcess(['logs', '--status', status, '--format', 'json'], { env });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toContain('note: the value given to --status is not a call status voxform knows (registered, ');
      expect(JSON.parse(result.stdout)).toEqual([]);
    }
  });

  it("an error about an option's value stays one line of plain text: a value it quotes (--agent) shows each control character as ?", async () => {
    const value = 'er\u001b[31mror\nx';
    const shown = 'er?[31mror?x';
    for (const [flag, message] of [
      ['--status', 'The value given to --status is not a call status.'],
      ['--since', 'The value given to --since is not a time: it is none of the forms voxform reads.'],
      ['--until', 'The value given to --until is not a time: it is none of the forms voxform reads.'],
      ['--phone', 'The value given to --phone is not a phone number.'],
      ['--agent', `--agent "${shown}" is neither the local name, id or name on the service of an agent of the manifests, nor an agent id on the service.`],
    ] as const) {
      const result = await runCliInProcess(['logs', flag, value], { env });
      expect(result.code, flag).toBe(1);
      expect(result.stderr.split('\n')[0], flag).toBe(`error[${flag === '--agent' ? 'agent_unknown' : 'invalid_argument'}]: ${message}`);
    }
  });

  it('--agent takes a manifest name; a name that is neither a manifest agent nor an id is an error with a suggestion', async () => {
    const tree = await makeTree({ 'voxform.yaml': `agents:\n  sales-line:\n    id: "${OTHER}"\n    config:\n      prompt: hi\n` });
    try {
      const byName = await runCliInProcess(['logs', '--agent', 'sales-line', '--limit', '5', '--format', 'json'], { cwd: tree.dir, env });
      expect(byName.code).toBe(0);
      const records = JSON.parse(byName.stdout) as GlobalCallHistoryRecord[];
      expect(records).toHaveLength(5);
      for (const r of records) expect(r.agent_id).toBe(OTHER);
      const typo = await runCliInProcess(['logs', '--agent', 'sales-lien'], { cwd: tree.dir, env });
      expect(typo.code).toBe(1);
      expect(typo.stderr).toBe('error[agent_unknown]: --agent "sales-lien" is neither the local name, id or name on the service of an agent of the manifests, nor an agent id on the service.\n  hint: Did you mean sales-line?\n');
    } finally {
      await tree.cleanup();
    }
  });

  it('an unknown --agent with --stats is the error alone, with no summary printed first', async () => {
    const message = '--agent "nobody" is neither the local name, id or name on the service of an agent of the manifests, nor an agent id on the service.';
    // No manifest in the folder: no file to take names from.
    const hint = 'Give an agent id, or name the manifests with -f to use their agent names.';
    const table = await runCliInProcess(['logs', '--agent', 'nobody', '--stats'], { env });
    expect(table.code).toBe(1);
    expect(table.stdout).toBe('');
    expect(table.stderr).toBe(`error[agent_unknown]: ${message}\n  hint: ${hint}\n`);
    // With --format json the error is the one JSON document on stdout.
    const json = await runCliInProcess(['logs', '--agent', 'nobody', '--stats', '--format', 'json'], { env });
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toEqual({ error: { code: 'agent_unknown', message, hint } });
  });

  it('--agent takes an agent\'s display name on the service, as emulator traffic does', async () => {
    const tree = await makeTree({ 'voxform.yaml': 'version: 1\nagents:\n  desk:\n    id: -OKdqbqetEcM4ak369ym\n    config: { prompt: "v1" }\n' });
    try {
      // The embedded emulator's default account names this agent "Front desk"; the manifest names it desk.
      const result = await runCliInProcess(['logs', '--local', '--agent', 'Front desk', '--limit', '3', '--format', 'json'], { cwd: tree.dir });
      expect(result.code, result.stderr).toBe(0);
      const records = JSON.parse(result.stdout) as GlobalCallHistoryRecord[];
      expect(records.length).toBeGreaterThan(0);
      for (const r of records) expect(r.agent_id).toBe('-OKdqbqetEcM4ak369ym');
    } finally {
      await tree.cleanup();
    }
  });
});

describe('voxform logs with a service that answers control characters', () => {
  const KEY = 'cliLogsControlKey000000000000001';
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let env: Record<string, string>;

  beforeAll(async () => {
    const call: GlobalCallHistoryRecord = {
      call_id: 'call\u001b]0;pwned\u0007',
      agent_id: 'agent\u001b[31m',
      ts: 1_767_225_600,
      duration: 10,
      call_status: 'COMPLETED\u001b[2J',
      voip: { provider: 'twilio', from: '+1555\r0001', to: '+1555\u009b0002' },
      cost_breakdown: [{ type: 'stt\u001b[1m', provider: 'deepgram', credit: 0.002 }],
    };
    // The default account's agents, the front desk's name on the service carrying a BEL.
    const agents = (defaultSeed().agents ?? []).map((agent) => (agent.id === '-OKdqbqetEcM4ak369ym' ? { ...agent, name: 'Front desk\u0007' } : agent));
    emulator = await startEmulator({ port: 0, seed: { keys: [{ type: 'private', key: KEY }], agents, call_logs: [call] } });
    env = { VOXFORM_API_KEY: KEY, VOXFORM_BASE_URL: emulator.url };
  });
  afterAll(async () => {
    await emulator.close();
  });

  it('the table and the summary show each control character as ?, in its place', async () => {
    const table = await runCliInProcess(['logs'], { env });
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    const lines = table.stdout.trimEnd().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(/^2026-01-01 00:00:00 {2}COMPLETED\?\[2J +10s {2}agent\?\[31m {2}\+1555\?0001 {2}\+1555\?0002 +0\.002 {2}call\?\]0;pwned\?$/);
    const stats = await runCliInProcess(['logs', '--stats'], { env });
    expect(stats.code, stats.stderr).toBe(0);
    expect(stats.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
    expect(stats.stdout).toContain('  COMPLETED?[2J  1');
    expect(stats.stdout).toContain('  stt?[1m  0.002');
  });

  it('a suggestion for --agent shows the service\'s name with its control characters escaped', async () => {
    const tree = await makeTree({ 'voxform.yaml': 'agents:\n  desk:\n    id: -OKdqbqetEcM4ak369ym\n    config: { prompt: hi }\n' });
    try {
      const result = await runCliInProcess(['logs', '--agent', 'Front desk'], { cwd: tree.dir, env });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe('error[agent_unknown]: --agent "Front desk" is neither the local name, id or name on the service of an agent of the manifests, nor an agent id on the service.\n  hint: Did you mean Front desk\\u0007?\n');
    } finally {
      await tree.cleanup();
    }
  });
});
