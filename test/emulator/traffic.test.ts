/**
 * Synthetic traffic (docs/traffic.md): reproducible from its seed, different per configuration
 * version, shaped like real sessions' records, stamped after the agent's configuration was set,
 * and cheap to page over when the log is large.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configurationHash } from '../../src/history/config-hash.js';
import { defaultSeed, startEmulator, type CallRecord, type RunningEmulator } from '../../src/emulator/index.js';
import { sessionCosts } from '../../src/emulator/costs.js';
import { CallLog } from '../../src/emulator/store.js';
import { generateTraffic, MIN_SYNTHETIC_CALL_JSON_VALUES } from '../../src/emulator/traffic/generate.js';
import { MAX_DATA_FILE_TRAFFIC_CALLS, TrafficOverDataFileError } from '../../src/emulator/traffic/index.js';
import { JsonCounter } from '../../src/util/json-budget.js';
import { versionModel } from '../../src/emulator/traffic/model.js';
import { BUILT_IN_PROFILES, CALL_OUTCOMES, MAX_MEDIAN_SECONDS, MAX_MULTIPLIER, resolveTrafficProfile, TrafficProfileError } from '../../src/emulator/traffic/profile.js';
import { malformedCallRecord } from '../../src/api/call-records.js';
import type { AgentConfigRead } from '../../src/schema/types.gen.js';
import { endOfCallPayload } from '../../src/webhooks/payload.js';
import { useTempDirs } from '../helpers/cli.js';
import { BOOKING, clientFor, expectSchema, FRONT_DESK, startTestEmulator, type Client } from './helpers.js';

/** A fixed end of the window: 2026-06-01T00:00:00Z. */
const UNTIL = 1_780_272_000;
const tempDir = useTempDirs();

const synthetic = (emulator: RunningEmulator) => emulator.control.state().call_logs.filter((r) => r.call_id.length === 25 && r.ts > UNTIL - 86_400 * 30);

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (error) {
    if (error instanceof TrafficProfileError) return error.problems;
    throw error;
  }
  throw new Error('no TrafficProfileError thrown');
}

describe('traffic profiles', () => {
  it('resolves built-in names and fills a profile file from the profile it extends', () => {
    expect(resolveTrafficProfile('steady')).toEqual(BUILT_IN_PROFILES.steady);
    const custom = resolveTrafficProfile({ extends: 'light', window: '2h', outcomes: { error: 0.5 }, tools: { failure_rate: 0.5 } });
    expect(custom).toMatchObject({ name: 'light (custom)', calls_per_agent: 40, window_seconds: 7200, tools: { calls_per_conversation: 0.8, failure_rate: 0.5 } });
    expect(custom.outcomes).toMatchObject({ error: 0.5, 'user-ended': 0.58 });
  });

  it('reports every problem of a bad profile at once, each with its path', () => {
    const problems = problemsOf(() =>
      resolveTrafficProfile({
        extends: 'busy',
        calls_per_agent: 0,
        window: 'a day',
        outcomes: { 'hung-up': 1, error: -1 },
        tools: { failure_rate: 2 },
        rules: [{ when: {}, scale: { errors: 2 } }, 'x'],
        colour: 'red',
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^extends: must name a built-in profile \(steady, light, volatile\)/),
        expect.stringMatching(/^calls_per_agent: must be a whole number from 1/),
        expect.stringMatching(/^window: must be seconds above 0 or a duration/),
        expect.stringMatching(/^outcomes\.hung-up: is not a known field/),
        expect.stringMatching(/^outcomes\.error: must be a number from 0 to 1000, not -1/),
        expect.stringMatching(/^tools\.failure_rate: must be a number from 0 to 1/),
        expect.stringMatching(/^rules\[0\]\.when: needs prompt_contains or agent/),
        expect.stringMatching(/^rules\[0\]\.scale\.errors: is not a known field/),
        expect.stringMatching(/^rules\[1\]: must be a mapping/),
        expect.stringMatching(/^colour: is not a known field/),
      ]),
    );
    expect(problemsOf(() => resolveTrafficProfile('busy'))).toEqual(['there is no built-in profile named "busy" (there are steady, light, volatile)']);
    expect(problemsOf(() => resolveTrafficProfile({ outcomes: Object.fromEntries(Object.keys(BUILT_IN_PROFILES.steady!.outcomes).map((k) => [k, 0])) }))).toEqual([
      'outcomes: at least one status needs a weight above 0',
    ]);
  });
});

