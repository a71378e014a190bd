/**
 * Synthetic calls: for each agent, records shaped as real sessions' (sessions.ts), drawn from its
 * version model. Pure: the same request gives the same records, ids included.
 */
import type { AgentConfigRead } from '../../schema/types.gen.js';
import { configurationHash } from '../../history/config-hash.js';
import { sessionCosts } from '../costs.js';
import type { AgentTrafficSummary, CallRecord, TrafficSummary } from '../types.js';
import { CALL_OUTCOMES, type CallOutcome, type TrafficProfile } from './profile.js';
import { RandomStream } from './random.js';
import { versionModel, type VersionModel } from './model.js';
import { inSlice } from '../../util/sync-slices.js';

export interface TrafficAgent {
  id: string;
  name: string;
  config: AgentConfigRead;
  /** When the agent's current configuration was stored (Unix seconds); undefined when not known (a seed). */
  configSetAt: number | undefined;
  /** The account phone that answers for the agent, if any: calls come in to it. */
  phone?: { number: string; provider: string } | undefined;
}

interface TrafficRequest {
  profile: TrafficProfile;
  /** Calls per agent (default: the profile's `calls_per_agent`). */
  calls?: number | undefined;
  seed: string | number;
  /** The end of the window, Unix seconds (default: now). */
  until: number;
  agents: TrafficAgent[];
}

/**
 * JSON values a synthetic call's record holds at the least, as the data file counts them (values, not
 * keys; the record itself one): its fixed fields, three cost items of three, and `agent_config` and
 * `function_calls` at their smallest. What a data file can take of a run is derived from it.
 */
export const MIN_SYNTHETIC_CALL_JSON_VALUES = 35;

/** Shared by every synthetic record: nothing ever changes them (frozen, so a change would throw). */
const NO_RECORDING = Object.freeze({ recording_url: '' });
const EMPTY = Object.freeze({}) as Record<string, unknown>;
const NO_CALLS = Object.freeze([]) as unknown as Array<Record<string, unknown>>;

const CALLER_LINES = [
  'Hi, I would like to book an appointment.',
  'What time do you open tomorrow?',
  'Can I change my appointment?',
  'I have a question about my bill.',
  'Can I speak to someone, please?',
  'Do you take new patients?',
];

const ERROR_MESSAGES = [
  'The language model did not answer in time.',
  'Speech recognition stopped responding.',
  'The telephony provider ended the call unexpectedly.',
];

const TOOL_ERRORS = ['the tool answered 503', 'the tool did not answer within its timeout', 'the tool answered 400: invalid parameters'];

/** A made-up value for a tool parameter of this type. */
function sampleValue(type: string | undefined, random: RandomStream): unknown {
  if (type === 'number' || type === 'integer') return 1 + random.below(20);
  if (type === 'boolean') return random.chance(0.5);
  return `sample-${random.hex(4)}`;
}

function functionCalls(config: AgentConfigRead, model: VersionModel, outcome: CallOutcome, random: RandomStream): { calls: Array<Record<string, unknown>>; failures: number; transferred: boolean } {
  const calls: Array<Record<string, unknown>> = [];
  let failures = 0;
  if (outcome.startsWith('voicemail')) return { calls, failures, transferred: false };
  for (const tool of config.tools ?? []) {
    if (!tool.name) continue;
    for (let n = random.poisson(model.toolCallsPerConversation); n > 0; n--) {
      const params = Object.fromEntries((tool.params ?? []).filter((p) => p.name).map((p) => [p.name as string, sampleValue(p.type, random)]));
      if (random.chance(model.toolFailureRate)) {
        failures++;
        calls.push({ name: tool.name, params, error: TOOL_ERRORS[random.below(TOOL_ERRORS.length)] });
      } else calls.push({ name: tool.name, params, result: 'ok' });
    }
  }
  const transferred = outcome !== 'error' && random.chance(model.transferRate);
  if (transferred) calls.push({ name: 'transfer_call', params: { phone: config.flow?.call_transfer?.phone ?? '' }, result: 'transferred' });
  return { calls, failures, transferred };
}

