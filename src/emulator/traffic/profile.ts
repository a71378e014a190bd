/**
 * Traffic profiles: what synthetic calls look like (docs/traffic.md). A profile is a built-in name
 * or an object that may `extend` a built-in; every problem is reported at once, each with its path.
 */
import { END_CALL_STATUSES, type EndCallStatus } from '../types.js';
import { durationSeconds } from '../../util/duration.js';
import { isPlainObject } from '../../util/json-object.js';
import { plural } from '../../util/plural.js';

/** The end-of-call statuses a phone call can have (a chat's `chat_completion` is not one). */
export type CallOutcome = Exclude<EndCallStatus, 'chat_completion'>;
export const CALL_OUTCOMES = END_CALL_STATUSES.filter((status): status is CallOutcome => status !== 'chat_completion');

/** What a rule may scale: an outcome's weight, or one of these parameters. */
const SCALABLE_PARAMETERS = ['duration', 'chars', 'tool_calls', 'tool_failures', 'transfers'] as const;

export interface TrafficRule {
  /** Every condition given must hold for the rule to apply. */
  when: {
    /** The agent's prompt contains this text (case-insensitive). */
    prompt_contains?: string;
    /** The agent's id or name. */
    agent?: string;
  };
  /** Multipliers (≥ 0): outcome weights by status, and the parameters of SCALABLE_PARAMETERS. */
  scale: Record<string, number>;
}

export interface TrafficProfile {
  name: string;
  /** Calls generated for each agent (a request's `calls` overrides it). */
  calls_per_agent: number;
  /** Seconds: calls are spread over this window ending at `until` (now), never before the agent's config was set. */
  window_seconds: number;
  /** Relative weights of the end-of-call statuses (they need not sum to 1). */
  outcomes: Record<CallOutcome, number>;
  duration: {
    /** Median seconds of a call. */
    median_seconds: number;
    /** Sigma of the logarithm: 0 gives every call the median. */
    spread: number;
    /** Multipliers of the median by status (voicemail and errors are short). */
    by_status: Partial<Record<CallOutcome, number>>;
  };
  /** Characters spoken per second of call (both sides): the base of tts and llm costs. */
  chars_per_second: number;
  tools: {
    /** Mean calls of each of the agent's tools per conversation (Poisson). */
    calls_per_conversation: number;
    /** Fraction of tool calls that fail. */
    failure_rate: number;
  };
  /** Fraction of conversations that end in a transfer, for agents that can transfer. */
  transfer_rate: number;
  /** Sigma of each configuration version's random effect on the log scale (0: versions do not differ by themselves). */
  version_effect: number;
  rules: TrafficRule[];
}

const STEADY: TrafficProfile = {
  name: 'steady',
  calls_per_agent: 200,
  window_seconds: 86_400,
  outcomes: {
    'user-ended': 0.58,
    'agent-ended': 0.22,
    'api-ended': 0.02,
    'voicemail-message': 0.05,
    'voicemail-hangup': 0.03,
    timeout: 0.05,
    error: 0.05,
  },
  duration: { median_seconds: 95, spread: 0.6, by_status: { 'voicemail-message': 0.3, 'voicemail-hangup': 0.1, error: 0.4, timeout: 1.6 } },
  chars_per_second: 14,
  tools: { calls_per_conversation: 0.8, failure_rate: 0.06 },
  transfer_rate: 0.08,
  version_effect: 0.25,
  rules: [],
};

export const BUILT_IN_PROFILES: Readonly<Record<string, TrafficProfile>> = {
  steady: STEADY,
  /** Few calls over an hour: quick to generate, for a first look. */
  light: { ...STEADY, name: 'light', calls_per_agent: 40, window_seconds: 3600 },
  /** Versions differ a lot by themselves: a prompt change visibly moves every rate. */
  volatile: { ...STEADY, name: 'volatile', calls_per_agent: 400, version_effect: 0.8 },
};

export class TrafficProfileError extends Error {
  constructor(readonly problems: string[]) {
    super(problems.join('; '));
  }
}

