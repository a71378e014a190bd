/**
 * Fault injection: latency, 500/503 errors, 429 with Retry-After and dropped connections, per path
 * pattern. Each rule and kind of fault draws from its own seeded stream: the same seed and order of
 * requests give the same faults, and adding one kind to a rule does not move the others.
 */
import { LONGEST_TIMER_MS } from '../util/sleep.js';
import { VoxformError } from '../errors.js';
import type { FaultRule, FaultSettings } from './types.js';
import { seededRandom } from '../util/seeded-random.js';
import { matchWithBudget, nestedQuantifierAt, REGEX_TIME_BUDGET_MS, SIMPLIFY_NESTED_QUANTIFIERS, type LimitedMatch } from '../util/safe-regex.js';

/** What to do to one request. */
interface FaultDecision {
  delayMs: number;
  /** Destroy the connection before handling, or after handling instead of answering. */
  drop?: 'before' | 'after';
  /** Answer with this status instead of handling (500, 503 or 429). */
  status?: number;
  retryAfterSeconds?: number;
  /** What acted, for the request log: `latency`, `error`, `rate_limited`, `dropped`. */
  labels: string[];
}

/** Fault settings refused, from a library caller, a flag or the control surface alike. */
class FaultConfigError extends VoxformError {
  constructor(problem: string) {
    super('emulator_options_invalid', `Invalid fault settings: ${problem}`, { hint: 'Write each fault rule as docs/emulator.md shows (path, method and the fault fields).' });
  }
}

/** The longest delay a fault may add: the longest timer Node keeps. */
export const MAX_FAULT_DELAY_MS = LONGEST_TIMER_MS;