describe('the model of a configuration version', () => {
  const agent = { id: FRONT_DESK, name: 'Front desk' };
  const config = defaultSeed().agents?.find((a) => a.id === FRONT_DESK)?.config as AgentConfigRead;
  const changed: AgentConfigRead = { ...config, prompt: `${config.prompt} Always confirm the caller's name.` };

  it('is the same for the same configuration and differs when the prompt changes', () => {
    const profile = resolveTrafficProfile('steady');
    const a = versionModel(profile, agent, config, configurationHash(config as Record<string, unknown>));
    const again = versionModel(profile, agent, structuredClone(config), configurationHash(structuredClone(config) as Record<string, unknown>));
    const b = versionModel(profile, agent, changed, configurationHash(changed as Record<string, unknown>));
    expect(again).toEqual(a);
    expect(b.outcomeWeights).not.toEqual(a.outcomeWeights);
    expect(b.medianSeconds).not.toEqual(a.medianSeconds);
    // Without a version effect, only rules move the rates.
    const flat = resolveTrafficProfile({ version_effect: 0, rules: [{ when: { prompt_contains: 'CONFIRM THE CALLER' }, scale: { error: 0, duration: 2 } }] });
    const before = versionModel(flat, agent, config, configurationHash(config as Record<string, unknown>));
    const after = versionModel(flat, agent, changed, configurationHash(changed as Record<string, unknown>));
    expect(before.rulesApplied).toEqual([]);
    expect(after.rulesApplied).toEqual(['rules[0]']);
    expect(after.outcomeWeights[6]).toBe(0); // error
    expect(after.medianSeconds['user-ended']).toBeCloseTo(2 * before.medianSeconds['user-ended']);
  });

  it('gives the calls of two versions different outcomes under the same seed', async () => {
    const request = (prompt: string) => ({
      profile: resolveTrafficProfile('volatile'),
      seed: 3,
      until: UNTIL,
      agents: [{ id: FRONT_DESK, name: 'Front desk', config: { ...config, prompt }, configSetAt: undefined }],
    });
    const one = await generateTraffic(request(config.prompt as string));
    const again = await generateTraffic(request(config.prompt as string));
    const two = await generateTraffic(request(changed.prompt as string));
    expect(again.records).toEqual(one.records);
    const rate = (records: CallRecord[], status: string) => records.filter((r) => r.call_status === status).length / records.length;
    const spread = Math.max(...['user-ended', 'agent-ended', 'error', 'timeout'].map((status) => Math.abs(rate(one.records, status) - rate(two.records, status))));
    // 400 calls each: a difference of 0.08 in some outcome's rate is far beyond sampling noise (sd ≈ 0.03).
    expect(spread).toBeGreaterThan(0.08);
    expect(two.summary.agents[0]!.config_hash).not.toBe(one.summary.agents[0]!.config_hash);
  });

  it('bounds the median and its factors, and makes with every field at its largest only records `voxform logs` reads', async () => {
    expect(problemsOf(() => resolveTrafficProfile({ duration: { median_seconds: 1e308, by_status: { timeout: 1e308 } } }))).toEqual([
      'duration.median_seconds: must be a number from 1 to 86400, not 1e+308',
      'duration.by_status.timeout: must be a number from 0 to 1000, not 1e+308',
    ]);
    // Each rule's multipliers are within bounds; two hundred of them together are capped as one is.
    const largest = resolveTrafficProfile({
      duration: { median_seconds: MAX_MEDIAN_SECONDS, spread: 3, by_status: Object.fromEntries(CALL_OUTCOMES.map((status) => [status, MAX_MULTIPLIER])) },
      chars_per_second: 1000,
      version_effect: 3,
      rules: Array.from({ length: 200 }, () => ({ when: { agent: 'Front desk' }, scale: { duration: MAX_MULTIPLIER, chars: MAX_MULTIPLIER } })),
    });
    const { records } = await generateTraffic({ profile: largest, calls: 300, seed: 1, until: UNTIL, agents: [{ id: FRONT_DESK, name: 'Front desk', config, configSetAt: undefined }] });
    expect(malformedCallRecord(records, 'GlobalCallHistoryRecord', ['histories'])).toBeUndefined();
  });

  it('bounds outcome weights, so the largest still draw every status they weigh, not the last one alone', async () => {
    expect(problemsOf(() => resolveTrafficProfile({ outcomes: { 'user-ended': 1e308, 'agent-ended': 1e308, error: 1e308 } }))).toEqual([
      'outcomes.user-ended: must be a number from 0 to 1000, not 1e+308',
      'outcomes.agent-ended: must be a number from 0 to 1000, not 1e+308',
      'outcomes.error: must be a number from 0 to 1000, not 1e+308',
    ]);
    const weighed = ['user-ended', 'agent-ended', 'error'] as const;
    const heaviest = resolveTrafficProfile({
      outcomes: Object.fromEntries(CALL_OUTCOMES.map((status) => [status, (weighed as readonly string[]).includes(status) ? MAX_MULTIPLIER : 0])),
      version_effect: 0,
      rules: Array.from({ length: 200 }, () => ({ when: { agent: 'Front desk' }, scale: Object.fromEntries(weighed.map((status) => [status, MAX_MULTIPLIER])) })),
    });
    const { records } = await generateTraffic({ profile: heaviest, calls: 300, seed: 1, until: UNTIL, agents: [{ id: FRONT_DESK, name: 'Front desk', config, configSetAt: undefined }] });
    expect(new Set(records.map((record) => record.call_status))).toEqual(new Set(weighed));
  });
});

