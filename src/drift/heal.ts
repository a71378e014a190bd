/**
 * What `drift --heal` applies: each healable agent's last recorded configuration — the newest
 * ledger record holding it — read again as rollback reads a record (`desiredFromRecord`), never
 * what the manifests hold. Only agents changed outside voxform are in it.
 */
import { VoxformError } from '../errors.js';
import { desiredFromRecord, type RestoreOptions } from '../history/restore.js';
import { recordedAgent, type HistoryRecord } from '../history/types.js';
import type { DesiredAgent, DesiredState } from '../manifest/types.js';
import { hashValue } from '../util/hash.js';
import { pluralNoun } from '../util/plural.js';
import type { DriftReport } from './types.js';

export interface HealPlan {
  /** The desired state of the healed agents: their recorded configurations. */
  desired: DesiredState;
  /** Ids of the records whose configurations are put back, newest first. */
  records: string[];
}

/** The local name of an agent address (`agent.front-desk` → `front-desk`). */
function localName(address: string): string {
  return address.slice('agent.'.length);
}

/**
 * The desired state that puts the healable agents of `report` back; undefined when none is.
 * `records`: the workspace's ledger, newest first.
 */
export function healDesired(report: DriftReport, records: readonly HistoryRecord[], options: Omit<RestoreOptions, 'agents'>): HealPlan | undefined {
  const byRecord = new Map<HistoryRecord, string[]>();
  const unrecorded: string[] = [];
  for (const resource of report.resources) {
    if (!resource.healable) continue;
    const name = localName(resource.address);
    // The agent as it is now addressed: a record of another agent under this name is not its configuration.
    const record = records.find((candidate) => recordedAgent(candidate, name)?.id === resource.change.id);
    if (!record) unrecorded.push(resource.address);
    else byRecord.set(record, [...(byRecord.get(record) ?? []), name]);
  }
  if (unrecorded.length > 0) {
    throw new VoxformError('drift_heal_unrecorded', `Cannot heal ${unrecorded.join(', ')}: no history record of this workspace holds the configuration voxform last applied to ${pluralNoun(unrecorded.length, 'it', 'them')}; nothing was changed.`, {
      hint: 'Only what an apply recorded can be put back. Run `voxform apply` to make the agents match the manifests instead.',
    });
  }
  if (byRecord.size === 0) return undefined;
  const agents = new Map<string, DesiredAgent>();
  const secrets = new Set<string>();
  const names = new Set(options.current.environmentVariables);
  let restored: DesiredState | undefined;
  for (const [record, chosen] of byRecord) {
    restored = desiredFromRecord(record, { ...options, agents: chosen });
    for (const [name, agent] of restored.agents) agents.set(name, agent);
    for (const value of restored.secrets) secrets.add(value);
    for (const name of restored.environmentVariables) names.add(name);
  }
  const ids = records.filter((record) => byRecord.has(record)).map((record) => record.id);
  return {
    records: ids,
    desired: {
      ...(restored as DesiredState),
      manifestHash: hashValue({ healOf: ids, agents: [...agents.keys()] }),
      agents,
      secrets: [...secrets],
      environmentVariables: [...names].sort(),
    },
  };
}
