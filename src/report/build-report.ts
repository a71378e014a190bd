/**
 * The call report, built as the call log streams in: each call is labelled with its version and
 * counted. Nothing per call is kept, so memory grows with agents and versions, not calls.
 */
import { testTrafficSource } from '../api/test-traffic.js';
import { ledgerOrder } from '../history/ledger-order.js';
import type { LedgerRecord } from '../history/types.js';
import type { UnreadEnvironment } from '../state/types.js';
import type { GlobalCallHistoryRecord } from '../schema/types.gen.js';
import { compareVersions } from './compare.js';
import type { DiffLink } from './diff-links.js';
import { MetricsAccumulator } from './metrics.js';
import { outcomeGroupOf, statusOf } from './outcomes.js';
import type { VersionSelection } from './since-deploy.js';
import { MIN_CALLS } from './statistics.js';
import { binSecondsFor, CHART_BINS, TimeSeries, type SeriesPoint } from './time-series.js';
import { REPORT_FORMAT_VERSION, type AgentReport, type CallReport, type DeployMarker, type SeriesReport, type VersionReport } from './types.js';
import { deployedVersions, VersionResolver, type ConfigVersion, type DeployInfo } from './versions.js';
import { byCodeUnits } from '../util/compare.js';
import { greatest, least } from '../util/extremes.js';

export interface ReportInput {
  /** The call log (already filtered by agent and window on the service), as streams read at once, in any order. */
  calls: ReadonlyArray<AsyncIterable<GlobalCallHistoryRecord>>;
  /** The workspace's apply history (any order). */
  history: readonly LedgerRecord[];
  workspace: string;
  /** Agent id → the manifests' local name (the history's names are used too). */
  names: ReadonlyMap<string, string>;
  /** The service's names of these agent ids (those it knows): asked for the agents with calls that no local name names. */
  serviceNames?: ((agentIds: readonly string[]) => Promise<ReadonlyMap<string, string | null>>) | undefined;
  /** The window, Unix seconds. */
  since?: number | undefined;
  until?: number | undefined;
  now: Date;
  diffLink: DiffLink;
  /** Called after every call read (also one `only` leaves out), with the count so far. */
  onCall?: ((count: number) => void) | undefined;
  /** Count the calls of voxform's own sessions (`voxform test`, `chat`) too; by default they are left out (`--include-tests`). */
  includeTests?: boolean | undefined;
  /** Only these agents, and of each only these versions and their deploys (`--since-deploy`); without it, every call read. */
  only?: ReadonlyMap<string, VersionSelection> | undefined;
  /** Agent id → the other environment of the service that applies it: its calls are left out, counted per environment. */
  otherEnvironments?: ReadonlyMap<string, string> | undefined;
  /** The other environments whose workspace could not be read, said in the report. */
  unreadEnvironments?: readonly UnreadEnvironment[] | undefined;
}

interface AgentState {
  agentId: string;
  calls: number;
  /** Calls of voxform's own sessions read, counted or left out. */
  testCalls: number;
  series: TimeSeries;
  versions: Map<string, VersionState>;
}

interface VersionState {
  version: ConfigVersion;
  metrics: MetricsAccumulator;
  /** This version's calls alone, so a chart can draw each version's calls after its own deploy. */
  series: TimeSeries;
}