/** The transcripts a version's calls can have, as JSON text made once per version. */
function transcriptsOf(config: AgentConfigRead): { voicemail: string; conversations: string[] } {
  return {
    voicemail: JSON.stringify([{ role: 'assistant', content: config.flow?.voicemail?.message || 'Please call us back.' }]),
    conversations: CALLER_LINES.map((caller) =>
      JSON.stringify([
        { role: 'assistant', content: config.first_message || 'Hello! How can I help?' },
        { role: 'user', content: caller },
        { role: 'assistant', content: 'Let me help you with that.' },
      ]),
    ),
  };
}

function transcript(transcripts: ReturnType<typeof transcriptsOf>, outcome: CallOutcome, random: RandomStream): string {
  if (outcome === 'voicemail-hangup') return '[]';
  if (outcome === 'voicemail-message') return transcripts.voicemail;
  return transcripts.conversations[random.below(transcripts.conversations.length)] as string;
}

/** The window of an agent's calls in whole milliseconds: after its config was set, up to `until`. */
function windowOf(agent: TrafficAgent, profile: TrafficProfile, until: number): { from: number; to: number } | undefined {
  const to = Math.floor(until * 1000);
  let from = Math.ceil((until - profile.window_seconds) * 1000);
  // Strictly after the moment the configuration was stored: a chart puts every call after its deploy.
  if (agent.configSetAt !== undefined) from = Math.max(from, Math.floor(agent.configSetAt * 1000) + 1);
  return from <= to ? { from, to } : undefined;
}

interface AgentBatch {
  records: CallRecord[];
  summary: AgentTrafficSummary;
}

/** What every call of one agent's version is drawn from, and the summary its calls are counted in. */
interface VersionCalls {
  agent: TrafficAgent;
  config: AgentConfigRead;
  transcripts: ReturnType<typeof transcriptsOf>;
  model: VersionModel;
  random: RandomStream;
  summary: AgentTrafficSummary;
}

/**
 * Calls made in one job of a slice (sync-slices.ts): a few milliseconds of work, so a Ctrl-C waits
 * no longer than that for the generation to stop.
 */
const CALLS_PER_JOB = 500;

/** One call at `stamp` (ms), counted in the summary. */
function callRecord(version: VersionCalls, stamp: number): CallRecord {
  const { agent, config, transcripts, model, random, summary } = version;
  const outcome = CALL_OUTCOMES[random.weighted(model.outcomeWeights, model.outcomeTotal)] as CallOutcome;
  const duration = Math.max(1, Math.round(random.logNormal(model.medianSeconds[outcome], model.durationSpread)));
  const chars = Math.round(duration * model.charsPerSecond * random.logNormal(1, 0.2));
  const calls = functionCalls(config, model, outcome, random);
  const caller = `+1555${String(random.below(10_000_000)).padStart(7, '0')}`;
  const record: CallRecord = {
    agent_id: agent.id,
    agent_config: config as Record<string, unknown>,
    duration,
    ts: stamp / 1000,
    chat: transcript(transcripts, outcome, random),
    chars_used: chars,
    session_id: `ses_${random.hex(20)}`,
    call_id: `call_${random.hex(20)}`,
    cost_breakdown: sessionCosts(config, 'voice', duration, chars),
    voip: agent.phone ? { provider: agent.phone.provider, from: caller, to: agent.phone.number } : { provider: 'sip', from: caller, to: '' },
    recording: NO_RECORDING,
    metadata: EMPTY,
    function_calls: calls.calls.length > 0 ? calls.calls : NO_CALLS,
    call_status: outcome,
    campaign_id: null,
    error_message: outcome === 'error' ? (ERROR_MESSAGES[random.below(ERROR_MESSAGES.length)] as string) : null,
    call_metrics: EMPTY,
    carrier_call_log: EMPTY,
  };
  summary.outcomes[outcome] = (summary.outcomes[outcome] ?? 0) + 1;
  summary.transfers += calls.transferred ? 1 : 0;
  summary.tool_calls += calls.calls.length - (calls.transferred ? 1 : 0);
  summary.tool_failures += calls.failures;
  return record;
}

