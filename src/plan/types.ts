/**
 * The plan: what `voxform apply` will do, as data. The plan is the program: each change carries the
 * exact requests apply sends, in order, with their dependencies; apply runs those requests and
 * decides nothing of its own. Renderers (text, JSON, Markdown) show it; the request bodies never
 * hold a secret (secrets are filled in by apply, see `ValueFill`), and the `before`/`after` values
 * that may are listed by path and redacted when rendered or saved.
 */

import type { PathSegment } from '../util/field-path.js';

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

/** What a planned request does: the client operation that sends it. */
export type RequestOperation =
  | 'set_credential'
  | 'upload_knowledge_file'
  | 'update_agent'
  | 'read_agent'
  | 'set_agent_files'
  | 'import_phone'
  | 'set_phone_agent'
  | 'edit_campaign_info'
  | 'set_campaign_caller';

/**
 * Where apply takes a value it puts into a request body when it runs:
 * - `secret`: a secret of the manifests (`from: 'manifest'`: a `${env:…}` value, a header, an import
 *   or credential key, read again from the manifests and the environment at apply) or one the
 *   service holds and the body sends back unchanged (`from: 'live'`: read from the service at
 *   apply). `path` is the value's place in the resource (`['config', 'tools', 0, 'header']`).
 * - `resultOf`: the id returned by an earlier request of the plan (a new knowledge file's id).
 */
export type FillSource = { secret: { address: string; from: 'manifest' | 'live'; path: PathSegment[] } } | { resultOf: string };

/** One value apply puts into a body before sending it; the planned body holds a placeholder there. */
export interface ValueFill {
  /** The place in the body (keys and array indices). */
  at: PathSegment[];
  value: FillSource;
}

/** A request apply will send, exactly: nothing about it is decided at apply but the fills. */
export interface PlannedRequest {
  /** Unique in the plan: the change's address and the request's position (`agent.front-desk/1`). */
  id: string;
  operation: RequestOperation;
  method: 'GET' | 'PUT' | 'POST';
  /** The service path as sent, ids percent-encoded. */
  path: string;
  /**
   * The JSON body as sent, except at `fills`, where it holds `(sensitive)` or
   * `(known after apply)`. For `upload_knowledge_file` (presign, upload of the file, create_file:
   * one step, as the upload target is known only once presigned) it is the create_file record
   * with the file it uploads. Undefined for a read.
   */
  body: Record<string, unknown> | undefined;
  fills: ValueFill[];
  /** Ids of the requests that must succeed before this one is sent (the one before it in its change first). */
  dependsOn: string[];
}

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
  sensitivePaths: readonly string[];
  reason: ChangeReason | undefined;
  /** Addresses of the changes whose requests this change's requests depend on (from `requests`). */
  dependsOn: string[];
  /** The requests apply sends for this change, in order. Empty for `no-op`. */
  requests: PlannedRequest[];
  /**
   * `hmac-sha256:` of the live values this change was computed from (for an agent, the managed
   * top-level config keys whole, as its update body carries them). `apply PLAN` computes it again
   * from the service and refuses the plan (`plan_stale`) when any resource's fingerprint moved.
   * The differ makes it when it is first read.
   */
  readonly liveFingerprint: string;
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