/** An agent of the account, as a refusal lists it: two agents may have one name, never one id. */
export interface TrafficAgentNamed {
  id: string;
  name: string;
}

/** A traffic request names agents the account does not have: `unknown` as asked, and the account's agents (to suggest a name, or list them). */
export class TrafficAgentsUnknownError extends TrafficProfileError {
  constructor(
    readonly unknown: string[],
    readonly agents: TrafficAgentNamed[],
  ) {
    super(unknown.map((agent) => `agents: there is no agent with the id or name ${JSON.stringify(agent)}`));
  }
}

/** A traffic request names agents by a name several of the account's agents have: which of them is meant is not the emulator's guess. */
export class TrafficAgentsAmbiguousError extends TrafficProfileError {
  constructor(readonly ambiguous: Array<{ name: string; ids: string[] }>) {
    super(ambiguous.map(({ name, ids }) => `agents: ${JSON.stringify(name)} is the name of ${ids.length} agents (${ids.join(', ')}); give one's id`));
  }
}

/**
 * A traffic request of more calls than one request adds (`max`): refused before a call is made.
 * `calls` is `agents` × `callsPerAgent`. The profile is not at fault: the count asked for is.
 */
export class TrafficOverRunError extends TrafficProfileError {
  constructor(
    readonly calls: number,
    readonly agents: number,
    readonly callsPerAgent: number,
    readonly max: number,
    problem = `calls: ${calls} calls (${plural(agents, 'agent')} × ${callsPerAgent}) in one request are more than ${max}; ask for fewer per agent, or for fewer agents`,
  ) {
    super([problem]);
  }
}

/**
 * A traffic request whose calls an emulator that keeps its account in a data file could never save:
 * refused before a call is made; `max` the most the file holds.
 */
export class TrafficOverDataFileError extends TrafficOverRunError {
  constructor(calls: number, agents: number, callsPerAgent: number, max: number) {
    super(calls, agents, callsPerAgent, max, `calls: ${calls} calls (${plural(agents, 'agent')} × ${callsPerAgent}) are more than the emulator's data file can hold, at most ${max} calls; ask for fewer per agent, or for fewer agents, or use an emulator without a data file`);
  }
}

/**
 * The longest window calls are spread over: a year (of 366 days). A longer one is history no report
 * looks at, and one long enough starts before 1970, where a call log holds no call.
 */
export const MAX_WINDOW_SECONDS = 366 * 86_400;

/** `window`: seconds, or a duration such as `90m`, `24h`, `7d`; undefined when it is neither, or not above 0. */
function windowSeconds(value: unknown): number | undefined {
  const seconds = typeof value === 'number' ? value : typeof value === 'string' ? durationSeconds(value.trim()) : undefined;
  return seconds !== undefined && seconds > 0 && Number.isFinite(seconds) ? seconds : undefined;
}

/**
 * The largest weight or multiplier: outcome weights, `duration.by_status` factors, and rules'
 * scales, alone and multiplied together (model.ts). Without it, weights sum to Infinity, and every
 * call draws the last status weighed; durations, characters and credits overflow to Infinity, which
 * a record holds as null and every reader of the call log refuses.
 */
export const MAX_MULTIPLIER = 1000;
/** The longest median call: a day. */
export const MAX_MEDIAN_SECONDS = 86_400;

type Problems = string[];

function checkNumber(value: unknown, at: string, problems: Problems, { min = 0, max = Number.POSITIVE_INFINITY, integer = false } = {}): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value) || (integer && !Number.isInteger(value)) || value < min || value > max) {
    const range = max === Number.POSITIVE_INFINITY ? `${min} or more` : `from ${min} to ${max}`;
    problems.push(`${at}: must be ${integer ? 'a whole number' : 'a number'} ${range}, not ${JSON.stringify(value)}`);
    return undefined;
  }
  return value;
}

function checkKeys(value: Record<string, unknown>, allowed: readonly string[], at: string, problems: Problems): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) problems.push(`${at ? `${at}.` : ''}${key}: is not a known field (expected ${allowed.join(', ')})`);
  }
}

