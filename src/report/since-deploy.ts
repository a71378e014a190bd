/** `voxform report --since-deploy`: the latest deploy's version and the one before it, whole, from the apply history. */
import { agentsChanged } from '../history/render.js';
import type { HistoryRecord } from '../history/types.js';
import { deployedVersions, historyOrder, type ConfigVersion } from './versions.js';

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
}

/**
 * The agents the latest deploy up to `until` (Unix seconds) changed — `agentId` alone when given —
 * each with its latest version and the one before it. Undefined when the history has no such deploy.
 */
export function sinceDeployWindow(history: readonly HistoryRecord[], agentId: string | undefined, until: number): SinceDeployWindow | undefined {
  const agents = agentId === undefined ? agentsOfLatestChange(history, until) : new Set([agentId]);
  const only = new Map<string, VersionSelection>();
  const starts: Array<number | undefined> = [];
  for (const [id, all] of deployedVersions(history)) {
    const versions = all.filter((version) => deployedAt(version) <= until);
    const last = versions[versions.length - 1];
    if (!agents.has(id) || last === undefined) continue;
    // On an agent's first deploy the version it replaced is the configuration it had outside voxform.
    const earlier = versions[versions.length - 2];
    only.set(id, { deploys: new Set([earlier?.key ?? last.key, last.key]), outsideFrom: earlier ? deployedAt(earlier) : -Infinity });
    starts.push(recordedBefore(history, (earlier ?? last).key));
  }
  if (only.size === 0) return undefined;
  return { since: starts.includes(undefined) ? undefined : Math.min(...(starts as number[])), only };
}

/**
 * The ids of the agents the latest record up to `until` changed, as `voxform history` counts them:
 * a new configuration, and also a new name or recorded configuration on the same live one (which
 * starts no version: the agent's latest version is the one it ran before).
 */
function agentsOfLatestChange(history: readonly HistoryRecord[], until: number): Set<string> {
  const newestFirst = history.filter((record) => Date.parse(record.at) / 1000 <= until).sort(historyOrder).reverse();
  for (const [index, record] of newestFirst.entries()) {
    const changed = agentsChanged(record, newestFirst.slice(index + 1));
    if (changed.length > 0) return new Set(changed.map((name) => record.agents[name]?.id as string));
  }
  return new Set();
}

/** Unix seconds of a version's deploy record (NaN when unknown, which no comparison passes). */
function deployedAt(version: ConfigVersion): number {
  return Date.parse(version.deployed?.at ?? '') / 1000;
}

/** Unix seconds of the workspace's record written just before record `id`, in the order records were written. */
function recordedBefore(history: readonly HistoryRecord[], id: string): number | undefined {
  const record = history.find((candidate) => candidate.id === id);
  if (!record) return undefined;
  const before = history.filter((candidate) => historyOrder(candidate, record) < 0).sort(historyOrder).pop();
  return before === undefined ? undefined : Date.parse(before.at) / 1000;
}

