/**
 * The report as data (schemas/report.schema.json). Times are ISO 8601 UTC; rates are fractions with
 * their 95% interval. No value comes from a secret: configs are reduced to hashes and field names.
 */
import type { OutcomeGroup } from './outcomes.js';
import type { Verdict } from './statistics.js';
import type { UnreadEnvironment } from '../state/types.js';

export const REPORT_FORMAT_VERSION = 1;

export interface Rate {
  /** Calls (or tool calls) counted. */
  count: number;
  /** Out of this many. */
  of: number;
  /** count / of; null when `of` is 0. */
  value: number | null;
  /** Wilson's 95% interval; null when `of` is 0. */
  low: number | null;
  high: number | null;
}

export interface VersionMetrics {
  calls: number;
  /** Calls by `call_status` as recorded, most frequent first. */
  by_status: Record<string, number>;
  error_rate: Rate;
  transfer_rate: Rate;
  duration_seconds: {
    /** Calls with a duration above 0 (the others never connected). */
    calls: number;
    median: number | null;
    p90: number | null;
    mean: number | null;
    /** false when the quantiles come from the bounded histogram (within 0.5%). */
    exact: boolean;
  };
  credits: { total: number; mean_per_call: number | null };
  tool_calls: { calls: number; failed: number; failure_rate: Rate };
}

export interface DeployMarker {
  record_id: string;
  at: string;
  by: string;
  commit: string | null;
  branch: string | null;
  pull_request: number | null;
  ci_job_url: string | null;
  /** The work tree held changes `commit` does not when this was deployed; null when unknown. */
  uncommitted: boolean | null;
  /** On a promotion: the source environment's workspace and the record promoted; null otherwise (always written by buildCallReport). */
  promoted_from?: { workspace: string; record: string } | null;
  /** On a rollback (`voxform rollback`): the id of the record whose configuration it restored, and the commit (with `uncommitted`) that configuration was deployed from, null when unknown; null otherwise (always written by buildCallReport). */
  rollback_of?: { record: string; commit: string | null; uncommitted: boolean | null } | null;
  /** On a heal (`voxform drift --heal`) that put back a version after a change outside voxform: that version's key; null otherwise (always written by buildCallReport). */
  puts_back?: string | null;
  /** Top-level config fields this deploy changed for the agent (names only); null when the configuration before it is not in the apply history (the agent's first deploy there, or a heal). */
  changed_fields: string[] | null;
  /** Where to see the change: the commit, or the diff against the version before, on the CI's server; null when unknown. */
  diff_url: string | null;
}

export interface Difference {
  /** after − before (rates as fractions, durations in seconds, credits per call). */
  difference: number | null;
  low: number | null;
  high: number | null;
  verdict: Verdict;
}

export interface Comparison {
  /** The key of the version this one is compared with (the one before it). */
  against: string;
  /** Both versions have at least `min_calls` calls. */
  enough_calls: boolean;
  error_rate: Difference;
  transfer_rate: Difference;
  tool_failure_rate: Difference;
  mean_duration_seconds: Difference;
  mean_credits_per_call: Difference;
}

export interface VersionReport {
  /** The history record id of the deploy, or `outside:<hash prefix>`. */
  key: string;
  source: 'voxform' | 'outside';
  config_hash: string;
  deploy: DeployMarker | null;
  first_call: string;
  last_call: string;
  metrics: VersionMetrics;
  /** This version's calls over time, in the agent's bins (`AgentReport.series.bin_seconds`). */
  series: SeriesReport['points'];
  comparison: Comparison | null;
}

export interface SeriesReport {
  /** The bins' width, chosen from the span of the calls: from 0.001 s (a millisecond) to 4 weeks. */
  bin_seconds: number;
  points: Array<{ start: string; calls: number; outcomes: Record<OutcomeGroup, number> }>;
}

export interface AgentReport {
  agent_id: string;
  /** The manifests' local name (else the apply history's), else the id. */
  name: string;
  /** Whether the manifests or the apply history name the agent: voxform manages it. */
  managed: boolean;
  /** The agent's name on the service, for an agent voxform does not manage; null for one it manages, or one the service no longer knows. */
  service_name: string | null;
  calls: number;
  /** Calls of this agent by voxform's own sessions read (counted in `calls` only when the report includes test traffic). */
  test_calls: number;
  series: SeriesReport;
  /** Deploys of this agent inside the window (also those no call ran with yet), oldest first. */
  deploys: DeployMarker[];
  /** Versions that ran calls in the window, oldest first. */
  versions: VersionReport[];
}

export interface CallReport {
  format_version: typeof REPORT_FORMAT_VERSION;
  generated_at: string;
  /** `ENV@SERVICE`, as the apply history names it. */
  workspace: string;
  window: { since: string | null; until: string | null };
  /** The minimum calls per version for a comparison. */
  min_calls: number;
  /** The calls counted (test traffic only with `test_traffic.included`). */
  calls: number;
  /** Calls of voxform's own sessions (`voxform test`, `chat`) read in the window: left out unless `included`. */
  test_traffic: { included: boolean; calls: number };
  /**
   * Calls of agents another environment of the same service applies (known from the state), left
   * out of this workspace's report and counted per environment as that environment's report counts
   * them (their test calls only with `--include-tests`); sorted by environment.
   */
  other_environments: Array<{ environment: string; agents: number; calls: number }>;
  /**
   * The other environments of the service whose workspace could not be read, and why (absent when
   * none): their agents are not known to be theirs, so those agents' calls are not in `other_environments`.
   */
  unread_environments?: UnreadEnvironment[];
  agents: AgentReport[];
}
