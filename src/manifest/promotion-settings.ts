/**
 * An environment's promotion settings as the loader resolves them (promotion.ts), and the forms
 * their values take: the metrics a gate may name, durations. No import from the rest of the
 * manifest room: the desired state's types refer to these.
 */
import type { SourceLocation } from '../errors.js';
import { durationSeconds } from '../util/duration.js';

/** The metrics `no_regression` may name: each is worse when higher (the report's comparison, docs/report.md). */
export const GATE_METRICS = ['error_rate', 'transfer_rate', 'tool_failure_rate', 'mean_duration_seconds', 'mean_credits_per_call'] as const;
export type GateMetric = (typeof GATE_METRICS)[number];

/** The gates of one environment, as the manifest sets them; an absent gate is not checked. */
export interface Gates {
  /** `tests: pass`. */
  tests?: boolean | undefined;
  minCalls?: number | undefined;
  noRegression?: GateMetric[] | undefined;
  /** `soak`, as written (`2h`) and in seconds. */
  soak?: { text: string; seconds: number } | undefined;
}

/** Where a promotion setting is written, for messages that point at the manifest. */
export type PromotionPlace = 'promote_from' | 'gates' | 'tests' | 'min_calls' | 'no_regression' | 'soak';

export interface EnvironmentPromotion {
  environment: string;
  /** `promote_from`: the environment whose configuration this one is given. */
  from: string | undefined;
  gates: Gates;
  /** Where each setting that is set is written. */
  locations: Partial<Record<PromotionPlace, SourceLocation>>;
}

/** Seconds of a soak as the schema allows it (`30m`, `2h`, `1d`); undefined for any other text. */
export function parseDuration(text: string): number | undefined {
  return /^[1-9][0-9]{0,5}[mhd]$/.test(text) ? durationSeconds(text) : undefined;
}
