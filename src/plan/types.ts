/**
 * The plan: what `voxform apply` would do, as data. Renderers (text, JSON, Markdown) and apply read
 * it; nothing in it is a secret in clear — sensitive values are listed by path and redacted when
 * rendered or saved.
 */

/** The kinds of resource a manifest manages, as they appear in addresses (`agent.front-desk`). */
export type ResourceKind = 'agent' | 'phone' | 'campaign' | 'knowledge' | 'credential';

/**
 * - `create`: the resource does not exist yet (a phone to import, a knowledge file to upload, a
 *   credential never applied). `before` is null.
 * - `update`: it exists (or its live state cannot be read and voxform will apply it anyway: see
 *   `reason: 'live_unknown'`) and some managed field differs. `before` holds the live (or last
 *   applied) values of the managed fields, `after` the desired ones.
 * - `no-op`: nothing to do. `before` equals `after`.
 * Agents have no `create`: the service has no create operation, so agents are adopted by id.
 */
export type Action = 'create' | 'update' | 'no-op';

/** Why a change is shown the way it is. For display only: apply never decides on it. */
export type ChangeReason =
  /** Live differs from what voxform last applied, while the manifest did not change. */
  | 'drift'
  /** The service cannot be read for this resource (campaigns, credentials) and no state says what was applied. */
  | 'live_unknown'
  /** A knowledge file's content changed: a new upload, and the agents using it get the new file id. */
  | 'content_changed';

/** One managed value that differs. Paths are dotted from the resource (`config.flow.response_delay`, `name`). */
export interface FieldChange {
  path: string;
  /** The live (or last-applied) value; `undefined` when unset. Redacted by renderers when `sensitive`. */
  before: unknown;
  /** The desired value; `null` means the manifest clears the field. `UNKNOWN_AFTER_APPLY` when only apply can know it. */
  after: unknown;
  sensitive: boolean;
  /** This field is drifting: live changed behind voxform's back while the manifest did not. */
  drift: boolean;
}

/** Stands for a value only known once apply has run (a knowledge file id from an upload). */
export const UNKNOWN_AFTER_APPLY = '(known after apply)';

export interface ResourceChange {
  /** `agent.front-desk`, `phone.+15551230001`, `campaign.spring`, `knowledge.faq`, `credential.openai`. */
  address: string;
  kind: ResourceKind;
  action: Action;
  /** The service's id of the resource, where it has one (agent id, phone number, campaign id, file id). */
  id: string | undefined;
  /**
   * The managed values as they are now (live, or last applied where the service can't be read),
   * keyed by field path; null for `create` and for `live_unknown`. Sensitive values are present in
   * memory and must be redacted by whoever prints or saves them (see `sensitivePaths`).
   */
  before: Record<string, unknown> | null;
  /** The managed values as they will be, keyed by field path. */
  after: Record<string, unknown> | null;
  /** Only the fields that differ, in stable (path) order. Empty for `no-op`. */
  fieldChanges: FieldChange[];
  /** Field paths of `before`/`after` whose values are secret. */
  sensitivePaths: string[];
  reason: ChangeReason | undefined;
  /** Addresses of changes that must succeed before this one runs (apply order). */
  dependsOn: string[];
  /**
   * `sha256:` of the live values this change was computed from. `apply PLAN` recomputes it and
   * refuses the plan (`plan_stale`) when any resource's fingerprint moved.
   */
  liveFingerprint: string;
}

export interface PlanSummary {
  create: number;
  update: number;
  unchanged: number;
  drifted: number;
}

export interface Plan {
  /** Version of this data format (and of saved plan files). */
  formatVersion: 1;
  /** ISO 8601. */
  createdAt: string;
  /** `sha256:` of the manifests and every file they include. */
  manifestHash: string;
  /** The manifest files, relative to the working directory. */
  files: string[];
  environment: string | undefined;
  baseUrl: string;
  /** `--target` addresses the plan was limited to (empty: everything). */
  targets: string[];
  /** Every resource of the manifest, changed or not, in apply order then address order. */
  changes: ResourceChange[];
  summary: PlanSummary;
  /** Things the user should know that do not stop the plan (a phone with no import block, …). */
  warnings: string[];
  /**
   * The environment variables the manifests read, by name, and which of them are new since the
   * last apply. Absent only in plans made by code that does not fill it.
   */
  environmentVariables?: EnvironmentVariables;
}

/**
 * Which environment variables the manifests read through `${env:…}`: names only, never values. A
 * name the last apply did not read is what a reviewer should question: a pull request that starts
 * reading `AWS_SECRET_ACCESS_KEY` into a webhook header shows it here.
 */
export interface EnvironmentVariables {
  /** Every name read, sorted. */
  names: string[];
  /** The names among them that the last apply of this workspace did not read, sorted. */
  new: string[];
  /**
   * Whether an apply of this workspace recorded the names it read. Without a record (nothing
   * applied yet, or a state file from a voxform that did not record them) there is nothing to
   * compare with, and every name counts as new.
   */
  recorded: boolean;
}
