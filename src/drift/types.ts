/**
 * A drift report: what differs between the live service, the last applied configuration and the
 * manifests, each difference classified by where it came from. Made from a plan (src/plan/), so
 * drift and plan can never disagree about what differs; only the classification is drift's own.
 */
import type { FieldChange, ResourceChange, ResourceKind } from '../plan/types.js';
import type { MissingState } from '../state/missing-state.js';

/**
 * Where a difference between the live service and the manifests came from, told by the keyed hash
 * the state keeps of what voxform last applied at each field:
 * - `outside`: changed outside voxform (a dashboard edit): the manifests still hold what was last
 *   applied, the service does not;
 * - `pending`: in git but not applied yet: the service holds what was last applied (or voxform never
 *   applied the field, or the service cannot be read for it), the manifests changed;
 * - `both`: the service and the manifests each moved away from what was last applied;
 * - `unlabelled`: not told: the state's hashes of the agent (or the credential's fingerprint) were
 *   made with another key (the API key rotated since the apply that recorded them), so they match
 *   neither side. The next apply records them with the key in use;
 * - `environment`: another environment of the same service set the live value at its last apply (a
 *   number, campaign, credential or agent named by one id is one per account): a plan of this one is refused there
 *   (`shared_resource_conflict`) until it takes the resource back (`--take-over`);
 * - `unrecorded`: the state holds no apply of the workspace, so which side moved is not known (it
 *   may have been applied with another state: another folder's, another `--state`).
 */
export type DriftClass = 'outside' | 'pending' | 'both' | 'unlabelled' | 'environment' | 'unrecorded';

export interface DriftedField {
  /** The field's change as the plan made it (`before` live, `after` the manifests'). */
  field: FieldChange;
  class: DriftClass;
  /** With class `environment`: the environment whose apply set the live value (`default` without --env). */
  environment?: string | undefined;
  /** Of an agent's field: the keyed hash of what voxform last applied there, as the state keeps it (what `--heal` checks its record against). */
  lastApplied?: string | undefined;
  /**
   * Of an agent's field the service holds in another shape than the manifests' object (a webhook as a
   * plain URL): the keyed hash of what voxform last applied at each leaf under it, by dotted path.
   */
  lastAppliedLeaves?: Record<string, string> | undefined;
  /**
   * Of a field whose manifests' value reads variables not set in this run but that differs elsewhere
   * all the same (`differsElsewhere`): those variables. `--heal` cannot put it back without them.
   */
  unsetVariables?: string[] | undefined;
  /**
   * Of a field whose manifests' value reads variables not set in this run, where the state's keyed
   * hash says the service's value is not what voxform last applied (class `outside`): those variables.
   * Neither side's value is shown: the service's is a secret, the manifests' not known.
   */
  valueNotShown?: string[] | undefined;
}

export interface DriftedResource {
  /** The plan's change of the resource: its addresses, sensitive paths and field views. */
  change: ResourceChange;
  address: string;
  kind: ResourceKind;
  /** Its fields' class when they all agree; else `unlabelled` when one is, else `unrecorded` when one is, else `environment` when one is, else `both`. */
  class: DriftClass;
  /** With class `environment`: the environment whose apply set it (its first such field's). */
  environment?: string | undefined;
  fields: DriftedField[];
  /**
   * Whether the service lost it since voxform last applied it: a knowledge file no agent lists any
   * more, a number the account no longer has, an agent the service no longer has (no fields: there is
   * nothing left to compare).
   */
  gone: boolean;
  /**
   * Whether `--heal` puts it back in this run: an agent with a field changed outside voxform
   * (`outside` or `both`), other than its knowledge files, whose heal needs no variable this run does
   * not have (`healNeeds`). The ledger records agents' names and configs only.
   */
  healable: boolean;
  /**
   * Of an agent changed outside voxform that `--heal` cannot put back in this run (so not `healable`):
   * the variables it needs, not set here or not as at the last apply (a field it would put back reads
   * one, or a secret not compared is not what voxform last applied). Empty when the places do not name
   * them. `--heal` leaves the agent as the service holds it, and no heal hint is shown for it but this.
   */
  healNeeds?: string[] | undefined;
}

/**
 * A place of the manifests whose value reads a variable not set where drift ran (`${env:X}`, no
 * default): the manifests' side is not known, so it is neither compared nor reported as a
 * difference, and `--heal` leaves the service's value there as it is.
 */
export interface NotComparedField {
  address: string;
  kind: ResourceKind;
  /** The plan's change of the field (`before` the service's value: a secret, never shown). */
  field: FieldChange;
  /** The unset variables the place reads; empty when the place does not record them (a credential's key). */
  variables: string[];
  /** Of an agent's field: the keyed hash of what voxform last applied there, as the state keeps it. */
  lastApplied?: string | undefined;
}

interface DriftSummary {
  /** Resources of the manifests compared. */
  checked: number;
  /** Resources by class. */
  outside: number;
  pending: number;
  both: number;
  unlabelled: number;
  environment: number;
  unrecorded: number;
}

/** What a `--heal` of the report did: which healable agents it put back and which it did not. */
export interface HealOutcome {
  /** Ids of the history records whose configurations were put back, newest first. */
  records: string[];
  /** Addresses of the agents put back. */
  healed: string[];
  /** Addresses of the healable agents not put back: failed, partly applied, skipped, stopped or not approved. */
  failed: string[];
}

export interface DriftReport {
  /** ISO 8601: when the service was read. */
  checkedAt: string;
  /** `ENV@SERVICE`. */
  workspace: string;
  environment: string | undefined;
  baseUrl: string;
  files: string[];
  /** Every resource that differs, in the plan's order. */
  resources: DriftedResource[];
  summary: DriftSummary;
  /** The places not compared, in the plan's order, when there are any: their variables are not set (`NotComparedField`). Never drift. */
  notCompared?: NotComparedField[] | undefined;
  /** Set after `--heal` ran: what it put back and what it did not (the resources above are what differed before it). */
  heal?: HealOutcome | undefined;
  /** Set when the state keeps nothing of the workspace though its ledger records applies of it: which side moved is then not known. */
  missingState?: MissingState | undefined;
  /** Set when the state holds no apply of the workspace (lost, or never written there): where the state is, as it may be shown. */
  noApplyRecorded?: { state: string } | undefined;
  /** The addresses the last apply recorded that the manifests no longer name (the plan's `noLongerManaged`), when there are any: not compared, never drift. */
  noLongerManaged?: string[] | undefined;
}

/**
 * Whether the service's side of a field is not known rather than unset: a resource the service cannot
 * read back (a campaign, a credential) and no state says what was applied (`reason: live_unknown`).
 */
export function liveUnknown(resource: Pick<DriftedResource, 'change'>, field: Pick<DriftedField, 'field'>): boolean {
  return resource.change.reason === 'live_unknown' && field.field.before === undefined;
}

/** Whether anything differs (exit 2). */
export function hasDrift(report: Pick<DriftReport, 'resources'>): boolean {
  return report.resources.length > 0;
}