/** FNV-1a, to turn a seed given as text (or a number) into 32 bits. */
function hashSeed(seed: number | string): number {
  let h = 0x811c9dc5;
  for (const ch of String(seed)) {
    h ^= ch.codePointAt(0) as number;
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Whether a rule's path is a regular expression (written `^…` or `re:…`) rather than a glob. */
const isRegexPath = (pattern: string) => pattern.startsWith('re:') || pattern.startsWith('^');

/**
 * Compiles a rule's path: a glob, or a regular expression when written `^…` or `re:…`. A regular
 * expression comes from whoever reaches the control surface, and is matched on every request's path:
 * one that repeats a repeating group is refused (util/safe-regex.ts).
 */
export function compilePathPattern(pattern: string): RegExp {
  if (isRegexPath(pattern)) {
    const source = pattern.startsWith('re:') ? pattern.slice(3) : pattern;
    const nestedAt = nestedQuantifierAt(source);
    if (nestedAt !== undefined) {
      throw new FaultConfigError(`path ${JSON.stringify(pattern)} repeats a group that repeats (at character ${nestedAt + 1} of the expression); ${SIMPLIFY_NESTED_QUANTIFIERS}`);
    }
    try {
      return new RegExp(source);
    } catch (error) {
      throw new FaultConfigError(`path ${JSON.stringify(pattern)} is not a valid regular expression: ${(error as Error).message}`);
    }
  }
  let source = '';
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i] as string;
    if (ch === '*' && pattern[i + 1] === '*') {
      source += '.*';
      i++;
    } else if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else source += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

interface ActiveRule {
  rule: FaultRule;
  path: RegExp;
  /** A regular expression (matched with a time budget), not a glob we compiled. */
  regex: boolean;
  /** A regular expression once stopped for running too long: the rule matches nothing since. */
  stopped: boolean;
  methods: Set<string> | undefined;
  latency: () => number;
  error: () => number;
  drop: () => number;
  /** Matched requests so far, for the rate limit's cycle. */
  count: number;
}

const isRate = (v: unknown) => typeof v === 'number' && v >= 0 && v <= 1;
const isNonNegative = (v: unknown) => typeof v === 'number' && Number.isFinite(v) && v >= 0;

/** Checks fault settings from outside (the control surface, flags); throws FaultConfigError naming the problem. */
function checkFaultSettings(value: unknown): FaultSettings {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new FaultConfigError('expected {"rules": [...], "seed"?: ...}');
  const { rules, seed, ...rest } = value as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw new FaultConfigError(`unknown field ${Object.keys(rest)[0]} (expected rules and seed)`);
  if (seed !== undefined && typeof seed !== 'number' && typeof seed !== 'string') throw new FaultConfigError('seed must be a number or a string');
  if (!Array.isArray(rules)) throw new FaultConfigError('rules must be a list');
  const known = ['path', 'method', 'latencyMs', 'jitterMs', 'errorRate', 'errorStatus', 'rateLimit', 'dropRate', 'dropPhase'];
  rules.forEach((rule: unknown, i) => {
    const at = `rules[${i}]`;
    if (rule === null || typeof rule !== 'object' || Array.isArray(rule)) throw new FaultConfigError(`${at} must be an object`);
    const r = rule as Record<string, unknown>;
    for (const key of Object.keys(r)) if (!known.includes(key)) throw new FaultConfigError(`${at}.${key} is not a known field (expected ${known.join(', ')})`);
    if (typeof r.path !== 'string' || r.path === '') throw new FaultConfigError(`${at}.path must be a glob or a regular expression`);
    compilePathPattern(r.path);
    if (r.method !== undefined && typeof r.method !== 'string' && !(Array.isArray(r.method) && r.method.every((m) => typeof m === 'string'))) {
      throw new FaultConfigError(`${at}.method must be a method or a list of methods`);
    }
    for (const key of ['latencyMs', 'jitterMs'] as const) if (r[key] !== undefined && !isNonNegative(r[key])) throw new FaultConfigError(`${at}.${key} must be a number of milliseconds, 0 or more`);
    if (((r.latencyMs as number | undefined) ?? 0) + ((r.jitterMs as number | undefined) ?? 0) > MAX_FAULT_DELAY_MS) {
      throw new FaultConfigError(`${at}.latencyMs and jitterMs together must be at most ${MAX_FAULT_DELAY_MS} ms (about 24 days, the longest timer Node keeps)`);
    }
    for (const key of ['errorRate', 'dropRate'] as const) if (r[key] !== undefined && !isRate(r[key])) throw new FaultConfigError(`${at}.${key} must be a fraction between 0 and 1`);
    if (r.errorStatus !== undefined && r.errorStatus !== 500 && r.errorStatus !== 503) throw new FaultConfigError(`${at}.errorStatus must be 500 or 503`);
    if (r.dropPhase !== undefined && r.dropPhase !== 'before' && r.dropPhase !== 'after') throw new FaultConfigError(`${at}.dropPhase must be "before" or "after"`);
    if (r.rateLimit !== undefined) {
      const limit = r.rateLimit as Record<string, unknown> | null;
      if (!limit || typeof limit !== 'object') throw new FaultConfigError(`${at}.rateLimit must be {burst, retryAfterSeconds, limited?}`);
      if (!Number.isInteger(limit.burst) || (limit.burst as number) < 0) throw new FaultConfigError(`${at}.rateLimit.burst must be a whole number, 0 or more`);
      // Retry-After's delta-seconds is a whole number (RFC 9110, section 10.2.3): the service sends no other.
      if (!Number.isInteger(limit.retryAfterSeconds) || (limit.retryAfterSeconds as number) < 0) throw new FaultConfigError(`${at}.rateLimit.retryAfterSeconds must be a whole number of seconds, 0 or more`);
      if (limit.limited !== undefined && (!Number.isInteger(limit.limited) || (limit.limited as number) < 1)) throw new FaultConfigError(`${at}.rateLimit.limited must be a whole number, 1 or more`);
    }
  });
  return { rules: rules as FaultRule[], ...(seed === undefined ? {} : { seed: seed as number | string }) };
}

export class FaultInjector {
  private settings: FaultSettings = { rules: [] };
  private active: ActiveRule[] = [];

  /**
   * `defaultSeed`: used when the settings carry none (random per process unless given). `match`: how a
   * regular expression path is matched with a time budget (a stand-in in tests).
   */
  constructor(
    private readonly defaultSeed: number | string = Math.floor(Math.random() * 2 ** 32),
    private readonly match: LimitedMatch = matchWithBudget,
  ) {}

  /** Replaces every rule (the rules are checked first). */
  set(settings: FaultSettings): void {
    const checked = checkFaultSettings(settings);
    const base = hashSeed(checked.seed ?? this.defaultSeed);
    this.settings = structuredClone(checked);
    this.active = checked.rules.map((rule, index) => ({
      rule,
      path: compilePathPattern(rule.path),
      regex: isRegexPath(rule.path),
      stopped: false,
      methods: rule.method === undefined ? undefined : new Set((Array.isArray(rule.method) ? rule.method : [rule.method]).map((m) => m.toUpperCase())),
      latency: seededRandom(base ^ hashSeed(`${index}:latency`)),
      error: seededRandom(base ^ hashSeed(`${index}:error`)),
      drop: seededRandom(base ^ hashSeed(`${index}:drop`)),
      count: 0,
    }));
  }

  clear(): void {
    this.settings = { rules: [] };
    this.active = [];
  }

  get(): FaultSettings {
    return structuredClone(this.settings);
  }

  /** Whether a rule's path matches; a regular expression that runs too long is stopped for good (no request waits on it again). */
  private pathMatches(active: ActiveRule, path: string): boolean {
    if (!active.regex) return active.path.test(path);
    if (active.stopped) return false;
    const outcome = this.match(active.path, path, REGEX_TIME_BUDGET_MS);
    if ('timedOut' in outcome) active.stopped = true;
    return 'matched' in outcome && outcome.matched;
  }

  /** The faults for one request: the first matching rule decides; undefined when none matches. */
  decide(method: string, path: string): FaultDecision | undefined {
    const active = this.active.find((a) => (!a.methods || a.methods.has(method)) && this.pathMatches(a, path));
    if (!active) return undefined;
    const { rule } = active;
    const decision: FaultDecision = { delayMs: 0, labels: [] };
    active.count++;
    // Every stream advances once per matched request, so no kind of fault moves another.
    const latencyDraw = active.latency();
    const dropDraw = active.drop();
    const errorDraw = active.error();
    if (rule.latencyMs || rule.jitterMs) {
      decision.delayMs = (rule.latencyMs ?? 0) + (rule.jitterMs ? latencyDraw * rule.jitterMs : 0);
      decision.labels.push('latency');
    }
    if (rule.dropRate && dropDraw < rule.dropRate) {
      decision.drop = rule.dropPhase ?? 'before';
      decision.labels.push('dropped');
      return decision;
    }
    if (rule.rateLimit) {
      const { burst, retryAfterSeconds, limited = 1 } = rule.rateLimit;
      const position = (active.count - 1) % (burst + limited);
      if (position >= burst) {
        decision.status = 429;
        decision.retryAfterSeconds = retryAfterSeconds;
        decision.labels.push('rate_limited');
        return decision;
      }
    }
    if (rule.errorRate && errorDraw < rule.errorRate) {
      decision.status = rule.errorStatus ?? 503;
      decision.labels.push('error');
    }
    return decision;
  }
}
