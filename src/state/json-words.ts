/**
 * What the state holds (a last apply, a lock's holder, a forced open), in the words of voxform's
 * JSON outputs: snake_case keys, as `plan`, `drift`, `history` and `status` write them.
 */
import type { ForcedOpen, LockHolder } from './backend.js';
import type { LastApply } from './types.js';
import type { RunIdentity } from '../util/run-identity.js';

/** The last apply; the counts a state older than them lacks are null. */
export function lastApplyJson(last: LastApply): Record<string, unknown> {
  const { partlyApplied, notApplied, ...rest } = last;
  return { ...rest, partly_applied: partlyApplied ?? null, not_applied: notApplied ?? null };
}

function runJson(run: RunIdentity): Record<string, unknown> {
  return { user: run.user, host: run.host, pid: run.pid, command: run.command, ...(run.ciJobUrl !== undefined ? { ci_job_url: run.ciJobUrl } : {}) };
}

/** A lock's holder: who, since when, its lock id; `unreadable` and `no_longer_runs` when so. */
export function lockHolderJson(holder: LockHolder): Record<string, unknown> {
  return {
    lock_id: holder.lockId,
    ...runJson(holder),
    since: holder.since,
    ...(holder.unreadable !== undefined ? { unreadable: holder.unreadable } : {}),
    ...(holder.noLongerRuns ? { no_longer_runs: true } : {}),
  };
}

/** The last forced open of a lock: which, when, by whom. */
export function forcedOpenJson(forced: ForcedOpen): Record<string, unknown> {
  return { lock_id: forced.lockId, at: forced.at, by: runJson(forced.by) };
}