describe('synthetic calls', () => {
  let emulator: RunningEmulator;
  let client: Client;
  beforeAll(async () => ({ emulator, client } = await startTestEmulator()));
  afterAll(() => emulator?.close());

  it('are the same for the same seed and configurations, and differ for another seed', async () => {
    const other = await startEmulator({ quiet: true });
    try {
      const summary = await emulator.control.traffic({ profile: 'light', seed: 7, until: UNTIL });
      const again = await other.control.traffic({ profile: 'light', seed: 7, until: UNTIL });
      expect(again).toEqual(summary);
      expect(summary).toMatchObject({ profile: 'light', seed: 7, calls: 9 * 40, skipped: [] });
      expect(synthetic(other)).toEqual(synthetic(emulator));
      expect(synthetic(emulator)).toHaveLength(360);
      // The same request again adds nothing: the same ids replace the same records.
      await other.control.traffic({ profile: 'light', seed: 7, until: UNTIL });
      expect(other.control.state().call_logs).toHaveLength(40 + 360);
      await other.control.traffic({ profile: 'light', seed: 8, until: UNTIL });
      const seven = synthetic(emulator);
      const sevenIds = new Set(seven.map((r) => r.call_id));
      const eight = synthetic(other).filter((r) => !sevenIds.has(r.call_id));
      expect(eight).toHaveLength(360);
      expect(eight.map((r) => r.call_status)).not.toEqual(seven.map((r) => r.call_status));
    } finally {
      await other.close();
    }
  });

  it('are records of the call-log schema, as GET /call-logs serves them, sharing one config per version', async () => {
    const records = synthetic(emulator);
    for (const record of records.slice(0, 60)) {
      expectSchema('GlobalCallHistoryRecord', record);
      // What `voxform webhook send --call` would send for it is a valid end-of-call payload.
      expectSchema('EndOfCallPayload', endOfCallPayload(record as Parameters<typeof endOfCallPayload>[0]));
    }
    const page = await client.get(`/call-logs?limit=100&agent_id=${BOOKING}&start_time=${UNTIL - 86_400}&end_time=${UNTIL}`);
    expectSchema('CallLogsResponse', page.body);
    const served = page.body.histories as CallRecord[];
    expect(served).toHaveLength(40);
    for (const record of served) {
      expect(Object.keys(record)).toEqual([
        'agent_id', 'agent_config', 'duration', 'ts', 'chat', 'chars_used', 'session_id', 'call_id', 'cost_breakdown', 'voip', 'recording',
        'metadata', 'function_calls', 'call_status', 'campaign_id', 'error_message', 'call_metrics', 'carrier_call_log',
      ]);
      expect(record.agent_config).toEqual(defaultSeed().agents?.find((a) => a.id === BOOKING)?.config);
      expect(record.cost_breakdown).toEqual(sessionCosts(record.agent_config as AgentConfigRead, 'voice', record.duration as number, record.chars_used as number));
      expect(record.voip).toMatchObject({ provider: 'plivo', to: '+15551230003' });
      expect(Boolean(record.error_message)).toBe(record.call_status === 'error');
      expect(['user-ended', 'agent-ended', 'api-ended', 'voicemail-message', 'voicemail-hangup', 'timeout', 'error']).toContain(record.call_status);
      expect(Array.isArray(JSON.parse(record.chat as string))).toBe(true);
    }
    const calls = served.flatMap((r) => r.function_calls ?? []) as Array<Record<string, unknown>>;
    expect(calls.some((c) => c.name === 'find_slots' && typeof (c.params as { date?: unknown }).date === 'string' && c.result === 'ok')).toBe(true);
    expect(calls.every((c) => (c.error === undefined) !== (c.result === undefined))).toBe(true);
    expect(calls.filter((c) => c.name === 'transfer_call').every((c) => c.result === 'transferred')).toBe(true);
    // In memory, the calls of one version share one config object.
    const booking = records.filter((r) => r.agent_id === BOOKING);
    expect(new Set(booking.map((r) => r.agent_config)).size).toBe(1);
  });

  it('are stamped after the agent\'s configuration was set, and carry the configuration of that moment', async () => {
    const before = Date.now() / 1000;
    const put = await client.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config: { prompt: 'A new prompt.' } });
    expect(put.status).toBe(200);
    const summary = await emulator.control.traffic({ profile: 'light', seed: 9, agents: ['Front desk'] });
    const mine = summary.agents[0]!;
    expect(summary.agents).toHaveLength(1);
    expect(mine.from).toBeGreaterThan(before);
    const records = emulator.control.state().call_logs.filter((r) => r.agent_id === FRONT_DESK && r.ts >= mine.from);
    expect(records).toHaveLength(40);
    expect(records.every((r) => (r.agent_config as AgentConfigRead).prompt === 'A new prompt.')).toBe(true);
    expect(mine.config_hash).toBe(configurationHash(records[0]!.agent_config as Record<string, unknown>));
    // A later change to the agent does not reach the records already made.
    await client.put(`/agents/${FRONT_DESK}`, { name: 'Front desk', config: { prompt: 'Another prompt.' } });
    expect(emulator.control.state().call_logs.filter((r) => r.agent_id === FRONT_DESK && r.ts >= mine.from && r.ts <= mine.until).every((r) => (r.agent_config as AgentConfigRead).prompt === 'A new prompt.')).toBe(true);
    // A window that ended before the change gives that agent nothing.
    const early = await emulator.control.traffic({ profile: 'light', agents: [FRONT_DESK], until: before - 10 });
    expect(early).toMatchObject({ calls: 0, skipped: [{ agent_id: FRONT_DESK, reason: 'its configuration was set after the end of the window' }] });
  });

  it('cost what a session of the same length and characters costs (one rule for both)', async () => {
    const registered = await client.post('/register_call', { agent_id: BOOKING });
    const messages = [{ role: 'assistant', content: 'Hi! I can help you book.' }, { role: 'user', content: 'Tomorrow at nine, please.' }];
    const { record } = await emulator.control.endCall(registered.body.call_id, 'user-ended', { duration: 42, messages });
    expect(record.cost_breakdown).toEqual(sessionCosts(record.agent_config as AgentConfigRead, 'voice', 42, record.chars_used as number));
  });

  it('refuses a bad request over HTTP with every problem', async () => {
    const res = await clientFor(emulator).post('/_emulator/traffic', { profile: { window: 0 }, calls: 0, agents: ['nobody'], colour: 1 }, { auth: null });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/^Invalid traffic request: colour: is not a known field.*calls: must be a whole number/);
    const past = await clientFor(emulator).post('/_emulator/traffic', { calls: 1, until: 99_999_999_999_999_999 }, { auth: null });
    expect(past.status).toBe(400);
    expect(past.body.detail).toBe('Invalid traffic request: until: must be Unix seconds, at most 253402300799 (the end of the year 9999)');
    const unknownAgent = await clientFor(emulator).post('/_emulator/traffic', { agents: ['nobody'] }, { auth: null });
    expect(unknownAgent.status).toBe(400);
    expect(unknownAgent.body).toMatchObject({ detail: 'Invalid traffic request: agents: there is no agent with the id or name "nobody"', unknown_agents: ['nobody'] });
    expect(unknownAgent.body.agents).toContainEqual({ id: FRONT_DESK, name: 'Front desk' });
    const ok = await clientFor(emulator).post('/_emulator/traffic', { profile: 'light', calls: 2, agents: [BOOKING], seed: 'abc', until: UNTIL }, { auth: null });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ profile: 'light', seed: 'abc', calls: 2, agents: [{ agent_id: BOOKING, calls: 2 }] });
  });
});