/** The calls of one agent's version, oldest first, made a job at a time. */
async function agentCalls(agent: TrafficAgent, request: TrafficRequest, window: { from: number; to: number }, model: VersionModel, configHash: string): Promise<AgentBatch> {
  const count = request.calls ?? request.profile.calls_per_agent;
  const random = new RandomStream('traffic-calls', request.seed, agent.id, configHash, window.to);
  // One copy of the configuration for every call of this version: later changes to the agent never reach these records.
  const config = structuredClone(agent.config);
  const summary: AgentTrafficSummary = {
    agent_id: agent.id, name: agent.name, config_hash: configHash, calls: count, from: window.from / 1000, until: window.to / 1000,
    outcomes: {}, transfers: 0, tool_calls: 0, tool_failures: 0, rules: model.rulesApplied,
  };
  const version: VersionCalls = { agent, config, transcripts: transcriptsOf(config), model, random, summary };
  // The stamps first, sorted (a typed array sorts numbers natively): the records come out oldest first.
  const stamps = new Float64Array(count);
  await inJobs(count, (i) => (stamps[i] = window.from + random.below(window.to - window.from + 1)));
  await inSlice(() => stamps.sort());
  const records: CallRecord[] = new Array(count);
  await inJobs(count, (i) => (records[i] = callRecord(version, stamps[i] as number)));
  return { records, summary };
}

/** `step` for each index below `count`, in order, CALLS_PER_JOB of them to a job. */
async function inJobs(count: number, step: (index: number) => unknown): Promise<void> {
  for (let start = 0; start < count; start += CALLS_PER_JOB) {
    await inSlice(() => {
      for (let i = start; i < Math.min(count, start + CALLS_PER_JOB); i++) step(i);
    });
  }
}

/**
 * Lists each sorted by ts, as one list sorted by ts: on equal ts the earlier list first, each list
 * in its order (the sort is stable). The sort finds the lists as runs already in order; a merge that
 * looked at every list's head for each record grew with the number of agents times the calls.
 */
function mergeByTs(lists: CallRecord[][]): CallRecord[] {
  return lists.flat().sort((a, b) => a.ts - b.ts);
}

/** Why an agent gets no call, or what its calls are drawn from. */
function versionOf(agent: TrafficAgent, request: TrafficRequest): { skipped: string } | { window: { from: number; to: number }; model: VersionModel; configHash: string } {
  const window = windowOf(agent, request.profile, request.until);
  if (!window) return { skipped: 'its configuration was set after the end of the window' };
  const configHash = configurationHash(agent.config as Record<string, unknown>);
  const model = versionModel(request.profile, agent, agent.config, configHash);
  if (!(model.outcomeTotal > 0)) return { skipped: 'the profile\'s rules give every outcome a weight of 0' };
  return { window, model, configHash };
}

/**
 * Every agent's synthetic calls, oldest first, and what was made. The work runs in slices with the
 * event loop served between them (sync-slices.ts): a Ctrl-C stops a run of a million calls at once,
 * before anything was added, instead of once they were all made.
 */
export async function generateTraffic(request: TrafficRequest): Promise<{ records: CallRecord[]; summary: TrafficSummary }> {
  const summary: TrafficSummary = { profile: request.profile.name, seed: request.seed, until: request.until, calls: 0, agents: [], skipped: [] };
  const batches: CallRecord[][] = [];
  for (const agent of request.agents) {
    const version = await inSlice(() => versionOf(agent, request));
    if ('skipped' in version) {
      summary.skipped.push({ agent_id: agent.id, reason: version.skipped });
      continue;
    }
    const batch = await agentCalls(agent, request, version.window, version.model, version.configHash);
    batches.push(batch.records);
    summary.agents.push(batch.summary);
    summary.calls += batch.records.length;
  }
  return { records: await inSlice(() => mergeByTs(batches)), summary };
}
