/**
 * What `drift --heal` applies: each healable agent's last recorded configuration — the newest
 * ledger record holding it — read again as rollback reads a record (`desiredFromRecord`), never
 * what the manifests hold. Only agents changed outside voxform are in it. The records are chosen
 * from the ledger walked newest first (`HealRecordChooser`, on summaries), and only the chosen ones
 * are read whole (`healPlan`).
 */
import { VoxformError } from '../errors.js';
import { desiredFromRecord, type RestoreOptions } from '../history/restore.js';
import { recordedAgent, type HistoryRecord, type LedgerRecord } from '../history/types.js';
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

/** The records a heal puts back (`HealRecordChooser`). */
export interface HealChoice<R> {
  /** The chosen records, newest first. */
  records: R[];
  /** Each healable agent in the report's order: its local name and the index in `records` of the newest record holding it. */
  agents: Array<{ name: string; record: number }>;
}

/** A healable agent: its address, its local name and the id it has now; `record`, once found, indexes the chosen records. */
interface HealedAgent {
  address: string;
  name: string;
  id: string | undefined;
  record?: number | undefined;
}

/** The local name of an agent address (`agent.front-desk` → `front-desk`). */
function localName(address: string): string {
  return address.slice('agent.'.length);
}

/**
 * Chooses, for each healable agent of a report, the newest record holding it, from records added
 * newest first (whole, or their summaries): `add` says when every agent has its record, so the walk
 * stops there and the older records are never read.
 */
export class HealRecordChooser<R extends LedgerRecord> {
  private readonly agents: HealedAgent[];
  private readonly chosen: R[] = [];
  private missing: number;

  constructor(report: DriftReport) {
    this.agents = report.resources.filter((resource) => resource.healable).map((resource) => ({ address: resource.address, name: localName(resource.address), id: resource.change.id }));
    this.missing = this.agents.length;
  }

  /** Whether every healable agent has its record (at once when none is healable). */
  get complete(): boolean {
    return this.missing === 0;
  }

  /** Takes the next older record; true once every healable agent has its record. */
  add(record: R): boolean {
    let holdsOne = false;
    for (const agent of this.agents) {
      // The agent as it is now addressed: a record of another agent under this name is not its configuration.
      if (agent.record !== undefined || recordedAgent(record, agent.name)?.id !== agent.id) continue;
      agent.record = this.chosen.length;
      holdsOne = true;
      this.missing--;
    }
    if (holdsOne) this.chosen.push(record);
    return this.complete;
  }

  /** The records chosen; an agent no record added holds stops the heal before anything is changed. */
  choice(): HealChoice<R> {
    const unrecorded = this.agents.filter((agent) => agent.record === undefined).map((agent) => agent.address);
    if (unrecorded.length > 0) {
      throw new VoxformError('drift_heal_unrecorded', `Cannot heal ${unrecorded.join(', ')}: no history record of this workspace holds the configuration voxform last applied to ${pluralNoun(unrecorded.length, 'it', 'them')}; nothing was changed.`, {
        hint: 'Only what an apply recorded can be put back. Run `voxform apply` to make the agents match the manifests instead.',
      });
    }
    return { records: [...this.chosen], agents: this.agents.map((agent) => ({ name: agent.name, record: agent.record as number })) };
  }
}

/**
 * The desired state that puts the chosen agents back; undefined when none is. `whole`: the chosen
 * records read whole, in the order of `choice.records`.
 */
export function healPlan(choice: HealChoice<unknown>, whole: readonly HistoryRecord[], options: Omit<RestoreOptions, 'agents'>): HealPlan | undefined {
  // Grouped by record in the order of the report's agents: the agents come back in that order.
  const byRecord = new Map<HistoryRecord, string[]>();
  for (const { name, record: index } of choice.agents) {
    const record = whole[index] as HistoryRecord;
    byRecord.set(record, [...(byRecord.get(record) ?? []), name]);
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
  const ids = whole.map((record) => record.id);
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