describe('what a data file can take of a request', () => {
  /** A record's JSON values as the data file's reader counts them, its config the smallest one written (`{}`, where a shared one is `{"$shared_config": n}`). */
  const valuesOf = (record: CallRecord) => {
    const counter = new JsonCounter({ maxValues: Number.MAX_SAFE_INTEGER, maxDepth: 128 });
    counter.feed(Buffer.from(JSON.stringify({ ...record, agent_config: {} })));
    return counter.values;
  };

  it('counts every synthetic call at MIN_SYNTHETIC_CALL_JSON_VALUES values at least, and the smallest at exactly that', async () => {
    const config = defaultSeed().agents?.find((a) => a.id === BOOKING)?.config as AgentConfigRead;
    const agents = [
      { id: 'a', name: '', config: {} as AgentConfigRead, configSetAt: undefined },
      { id: BOOKING, name: 'Booking', config, configSetAt: undefined, phone: { number: '+15550001111', provider: 'twilio' } },
    ];
    const { records } = await generateTraffic({ profile: resolveTrafficProfile('volatile'), calls: 2000, seed: 1, until: UNTIL, agents });
    const counts = records.map(valuesOf);
    expect(Math.min(...counts)).toBe(MIN_SYNTHETIC_CALL_JSON_VALUES);
  });

  it('refuses, with a data file, a request of more calls than it can hold, before one is made', async () => {
    const dataFile = path.join(await tempDir(), 'account.json');
    const kept = await startEmulator({ quiet: true, dataFile });
    try {
      const calls = Math.floor(MAX_DATA_FILE_TRAFFIC_CALLS / 9) + 1;
      await expect(kept.control.traffic({ calls })).rejects.toBeInstanceOf(TrafficOverDataFileError);
      const res = await clientFor(kept).post('/_emulator/traffic', { calls }, { auth: null });
      expect(res.status).toBe(400);
      expect(res.body.detail).toBe(
        `Invalid traffic request: calls: ${calls * 9} calls (9 agents × ${calls}) are more than the emulator's data file can hold, at most ${MAX_DATA_FILE_TRAFFIC_CALLS} calls; ask for fewer per agent, or for fewer agents, or use an emulator without a data file`,
      );
      expect(kept.control.state().call_logs).toHaveLength(40);
    } finally {
      await kept.close();
    }
  });
});