function asObject(value: unknown, at: string, problems: Problems): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) {
    problems.push(`${at}: must be a mapping`);
    return undefined;
  }
  return value;
}

function checkOutcomes(value: unknown, base: TrafficProfile['outcomes'], problems: Problems): TrafficProfile['outcomes'] {
  const given = asObject(value, 'outcomes', problems);
  if (!given) return { ...base };
  checkKeys(given, CALL_OUTCOMES, 'outcomes', problems);
  const outcomes = { ...base };
  for (const status of CALL_OUTCOMES) {
    if (given[status] === undefined) continue;
    const weight = checkNumber(given[status], `outcomes.${status}`, problems, { max: MAX_MULTIPLIER });
    if (weight !== undefined) outcomes[status] = weight;
  }
  if (Object.values(outcomes).every((weight) => weight === 0)) problems.push('outcomes: at least one status needs a weight above 0');
  return outcomes;
}

function checkDuration(value: unknown, base: TrafficProfile['duration'], problems: Problems): TrafficProfile['duration'] {
  const given = asObject(value, 'duration', problems);
  if (!given) return { ...base, by_status: { ...base.by_status } };
  checkKeys(given, ['median_seconds', 'spread', 'by_status'], 'duration', problems);
  const duration = { ...base, by_status: { ...base.by_status } };
  if (given.median_seconds !== undefined) duration.median_seconds = checkNumber(given.median_seconds, 'duration.median_seconds', problems, { min: 1, max: MAX_MEDIAN_SECONDS }) ?? base.median_seconds;
  if (given.spread !== undefined) duration.spread = checkNumber(given.spread, 'duration.spread', problems, { max: 3 }) ?? base.spread;
  const byStatus = asObject(given.by_status, 'duration.by_status', problems);
  if (byStatus) {
    checkKeys(byStatus, CALL_OUTCOMES, 'duration.by_status', problems);
    for (const [status, factor] of Object.entries(byStatus)) {
      const checked = checkNumber(factor, `duration.by_status.${status}`, problems, { max: MAX_MULTIPLIER });
      if (checked !== undefined && (CALL_OUTCOMES as readonly string[]).includes(status)) duration.by_status[status as CallOutcome] = checked;
    }
  }
  return duration;
}

function checkTools(value: unknown, base: TrafficProfile['tools'], problems: Problems): TrafficProfile['tools'] {
  const given = asObject(value, 'tools', problems);
  if (!given) return { ...base };
  checkKeys(given, ['calls_per_conversation', 'failure_rate'], 'tools', problems);
  return {
    calls_per_conversation: given.calls_per_conversation === undefined ? base.calls_per_conversation : (checkNumber(given.calls_per_conversation, 'tools.calls_per_conversation', problems, { max: 20 }) ?? 0),
    failure_rate: given.failure_rate === undefined ? base.failure_rate : (checkNumber(given.failure_rate, 'tools.failure_rate', problems, { max: 1 }) ?? 0),
  };
}

function checkRule(value: unknown, at: string, problems: Problems): TrafficRule | undefined {
  const rule = asObject(value, at, problems);
  if (!rule) {
    if (value === undefined) problems.push(`${at}: must be a mapping`);
    return undefined;
  }
  checkKeys(rule, ['when', 'scale'], at, problems);
  const when = asObject(rule.when, `${at}.when`, problems) ?? {};
  checkKeys(when, ['prompt_contains', 'agent'], `${at}.when`, problems);
  for (const key of ['prompt_contains', 'agent'] as const) {
    if (when[key] !== undefined && (typeof when[key] !== 'string' || when[key] === '')) problems.push(`${at}.when.${key}: must be non-empty text`);
  }
  if (Object.keys(when).length === 0) problems.push(`${at}.when: needs prompt_contains or agent (a rule for every agent belongs in the profile itself)`);
  const scale = asObject(rule.scale, `${at}.scale`, problems);
  if (!scale || Object.keys(scale).length === 0) problems.push(`${at}.scale: needs at least one multiplier`);
  const allowed = [...CALL_OUTCOMES, ...SCALABLE_PARAMETERS];
  for (const [key, factor] of Object.entries(scale ?? {})) {
    if (!(allowed as readonly string[]).includes(key)) problems.push(`${at}.scale.${key}: is not a known field (expected ${allowed.join(', ')})`);
    checkNumber(factor, `${at}.scale.${key}`, problems, { max: MAX_MULTIPLIER });
  }
  return { when: when as TrafficRule['when'], scale: (scale ?? {}) as Record<string, number> };
}

