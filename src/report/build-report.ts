/**
 * The call report, built as the call log streams in: each call is labelled with its version and
 * counted. Nothing per call is kept, so memory grows with agents and versions, not calls.
 */
import type { HistoryRecord } from '../history/types.js';
import type { GlobalCallHistoryRecord } from '../schema/types.gen.js';
import { compareVersions } from './compare.js';
import type { DiffLink } from './diff-links.js';
import { MetricsAccumulator } from './metrics.js';
import { outcomeGroupOf, statusOf } from './outcomes.js';
import type { VersionSelection } from './since-deploy.js';
import { MIN_CALLS } from './statistics.js';
import { CHART_BINS, TimeSeries } from './time-series.js';
import { REPORT_FORMAT_VERSION, type AgentReport, type CallReport, type DeployMarker, type VersionReport } from './types.js';
import { deployedVersions, VersionResolver, type ConfigVersion, type DeployInfo } from './versions.js';

export interface ReportInput {
  /** The call log (already filtered by agent and window on the service), as streams read at once, in any order. */
  calls: ReadonlyArray<AsyncIterable<GlobalCallHistoryRecord>>;
  /** The workspace's apply history (any order). */
  history: readonly HistoryRecord[];
  workspace: string;
  /** Agent id → the manifests' local name (the history's names are used too). */
  names: ReadonlyMap<string, string>;
  /** The window, Unix seconds. */
  since?: number | undefined;
  until?: number | undefined;
  now: Date;
  diffLink: DiffLink;
  /** Called after every call read (also one `only` leaves out), with the count so far. */
  onCall?: ((count: number) => void) | undefined;
  /** Only these agents, and of each only these versions and their deploys (`--since-deploy`); without it, every call read. */
  only?: ReadonlyMap<string, VersionSelection> | undefined;
}

interface AgentState {
  agentId: string;
  calls: number;
  series: TimeSeries;
  versions: Map<string, { version: ConfigVersion; metrics: MetricsAccumulator }>;
}

export async function buildCallReport(input: ReportInput): Promise<CallReport> {
  const deployed = deployedVersions(input.history);
  const resolver = new VersionResolver(deployed);
  const agents = new Map<string, AgentState>();
  let count = 0;
  let read = 0;
  const add = (record: GlobalCallHistoryRecord) => {
    input.onCall?.(++read);
    const agentId = typeof record.agent_id === 'string' ? record.agent_id : '(unknown agent)';
    const ts = typeof record.ts === 'number' && Number.isFinite(record.ts) ? record.ts : 0;
    const version = resolver.resolve(agentId, record.agent_config, ts);
    if (input.only && !isSelected(input.only.get(agentId), version, ts)) return;
    let agent = agents.get(agentId);
    if (!agent) {
      agent = { agentId, calls: 0, series: new TimeSeries(), versions: new Map() };
      agents.set(agentId, agent);
    }
    agent.calls++;
    agent.series.add(ts, outcomeGroupOf(statusOf(record)));
    let bucket = agent.versions.get(version.key);
    if (!bucket) {
      bucket = { version, metrics: new MetricsAccumulator() };
      agent.versions.set(version.key, bucket);
    }
    bucket.metrics.add(record, ts);
    count++;
  };
  // Every counter is indifferent to the order calls arrive in, so the streams are read at once.
  await Promise.all(input.calls.map(async (stream) => {
    for await (const record of stream) add(record);
  }));
  const names = new Map(input.names);
  for (const [agentId, versions] of deployed) {
    const latest = versions[versions.length - 1]?.deployed?.agentName;
    if (latest && !names.has(agentId)) names.set(agentId, latest);
  }
  return {
    format_version: REPORT_FORMAT_VERSION,
    generated_at: input.now.toISOString(),
    workspace: input.workspace,
    window: { since: isoOrNull(input.since), until: isoOrNull(input.until) },
    min_calls: MIN_CALLS,
    calls: count,
    agents: [...agents.values()]
      .map((agent) => agentReport(agent, names.get(agent.agentId) ?? agent.agentId, deployed.get(agent.agentId) ?? [], input))
      .sort((a, b) => a.name.localeCompare(b.name) || a.agent_id.localeCompare(b.agent_id)),
  };
}

/** Whether a call of `version` at `ts` is one of the selection's: a version it names, or a configuration changed outside voxform since it began. */
function isSelected(selection: VersionSelection | undefined, version: ConfigVersion, ts: number): boolean {
  if (!selection) return false;
  return version.deployed ? selection.deploys.has(version.key) : ts >= selection.outsideFrom;
}

function agentReport(agent: AgentState, name: string, deployed: readonly ConfigVersion[], input: ReportInput): AgentReport {
  const startOf = (entry: { version: ConfigVersion; metrics: MetricsAccumulator }) =>
    entry.version.deployed ? Date.parse(entry.version.deployed.at) / 1000 : entry.metrics.firstTs;
  const ordered = [...agent.versions.values()].sort((a, b) => startOf(a) - startOf(b) || a.version.key.localeCompare(b.version.key));
  const versions: VersionReport[] = ordered.map((entry, index) => {
    const before = ordered[index - 1];
    return {
      key: entry.version.key,
      source: entry.version.deployed ? 'voxform' : 'outside',
      config_hash: entry.version.configHash,
      deploy: entry.version.deployed ? deployMarker(entry.version.deployed, input.diffLink) : null,
      first_call: new Date(entry.metrics.firstTs * 1000).toISOString(),
      last_call: new Date(entry.metrics.lastTs * 1000).toISOString(),
      metrics: entry.metrics.summary(),
      comparison: before ? compareVersions(entry.metrics, before.version.key, before.metrics) : null,
    };
  });
  // Without --since the window starts with the first call, or with the deploy of its version.
  const from = input.since ?? Math.min(...ordered.map(startOf));
  const deploys = deployed
    .flatMap((version) => (version.deployed ? [version.deployed] : []))
    .filter((deploy) => {
      const at = Date.parse(deploy.at) / 1000;
      const selected = input.only?.get(agent.agentId)?.deploys.has(deploy.recordId) ?? true;
      return selected && at >= from && (input.until === undefined || at <= input.until);
    })
    .map((deploy) => deployMarker(deploy, input.diffLink));
  agent.series.fitTo(CHART_BINS);
  const points = agent.series.points();
  return {
    agent_id: agent.agentId,
    name,
    calls: agent.calls,
    series: {
      bin_seconds: agent.series.binSeconds,
      points: points.map((point) => ({ start: new Date(point.start * 1000).toISOString(), calls: point.calls, outcomes: point.outcomes })),
    },
    deploys,
    versions,
  };
}

function deployMarker(deploy: DeployInfo, diffLink: DiffLink): DeployMarker {
  return {
    record_id: deploy.recordId,
    at: deploy.at,
    by: deploy.by,
    commit: deploy.commit ?? null,
    branch: deploy.branch ?? null,
    pull_request: deploy.pullRequest ?? null,
    ci_job_url: deploy.ciJobUrl ?? null,
    uncommitted: deploy.uncommitted ?? null,
    promoted_from: deploy.promotedFrom ? { workspace: deploy.promotedFrom.workspace, record: deploy.promotedFrom.record } : null,
    changed_fields: deploy.changedFields,
    diff_url: diffLink(deploy),
  };
}

function isoOrNull(seconds: number | undefined): string | null {
  return seconds === undefined ? null : new Date(seconds * 1000).toISOString();
}
