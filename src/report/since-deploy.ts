/** `voxform report --since-deploy`: the latest deploy's version and the one before it, whole, from the apply history. */
import { ledgerOrder, ledgerTimes } from '../history/ledger-order.js';
import { historyEntries } from '../history/render.js';
import type { LedgerRecord } from '../history/types.js';
import type { CallReport } from './types.js';
import { deployedVersions, type ConfigVersion } from './versions.js';
import { least } from '../util/extremes.js';

/** What a report keeps of one agent's calls. */
export interface VersionSelection {
  /** Record ids of the deploys whose versions are reported. */
  deploys: ReadonlySet<string>;
  /**
   * Unix seconds: calls of a configuration changed outside voxform count from then on (the earlier
   * version's deploy record, when it was surely live); earlier ones belong to versions before it.
   * -Infinity on an agent's first deploy: what it replaced was changed outside voxform.
   */
  outsideFrom: number;
}

export interface SinceDeployWindow {
  /**
   * Unix seconds: where to read the call log from, the record before the earlier version's deploy
   * (applies run one at a time); undefined when that deploy is the first record: the whole log.
   */
  since: number | undefined;
  /** Per agent reported: the versions to keep. Other agents are left out. */
  only: Map<string, VersionSelection>;
  /**
   * Per agent with an earlier deploy of another configuration: the one taken as the version before
   * its latest (its key). Should it have no calls, an older one stands in for it: an older deploy of
   * another configuration, else what the agent ran before voxform first deployed it.
   */
  before: Map<string, string>;
}

/** Per agent id: earlier versions found to have no calls, passed over for older ones. */
type PassedOver = ReadonlyMap<string, ReadonlySet<string>>;

/** What the history deploys up to the window's end, and what the window keeps besides the versions compared. */
interface WindowOptions {
  /** `deployedUntil(history, until)`, when already built: the same for every window of a report. */
  deployed?: ReadonlyMap<string, readonly ConfigVersion[]> | undefined;
  /**
   * Widen the window to the earlier deploys of each reported agent's latest configuration (before a
   * rollback to it, or a re-apply of it), so the calls of that configuration in every period it was
   * live are read and kept, each labelled with its deploy as in any report. Versions of another
   * configuration are not added: the comparisons stay those of the window.
   */
  earlierDeploysOfLatest?: boolean | undefined;
}

/**
 * The earlier deploys of the configuration of an agent's latest version, `versions`' last (before a
 * rollback to it, or a re-apply of it), oldest first.
 */
export function earlierDeploysOfLatest(versions: readonly ConfigVersion[]): ConfigVersion[] {
  const latest = versions[versions.length - 1];
  return versions.filter((version) => version !== latest && version.configHash === latest?.configHash);
}

/**
 * The versions that can be the one before an agent's `latest`, nearest first: earlier deploys of
 * another configuration. An earlier deploy of the latest's own configuration (before a rollback and
 * a re-apply) is the same version's configuration, not one before it.
 */
function versionsBefore(versions: readonly ConfigVersion[], latest: ConfigVersion): ConfigVersion[] {
  return versions.filter((version) => version !== latest && version.configHash !== latest.configHash).reverse();
}

/**
 * The agents the latest deploy up to `until` (Unix seconds) changed — `agentId` alone when given —
 * each with its latest version and the one before it: the nearest earlier version of another
 * configuration not in `passedOver`, else what the agent ran before voxform first deployed it
 * (changed outside voxform). Undefined when the history has no such deploy. `options`: `WindowOptions`,
 * `deployed` built (`sinceDeployReport` builds it once for every window it reads).
 */
export function sinceDeployWindow(history: readonly LedgerRecord[], agentId: string | undefined, until: number, passedOver: PassedOver, options: WindowOptions & { deployed: ReadonlyMap<string, readonly ConfigVersion[]> }): SinceDeployWindow | undefined {
  const agents = agentId === undefined ? agentsOfLatestChange(history, until) : new Set([agentId]);
  const only = new Map<string, VersionSelection>();
  const before = new Map<string, string>();
  const recordedBefore = recordedBeforeEach(history);
  const starts: Array<number | undefined> = [];
  for (const [id, versions] of options.deployed) {
    const last = versions[versions.length - 1];
    if (!agents.has(id) || last === undefined) continue;
    const earlier = versionsBefore(versions, last).find((version) => !passedOver.get(id)?.has(version.key));
    const again = options.earlierDeploysOfLatest ? earlierDeploysOfLatest(versions) : [];
    // Without one (on an agent's first deploy, or every earlier one passed over) the version it
    // replaced is the configuration it had outside voxform before its first deploy: read from there.
    only.set(id, { deploys: new Set([earlier?.key ?? last.key, last.key, ...again.map((version) => version.key)]), outsideFrom: earlier ? deployedAt(earlier) : -Infinity });
    if (earlier) before.set(id, earlier.key);
    starts.push(recordedBefore.get((earlier ?? (versions[0] as ConfigVersion)).key));
    if (again[0]) starts.push(recordedBefore.get(again[0].key));
  }
  if (only.size === 0) return undefined;
  return { since: starts.includes(undefined) ? undefined : least(starts as number[]), only, before };
}