describe('a traffic request meeting other requests', () => {
  it('names the data file\'s bound, not the request\'s, for a request past both', async () => {
    const kept = await startEmulator({ quiet: true, dataFile: path.join(await tempDir(), 'account.json') });
    try {
      await expect(kept.control.traffic({ calls: 300_000 })).rejects.toBeInstanceOf(TrafficOverDataFileError);
    } finally {
      await kept.close();
    }
  });

  it('adds none of its calls to an account reset while they were made', async () => {
    const { emulator } = await startTestEmulator();
    try {
      // The reset lands at the first slice's yield: after the request read the agents, before it adds a call.
      const traffic = emulator.control.traffic({ calls: 2000, until: UNTIL });
      const reset = emulator.control.reset();
      await expect(traffic).rejects.toThrow('the account was reset or seeded while the calls were made, and none was added; ask again');
      await reset;
      expect(synthetic(emulator)).toEqual([]);
    } finally {
      await emulator.close();
    }
  });
});

describe('a large call log', () => {
  let emulator: RunningEmulator;
  let client: Client;
  beforeAll(async () => {
    ({ emulator, client } = await startTestEmulator());
    // 2,000 calls per agent, squeezed into 20 s: many share a ts (millisecond resolution).
    await emulator.control.traffic({ profile: { window: '20s' }, calls: 2000, until: UNTIL });
  });
  afterAll(() => emulator?.close());

  async function walk(query: string, limit: number): Promise<CallRecord[]> {
    const seen: CallRecord[] = [];
    let cursor = 0;
    do {
      const page = await client.get(`/call-logs?limit=${limit}${query}${cursor ? `&start_after_ts=${cursor}` : ''}`);
      seen.push(...page.body.histories);
      cursor = page.body.next_cursor;
    } while (cursor);
    return seen;
  }

  it('pages through every record once, newest first, with or without filters', async () => {
    const all = emulator.control.state().call_logs;
    expect(all).toHaveLength(40 + 18_000);
    const everything = await walk('', 100);
    expect(everything.map((r) => r.call_id)).toEqual(all.map((r) => r.call_id));
    const from = UNTIL - 12;
    const to = UNTIL - 5;
    const expected = all.filter((r) => r.agent_id === BOOKING && r.ts >= from && r.ts <= to && r.call_status === 'error');
    expect(expected.length).toBeGreaterThan(10);
    const filtered = await walk(`&agent_id=${BOOKING}&start_time=${from}&end_time=${to}&call_status=error`, 7);
    expect(filtered.map((r) => r.call_id)).toEqual(expected.map((r) => r.call_id));
  });

  it('keeps the order one insert at a time would give, merging many at once', () => {
    const records = emulator.control.state().call_logs.slice(0, 3000);
    const one = new CallLog();
    const many = new CallLog();
    const first = records.filter((_, i) => i % 3 === 0);
    const rest = records.filter((_, i) => i % 3 !== 0);
    for (const record of [...first, ...rest]) one.insert(record);
    many.insertMany(first);
    many.insertMany(rest);
    many.insertMany(first.slice(0, 10)); // replaces, as insert does
    for (const record of first.slice(0, 10)) one.insert(record);
    expect(many.newestFirst()).toEqual(one.newestFirst());
    expect([...many.range({ atMost: records[100]!.ts, atLeast: records[200]!.ts })]).toEqual(one.newestFirst().filter((r) => r.ts <= records[100]!.ts && r.ts >= records[200]!.ts));
  });

  it('writes a version\'s config once in the data file, and reads it back shared', async () => {
    const dataFile = path.join(await tempDir(), 'account.json');
    const persisted = await startEmulator({ quiet: true, dataFile });
    try {
      await persisted.control.traffic({ profile: 'light', calls: 500, until: UNTIL });
      await persisted.control.flush();
    } finally {
      await persisted.close();
    }
    const data = JSON.parse(await readFile(dataFile, 'utf8'));
    expect(data.version).toBe(3);
    // Nine versions' traffic, and the default seed's 40 calls of two configs (shared when loaded).
    expect(data.shared_configs).toHaveLength(11);
    expect(data.call_logs.filter((r: { agent_config?: { $shared_config?: number } }) => r.agent_config?.$shared_config !== undefined)).toHaveLength(4540);
    const reopened = await startEmulator({ quiet: true, dataFile });
    try {
      const records = reopened.control.state().call_logs;
      expect(records).toHaveLength(4540);
      expect(records.find((r) => r.agent_id === BOOKING && r.ts > UNTIL - 3600)?.agent_config).toEqual(defaultSeed().agents?.find((a) => a.id === BOOKING)?.config);
      const page = await clientFor(reopened).get('/call-logs?limit=3');
      expect(page.body.histories[0].agent_config).not.toHaveProperty('$shared_config');
    } finally {
      await reopened.close();
    }
    // A record naming a shared config the file does not hold: one clear error, as for any damaged file.
    data.call_logs[0].agent_config = { $shared_config: 99 };
    await writeFile(dataFile, JSON.stringify(data));
    await expect(startEmulator({ quiet: true, dataFile })).rejects.toMatchObject({ code: 'emulator_data_invalid', message: expect.stringContaining('call_logs[0].agent_config.$shared_config is the number 99, where the index of a config in shared_configs belongs.') });
  });

  it('still reads a version 1 data file (every config inline, no config times)', async () => {
    const dataFile = path.join(await tempDir(), 'account.json');
    const first = await startEmulator({ quiet: true, dataFile });
    await first.close();
    const data = JSON.parse(await readFile(dataFile, 'utf8'));
    data.version = 1;
    delete data.shared_configs;
    delete data.agent_config_set_at;
    await writeFile(dataFile, JSON.stringify(data));
    const reopened = await startEmulator({ quiet: true, dataFile });
    try {
      expect(reopened.control.state().call_logs).toHaveLength(40);
      expect((await reopened.control.traffic({ profile: 'light', calls: 1, until: UNTIL })).calls).toBe(9);
    } finally {
      await reopened.close();
    }
  });
});