export async function buildCallReport(input: ReportInput): Promise<CallReport> {
  const deployed = deployedVersions(input.history);
  const resolver = new VersionResolver(deployed);
  const agents = new Map<string, AgentState>();
  let count = 0;
  let read = 0;
  let testCalls = 0;
  const includeTests = input.includeTests ?? false;
  const elsewhere = new Map<string, { agents: Set<string>; calls: number }>();
  const add = (record: GlobalCallHistoryRecord) => {
    input.onCall?.(++read);
    const agentId = typeof record.agent_id === 'string' ? record.agent_id : '(unknown agent)';
    const environment = input.otherEnvironments?.get(agentId);
    if (environment !== undefined) {
      // Not a version of this workspace's agents, nor a change outside voxform: another environment's,
      // counted as that environment's report counts it (its test calls only with --include-tests).
      if (testTrafficSource(record) !== undefined && !includeTests) return;
      const tally = elsewhere.get(environment) ?? { agents: new Set<string>(), calls: 0 };
      elsewhere.set(environment, tally);
      tally.agents.add(agentId);
      tally.calls++;
      return;
    }
    const ts = typeof record.ts === 'number' && Number.isFinite(record.ts) ? record.ts : 0;
    const version = resolver.resolve(agentId, record.agent_config, ts);
    if (input.only && !isSelected(input.only.get(agentId), version, ts)) return;
    const isTest = testTrafficSource(record) !== undefined;
    if (isTest) testCalls++;
    let agent = agents.get(agentId);
    if (!agent) {
      agent = { agentId, calls: 0, testCalls: 0, series: new TimeSeries(), versions: new Map() };
      agents.set(agentId, agent);
    }
    if (isTest) agent.testCalls++;
    if (isTest && !includeTests) return;
    agent.calls++;
    const outcome = outcomeGroupOf(statusOf(record));
    agent.series.add(ts, outcome);
    let bucket = agent.versions.get(version.key);
    if (!bucket) {
      bucket = { version, metrics: new MetricsAccumulator(), series: new TimeSeries() };
      agent.versions.set(version.key, bucket);
    }
    bucket.metrics.add(record, ts);
    bucket.series.add(ts, outcome);
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
    test_traffic: { included: includeTests, calls: testCalls },
    other_environments: [...elsewhere]
      .sort(([a], [b]) => byCodeUnits(a, b))
      .map(([environment, tally]) => ({ environment, agents: tally.agents.size, calls: tally.calls })),
    ...(input.unreadEnvironments?.length ? { unread_environments: [...input.unreadEnvironments] } : {}),
    // An agent whose every call was left out as test traffic has nothing to show.
    agents: await agentReports([...agents.values()].filter((agent) => agent.calls > 0), names, deployed, input),
  };
}

/** Managed agents first, by local name; then the others, by their name on the service (else their id). */
async function agentReports(agents: readonly AgentState[], names: ReadonlyMap<string, string>, deployed: ReadonlyMap<string, readonly ConfigVersion[]>, input: ReportInput): Promise<AgentReport[]> {
  const unmanaged = agents.filter((agent) => !names.has(agent.agentId)).map((agent) => agent.agentId);
  const serviceNames = unmanaged.length > 0 && input.serviceNames ? await input.serviceNames(unmanaged) : new Map<string, string | null>();
  const sortKey = (agent: AgentReport) => (agent.managed ? agent.name : agent.service_name ?? agent.agent_id);
  return agents
    .map((agent) => {
      const name = names.get(agent.agentId);
      return agentReport(agent, { name: name ?? agent.agentId, managed: name !== undefined, service_name: name === undefined ? serviceNames.get(agent.agentId) ?? null : null }, deployed.get(agent.agentId) ?? [], input);
    })
    .sort((a, b) => Number(b.managed) - Number(a.managed) || byCodeUnits(sortKey(a), sortKey(b)) || byCodeUnits(a.agent_id, b.agent_id));
}

/** Whether a call of `version` at `ts` is one of the selection's: a version it names, or a configuration changed outside voxform since it began. */
function isSelected(selection: VersionSelection | undefined, version: ConfigVersion, ts: number): boolean {
  if (!selection) return false;
  return version.deployed ? selection.deploys.has(version.key) : ts >= selection.outsideFrom;
}