/** Each agent's versions deployed up to `until` (Unix seconds), oldest first: the last one is what it runs then. */
export function deployedUntil(history: readonly LedgerRecord[], until: number): Map<string, ConfigVersion[]> {
  const byAgent = new Map<string, ConfigVersion[]>();
  for (const [id, all] of deployedVersions(history)) {
    const versions = all.filter((version) => deployedAt(version) <= until);
    if (versions.length > 0) byAgent.set(id, versions);
  }
  return byAgent;
}

/**
 * `--since-deploy`'s report, built by `build` over the window; undefined when the history has no
 * deploy. A version before that had no calls in it (live only between a rollback and a re-apply,
 * say, or a first deploy replaced before any call) has nothing to compare with: it is passed over
 * for the next older one of another configuration — past the agent's first deploy, what it ran
 * before voxform deployed it — and the report built again over the longer window, at most
 * MAX_REREADS times. The gates of `voxform promote` read their calls through this too, so they and
 * the report take the same version before.
 */
export async function sinceDeployReport(
  history: readonly LedgerRecord[],
  agentId: string | undefined,
  until: number,
  build: (window: SinceDeployWindow) => Promise<CallReport>,
  options: WindowOptions = {},
): Promise<{ window: SinceDeployWindow; report: CallReport } | undefined> {
  const passedOver = new Map<string, Set<string>>();
  const windowOptions = { ...options, deployed: options.deployed ?? deployedUntil(history, until) };
  let window = sinceDeployWindow(history, agentId, until, passedOver, windowOptions);
  for (let pass = 0; window; pass++) {
    const report = await build(window);
    const uncalled = [...window.before].filter(([id, earlier]) => !hasCalls(report, id, earlier));
    if (uncalled.length === 0 || pass === MAX_REREADS) return { window, report };
    for (const [id, earlier] of uncalled) passedOver.set(id, new Set([...(passedOver.get(id) ?? []), earlier]));
    window = sinceDeployWindow(history, agentId, until, passedOver, windowOptions);
  }
  return undefined;
}

/**
 * How many times the report is built again over a longer window, each time reading the call log
 * again: versions without calls come from the history, which a checkout may hold, so their number
 * must not set the work. Past it the report stands as built, its version before without calls.
 */
const MAX_REREADS = 3;

function hasCalls(report: CallReport, agentId: string, versionKey: string): boolean {
  return report.agents.some((agent) => agent.agent_id === agentId && agent.versions.some((version) => version.key === versionKey && version.metrics.calls > 0));
}

/**
 * The ids of the agents the latest record up to `until` changed, as `voxform history` counts them:
 * a new configuration, and also a new name or recorded configuration on the same live one (which
 * starts no version: the agent's latest version is the one it ran before). A heal's record is
 * passed over: it puts back what the deploy before it deployed, which is the change to report.
 */
function agentsOfLatestChange(history: readonly LedgerRecord[], until: number): Set<string> {
  const times = ledgerTimes(history);
  const newestFirst = history.filter((record) => Date.parse(times.get(record.id) as string) / 1000 <= until).sort(ledgerOrder).reverse();
  // Every record's changes in one walk of the ledger: asked record by record, a ledger of records
  // that changed nothing (a checkout may hold one) would be walked again from each.
  const latest = historyEntries(newestFirst).find(({ record, agentsChanged }) => record.source.healOf === undefined && agentsChanged.length > 0);
  return new Set(latest?.agentsChanged.map((name) => latest.record.agents[name]?.id as string));
}

/** Unix seconds of a version's deploy record (NaN when unknown, which no comparison passes). */
function deployedAt(version: ConfigVersion): number {
  return Date.parse(version.deployed?.at ?? '') / 1000;
}

/**
 * By record id: Unix seconds (on the ledger's timeline, `ledgerTimes`) of the workspace's record
 * appended just before it, undefined for the first. Sorted once: a window asks it for every agent.
 */
function recordedBeforeEach(history: readonly LedgerRecord[]): Map<string, number | undefined> {
  const times = ledgerTimes(history);
  const before = new Map<string, number | undefined>();
  let previous: number | undefined;
  for (const record of [...history].sort(ledgerOrder)) {
    if (!before.has(record.id)) before.set(record.id, previous);
    previous = Date.parse(times.get(record.id) as string) / 1000;
  }
  return before;
}

