/**
 * Synthetic traffic on a running emulator: checks a traffic request, generates the calls of the
 * account's agents (generate.ts) and adds them to the call log in one pass (docs/traffic.md).
 */
import { isPlainObject } from '../../util/json-object.js';
import { nowSeconds } from '../ids.js';
import type { EmulatorStore } from '../store.js';
import type { TrafficOptions, TrafficSummary } from '../types.js';
import { MAX_EMULATOR_DATA_JSON_VALUES } from '../../project-files/limits.js';
import { generateTraffic, MIN_SYNTHETIC_CALL_JSON_VALUES, type TrafficAgent } from './generate.js';
import { resolveTrafficProfile, TrafficAgentsAmbiguousError, TrafficAgentsUnknownError, TrafficOverDataFileError, TrafficOverRunError, TrafficProfileError } from './profile.js';
import { LATEST_UNIX_SECONDS } from '../../util/unix-time.js';
import { greatest } from '../../util/extremes.js';

export { MIN_SYNTHETIC_CALL_JSON_VALUES } from './generate.js';
export { BUILT_IN_PROFILES, resolveTrafficProfile, TrafficAgentsAmbiguousError, TrafficAgentsUnknownError, TrafficOverDataFileError, TrafficOverRunError, TrafficProfileError, type TrafficAgentNamed, type TrafficProfile } from './profile.js';

const OPTION_FIELDS = ['profile', 'calls', 'seed', 'until', 'agents'];
/** The most calls one request may add (for every agent together). */
export const MAX_TRAFFIC_CALLS = 2_000_000;
/**
 * The most calls one request may add to an emulator that keeps its account in a data file: the file
 * is read back with at most MAX_EMULATOR_DATA_JSON_VALUES, and each call takes at least
 * MIN_SYNTHETIC_CALL_JSON_VALUES of them, so more calls could never be saved. Refused before any is
 * made: making them first costs minutes and gigabytes for a save that is then refused.
 */
export const MAX_DATA_FILE_TRAFFIC_CALLS = Math.floor(MAX_EMULATOR_DATA_JSON_VALUES / MIN_SYNTHETIC_CALL_JSON_VALUES);

/** Checks a traffic request; throws TrafficProfileError listing every problem. */
export function checkTrafficOptions(value: unknown): TrafficOptions {
  if (!isPlainObject(value)) throw new TrafficProfileError(['the traffic request must be a mapping {profile?, calls?, seed?, until?, agents?}']);
  const problems: string[] = [];
  for (const key of Object.keys(value)) if (!OPTION_FIELDS.includes(key)) problems.push(`${key}: is not a known field (expected ${OPTION_FIELDS.join(', ')})`);
  const { calls, seed, until, agents } = value;
  if (calls !== undefined && !(Number.isInteger(calls) && (calls as number) >= 1 && (calls as number) <= 1_000_000)) problems.push(`calls: must be a whole number from 1 to 1000000, not ${JSON.stringify(calls)}`);
  if (seed !== undefined && !(typeof seed === 'string' || (typeof seed === 'number' && Number.isFinite(seed)))) problems.push('seed: must be a number or text');
  if (until !== undefined && !(typeof until === 'number' && until > 0 && until <= LATEST_UNIX_SECONDS)) problems.push(`until: must be Unix seconds, at most ${LATEST_UNIX_SECONDS} (the end of the year 9999)`);
  if (agents !== undefined && !(Array.isArray(agents) && agents.every((a) => typeof a === 'string' && a !== ''))) problems.push('agents: must be a list of agent ids or names');
  if (problems.length > 0) throw new TrafficProfileError(problems);
  return value as TrafficOptions;
}

/** The agents to give calls to, with what the generator needs to know of each. */
function trafficAgents(store: EmulatorStore, wanted: string[] | undefined): TrafficAgent[] {
  const all = [...store.agents.values()];
  if (wanted) {
    const unknown = wanted.filter((w) => !all.some((agent) => agent.id === w || agent.name === w));
    if (unknown.length > 0) throw new TrafficAgentsUnknownError(unknown, all.map((agent) => ({ id: agent.id, name: agent.name })));
    // A name two agents share (staging's and production's front desk) picks neither: calls added to both could not be taken back.
    const ambiguous = wanted
      .filter((w) => !all.some((agent) => agent.id === w))
      .map((name) => ({ name, ids: all.filter((agent) => agent.name === name).map((agent) => agent.id) }))
      .filter(({ ids }) => ids.length > 1);
    if (ambiguous.length > 0) throw new TrafficAgentsAmbiguousError(ambiguous);
  }
  const phones = [...store.phones.values()];
  return all
    .filter((agent) => !wanted || wanted.includes(agent.id) || wanted.includes(agent.name))
    .map((agent) => {
      const phone = phones.find((p) => p.agent_id === agent.id);
      return {
        id: agent.id,
        name: agent.name,
        config: agent.config,
        configSetAt: store.configSetAt.get(agent.id),
        phone: phone ? { number: phone.id, provider: phone.provider } : undefined,
      };
    });
}

/**
 * Now, or the millisecond after the latest configuration was stored when that is still now: calls
 * fall strictly after their configuration, and a traffic request right after an apply must not find
 * an empty window because both happened within one millisecond.
 */
function defaultUntil(agents: ReadonlyArray<{ configSetAt: number | undefined }>): number {
  const latest = greatest(agents.map((agent) => agent.configSetAt ?? 0), 0);
  return Math.max(nowSeconds(), (Math.floor(latest * 1000) + 1) / 1000);
}

/**
 * A window that starts before 1970 (an `until` early in 1970): its calls would be stamped before the
 * first time a call log holds, and every later read of the log refuses them. Refused before a call is made.
 */
function refuseWindowBeforeUnixEpoch(windowSeconds: number, until: number): void {
  if (until - windowSeconds >= 0) return;
  const end = new Date(until * 1000).toISOString();
  throw new TrafficProfileError([`until: the profile's window of ${windowSeconds} seconds ending at ${end} would start before 1970-01-01T00:00:00Z, the earliest time a call log holds; give a later until, or a profile with a shorter window`]);
}

/** Generates the traffic a (checked) request asks for and adds it to the store's call log. */
export async function addTraffic(store: EmulatorStore, options: TrafficOptions): Promise<TrafficSummary> {
  const profile = resolveTrafficProfile(options.profile ?? 'steady');
  const agents = trafficAgents(store, options.agents);
  const callsPerAgent = options.calls ?? profile.calls_per_agent;
  const total = agents.length * callsPerAgent;
  // An emulator with a data file holds fewer than any run may ask for: its bound is the one to name.
  if (store.dataFile !== undefined && total > MAX_DATA_FILE_TRAFFIC_CALLS) throw new TrafficOverDataFileError(total, agents.length, callsPerAgent, MAX_DATA_FILE_TRAFFIC_CALLS);
  if (total > MAX_TRAFFIC_CALLS) throw new TrafficOverRunError(total, agents.length, callsPerAgent, MAX_TRAFFIC_CALLS);
  const until = options.until ?? defaultUntil(agents);
  refuseWindowBeforeUnixEpoch(profile.window_seconds, until);
  const clears = store.clears;
  const { records, summary } = await generateTraffic({ profile, calls: options.calls, seed: options.seed ?? 1, until, agents });
  // The calls are made in slices, other requests served between them: calls of an account emptied since are not this one's.
  if (store.clears !== clears) throw new TrafficProfileError(['agents: the account was reset or seeded while the calls were made, and none was added; ask again']);
  store.callLog.insertMany(records);
  return summary;
}