function agentReport(agent: AgentState, naming: Pick<AgentReport, 'name' | 'managed' | 'service_name'>, deployed: readonly ConfigVersion[], input: ReportInput): AgentReport {
  const startOf = (entry: VersionState) =>
    entry.version.deployed ? Date.parse(entry.version.deployed.at) / 1000 : entry.metrics.firstTs;
  // Deploys' times keep the ledger's order (DeployInfo.at); of two at one time, the one appended first.
  const ordered = [...agent.versions.values()].sort((a, b) => startOf(a) - startOf(b) || ledgerOrder({ id: a.version.key }, { id: b.version.key }));
  // One bin width for the agent and all its versions, chosen from the span the chart shows.
  const shownFrom = least([...ordered.map(startOf), ...ordered.map((entry) => entry.metrics.firstTs)]);
  const shownTo = greatest(ordered.map((entry) => entry.metrics.lastTs));
  const widest = greatest(ordered.map((entry) => entry.series.binSeconds), agent.series.binSeconds);
  const binSeconds = binSecondsFor(shownTo - shownFrom, CHART_BINS, widest);
  agent.series.widenTo(binSeconds);
  for (const entry of ordered) entry.series.widenTo(binSeconds);
  const versions: VersionReport[] = ordered.map((entry, index) => {
    // The version before: the nearest earlier one with calls of another configuration. An earlier
    // deploy of this configuration (before a rollback and a re-apply) ran the same agent.
    const before = ordered.slice(0, index).reverse().find((earlier) => earlier.version.configHash !== entry.version.configHash);
    return {
      key: entry.version.key,
      source: entry.version.deployed ? 'voxform' : 'outside',
      config_hash: entry.version.configHash,
      deploy: entry.version.deployed ? deployMarker(entry.version.deployed, input.diffLink) : null,
      first_call: new Date(entry.metrics.firstTs * 1000).toISOString(),
      last_call: new Date(entry.metrics.lastTs * 1000).toISOString(),
      metrics: entry.metrics.summary(),
      series: seriesPoints(entry.series.points()),
      comparison: before ? compareVersions(entry.metrics, before.version.key, before.metrics) : null,
    };
  });
  // Without --since the window starts with the first call, or with the deploy of its version.
  const from = input.since ?? least(ordered.map(startOf));
  const deploys = deployed
    .flatMap((version) => (version.deployed ? [{ deploy: version.deployed, version, heal: false }, ...(version.heals ?? []).map((deploy) => ({ deploy, version, heal: true }))] : []))
    .filter(({ deploy, version }) => {
      const at = Date.parse(deploy.at) / 1000;
      // A heal goes with the version it put back.
      const selected = input.only?.get(agent.agentId)?.deploys.has(version.key) ?? true;
      return selected && at >= from && (input.until === undefined || at <= input.until);
    })
    .sort((a, b) => ledgerOrder({ id: a.deploy.recordId }, { id: b.deploy.recordId }))
    .map(({ deploy, version, heal }) => ({ ...deployMarker(deploy, input.diffLink), puts_back: heal ? version.key : null }));
  return {
    agent_id: agent.agentId,
    ...naming,
    calls: agent.calls,
    test_calls: agent.testCalls,
    series: { bin_seconds: binSeconds, points: seriesPoints(agent.series.points()) },
    deploys,
    versions,
  };
}

function seriesPoints(points: SeriesPoint[]): SeriesReport['points'] {
  return points.map((point) => ({ start: new Date(point.start * 1000).toISOString(), calls: point.calls, outcomes: point.outcomes }));
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
    rollback_of: deploy.rollbackOf ? { record: deploy.rollbackOf.record, commit: deploy.rollbackOf.commit ?? null, uncommitted: deploy.rollbackOf.uncommitted ?? null } : null,
    puts_back: null,
    changed_fields: deploy.changedFields,
    // A rollback's change is the way back to the restored configuration's commit, not its checkout's.
    diff_url: diffLink(deploy.rollbackOf?.commit ? { ...deploy, commit: deploy.rollbackOf.commit } : deploy),
  };
}

function isoOrNull(seconds: number | undefined): string | null {
  return seconds === undefined ? null : new Date(seconds * 1000).toISOString();
}