const PROFILE_FIELDS = ['name', 'extends', 'calls_per_agent', 'window', 'outcomes', 'duration', 'chars_per_second', 'tools', 'transfer_rate', 'version_effect', 'rules'];

function baseOf(given: Record<string, unknown>, problems: Problems): TrafficProfile {
  if (given.extends === undefined) return STEADY;
  const base = typeof given.extends === 'string' ? BUILT_IN_PROFILES[given.extends] : undefined;
  if (!base) problems.push(`extends: must name a built-in profile (${Object.keys(BUILT_IN_PROFILES).join(', ')}), not ${JSON.stringify(given.extends)}`);
  return base ?? STEADY;
}

/** A complete profile from a built-in name or a profile object; throws TrafficProfileError listing every problem. */
export function resolveTrafficProfile(value: unknown): TrafficProfile {
  if (typeof value === 'string') {
    const builtIn = BUILT_IN_PROFILES[value];
    if (!builtIn) throw new TrafficProfileError([`there is no built-in profile named ${JSON.stringify(value)} (there are ${Object.keys(BUILT_IN_PROFILES).join(', ')})`]);
    return structuredClone(builtIn);
  }
  if (!isPlainObject(value)) throw new TrafficProfileError(['a profile must be a built-in name or a mapping of its fields']);
  const problems: Problems = [];
  checkKeys(value, PROFILE_FIELDS, '', problems);
  const base = baseOf(value, problems);
  const profile: TrafficProfile = { ...structuredClone(base), name: typeof value.name === 'string' && value.name !== '' ? value.name : `${base.name} (custom)` };
  if (value.name !== undefined && (typeof value.name !== 'string' || value.name === '')) problems.push('name: must be non-empty text');
  if (value.calls_per_agent !== undefined) profile.calls_per_agent = checkNumber(value.calls_per_agent, 'calls_per_agent', problems, { min: 1, max: 1_000_000, integer: true }) ?? base.calls_per_agent;
  if (value.window !== undefined) {
    const seconds = windowSeconds(value.window);
    if (seconds === undefined) problems.push(`window: must be seconds above 0 or a duration such as 90m, 24h, 7d, not ${JSON.stringify(value.window)}`);
    else if (seconds > MAX_WINDOW_SECONDS) problems.push(`window: must be at most 366d (${MAX_WINDOW_SECONDS} seconds), not ${JSON.stringify(value.window)}`);
    else profile.window_seconds = seconds;
  }
  profile.outcomes = checkOutcomes(value.outcomes, base.outcomes, problems);
  profile.duration = checkDuration(value.duration, base.duration, problems);
  if (value.chars_per_second !== undefined) profile.chars_per_second = checkNumber(value.chars_per_second, 'chars_per_second', problems, { max: 1000 }) ?? base.chars_per_second;
  profile.tools = checkTools(value.tools, base.tools, problems);
  if (value.transfer_rate !== undefined) profile.transfer_rate = checkNumber(value.transfer_rate, 'transfer_rate', problems, { max: 1 }) ?? base.transfer_rate;
  if (value.version_effect !== undefined) profile.version_effect = checkNumber(value.version_effect, 'version_effect', problems, { max: 3 }) ?? base.version_effect;
  if (value.rules !== undefined) {
    if (!Array.isArray(value.rules)) problems.push('rules: must be a list');
    else profile.rules = value.rules.flatMap((rule, index) => checkRule(rule, `rules[${index}]`, problems) ?? []);
  }
  if (problems.length > 0) throw new TrafficProfileError(problems);
  return profile;
}
