/**
 * The record whose commit's manifests made what a record holds, following a rollback to the record
 * it restored. Read by promote (which commit the target is promoted from) and by rollback (which
 * commit a restored record's configuration came from).
 */
import { someOf } from '../util/plural.js';
import { NOT_SEALED_BY } from './seal.js';
import type { LedgerRecord } from './types.js';

/**
 * Where what `current` holds comes from: the record whose commit's manifests made it. That is
 * `current`, or for a rollback the record it restored (through a rollback to a rollback): a
 * rollback's own commit is only the one checked out when it ran, and never stands for what it
 * deployed (docs/history.md). `problem`: why no record of a commit is known to hold it; `unsealed`:
 * the restored record, when it is in the history but not sealed under this API key (`unsealedRecords`).
 */
export type ConfigurationOrigin = { record: LedgerRecord } | { problem: string; unsealed?: string };

export function configurationOrigin(records: readonly LedgerRecord[], current: LedgerRecord, unsealedRecords: readonly { id: string }[] = []): ConfigurationOrigin {
  // The records by id (the first of an id, as a search would find it), listed once: looked up per
  // step of a rollback chain, a planted ledger of many rollbacks cost the square of its length.
  const byId = new Map<string, LedgerRecord>();
  for (const candidate of records) if (!byId.has(candidate.id)) byId.set(candidate.id, candidate);
  const unsealed = new Set(unsealedRecords.map((entry) => entry.id));
  let record = current;
  const followed = new Set<string>();
  for (let restoredId = record.source.rollbackOf; restoredId !== undefined; restoredId = record.source.rollbackOf) {
    // A ledger is untrusted input: a record restored twice on the way is a loop, not an origin.
    if (followed.has(restoredId)) return { problem: `the rollbacks it restored lead back to record ${restoredId}` };
    followed.add(restoredId);
    const restored = byId.get(restoredId);
    if (!restored && unsealed.has(restoredId)) {
      return { problem: `record ${restoredId}, which it restored, is not sealed by voxform under this API key (${NOT_SEALED_BY})`, unsealed: restoredId };
    }
    if (!restored) return { problem: `record ${restoredId} is not in its history` };
    if (restored.source.healOf !== undefined) return { problem: `record ${restoredId} is a heal of drift, which holds some agents only` };
    // A rollback of some agents left the others on a newer configuration, which the restored commit does not hold;
    // an agent renamed since is not under the name the restored commit's manifests give it.
    const kept = Object.keys(restored.agents).filter((name) => !Object.hasOwn(current.agents, name));
    if (kept.length > 0) return { problem: `the rollback did not restore every agent of record ${restoredId} under the name it has there (${someOf(kept.sort(), 3)})` };
    record = restored;
  }
  return { record };
}
