/**
 * The call model of one configuration version: a profile's parameters, moved by the version's own
 * effect (drawn from its content hash: its own "true" rates on every run) and by matching rules.
 */
import type { AgentConfigRead } from '../../schema/types.gen.js';
import { RandomStream } from './random.js';
import { CALL_OUTCOMES, MAX_MULTIPLIER, type CallOutcome, type TrafficProfile, type TrafficRule } from './profile.js';

export interface VersionModel {
  /** Outcome weights, in CALL_OUTCOMES order, and their sum. */
  outcomeWeights: number[];
  outcomeTotal: number;
  medianSeconds: Record<CallOutcome, number>;
  durationSpread: number;
  charsPerSecond: number;
  toolCallsPerConversation: number;
  toolFailureRate: number;
  /** 0 for an agent that cannot transfer. */
  transferRate: number;
  /** Names of the profile's rules that apply (by index: `rules[0]`). */
  rulesApplied: string[];
}

/** Whether the agent can transfer a call: a transfer number in its flow, or a transfer platform function. */
function canTransfer(config: AgentConfigRead): boolean {
  if (config.flow?.call_transfer?.phone) return true;
  return (config.platform_functions ?? []).some((fn) => fn.type === 'transfer' || fn.name === 'transfer_call');
}

function ruleMatches(rule: TrafficRule, agent: { id: string; name: string }, config: AgentConfigRead): boolean {
  const { prompt_contains: text, agent: who } = rule.when;
  if (text !== undefined && !(config.prompt ?? '').toLowerCase().includes(text.toLowerCase())) return false;
  if (who !== undefined && who !== agent.id && who !== agent.name) return false;
  return true;
}

/**
 * The model of `config` (hashed `configHash`) under `profile`. The version effect is a factor
 * exp(version_effect × z) per parameter, z drawn from a stream named by the hash alone: the same
 * under every seed and profile.
 */
export function versionModel(profile: TrafficProfile, agent: { id: string; name: string }, config: AgentConfigRead, configHash: string): VersionModel {
  const effectStream = new RandomStream('traffic-version-effect', configHash);
  const effect = () => Math.exp(profile.version_effect * effectStream.normal());
  const rules = profile.rules.map((rule, index) => ({ rule, index })).filter(({ rule }) => ruleMatches(rule, agent, config));
  // Capped as each rule's multiplier is: a hundred rules of 1000 would overflow to Infinity, and a
  // rule of 0 among them make NaN of it; a 0 gives 0 whatever else matches.
  const scaleOf = (key: string) => {
    const factors = rules.map(({ rule }) => rule.scale[key] ?? 1);
    return factors.includes(0) ? 0 : Math.min(MAX_MULTIPLIER, factors.reduce((product, factor) => product * factor, 1));
  };

  // Drawn in a fixed order, so adding a rule never changes another parameter's effect.
  const outcomeWeights = CALL_OUTCOMES.map((status) => profile.outcomes[status] * effect() * scaleOf(status));
  const durationEffect = effect() * scaleOf('duration');
  const charsEffect = effect() * scaleOf('chars');
  const toolCallsEffect = effect() * scaleOf('tool_calls');
  const toolFailureEffect = effect() * scaleOf('tool_failures');
  const transferEffect = effect() * scaleOf('transfers');

  const medianSeconds = Object.fromEntries(
    CALL_OUTCOMES.map((status) => [status, profile.duration.median_seconds * (profile.duration.by_status[status] ?? 1) * durationEffect]),
  ) as Record<CallOutcome, number>;
  return {
    outcomeWeights,
    outcomeTotal: outcomeWeights.reduce((sum, weight) => sum + weight, 0),
    medianSeconds,
    durationSpread: profile.duration.spread,
    charsPerSecond: profile.chars_per_second * charsEffect,
    toolCallsPerConversation: profile.tools.calls_per_conversation * toolCallsEffect,
    toolFailureRate: Math.min(1, profile.tools.failure_rate * toolFailureEffect),
    transferRate: canTransfer(config) ? Math.min(1, profile.transfer_rate * transferEffect) : 0,
    rulesApplied: rules.map(({ index }) => `rules[${index}]`),
  };
}
