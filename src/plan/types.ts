/**
 * The plan is the program: each change carries the exact requests apply sends, with their
 * dependencies, and apply decides nothing of its own. Request bodies never hold a secret (see
 * `ValueFill`); `before`/`after` values that may are listed by path and redacted when shown or saved.
 */

import type { PathSegment } from '../util/field-path.js';
import type { PlanPolicy } from '../policy/plan-policy.js';
import type { MissingState } from '../state/missing-state.js';

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
  | 'content_changed'
  /**
   * A knowledge file the state records that no agent lists any more: uploaded again. Or, in drift's
   * plan only (`reportGoneAgents`), an agent the state records that the service no longer has.
   */
  | 'gone';

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
  /**
   * Set on an agent's field the manifests fill from `${env:…}` at a place the schema does not mark
   * secret (src/plan/written-field.ts): what every renderer shows instead of `before` and `after`.
   */
  shown?: ShownField | undefined;
  /**
   * The manifest addresses the values stand for, where the plan knows them (a phone's `agent_id`:
   * `agent.reception`), for display beside the raw values. Absent for other fields.
   */
  names?: { before: string | undefined; after: string | undefined };
}

/** A field as shown to a reviewer, ready to print: nothing in it is a secret. */
export interface ShownField {
  /** The live value, `(sensitive)` at the places the schema or trusted evidence says hold a secret. */
  before: unknown;
  /** The manifest's text as written, every `${env:…}` reference unresolved, save where it fills in the live value, which reads as `before` does; the schema's secret places `(sensitive)`. */
  after: unknown;
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
 * Where apply takes a value it puts into a body: `secret`, read again at apply from the manifests and
 * the environment (`from: 'manifest'`) or from the service (`from: 'live'`), at `path` in the
 * resource; or `resultOf`, the id an earlier request of the plan returned.
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
   * The JSON body as sent, except at `fills` (a placeholder there). For `upload_knowledge_file` (presign,
   * upload, create_file in one step) the create_file record. Undefined for a read.
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
  /**
   * Field paths whose value is secret on the live side (`before`) alone: trusted evidence says the
   * service holds there a secret too short for the scrub to find in text (src/secrets/trusted.ts,
   * `unsearchablePlaces`). The manifests' value there is their own text, shown.
   */
  liveSensitivePaths?: readonly string[] | undefined;
  reason: ChangeReason | undefined;
  /** Addresses of the changes whose requests this change's requests depend on (from `requests`). */
  dependsOn: string[];
  /** The requests apply sends for this change, in order. Empty for `no-op`. */
  requests: PlannedRequest[];
  /**
   * A resource whose manifest key was renamed (an agent or campaign of the same `id:`, a knowledge
   * file of the same content): the address the state kept it under.
   * Apply moves that entry to `address`, whatever the action (src/state/moved-resources.ts).
   */
  movedFrom?: string | undefined;
  /**
   * An agent or campaign whose key named another one at the last apply, which no resource of the
   * manifests names now: that one's id (the plan lists it as no longer managed, `keyNowNames`). The
   * state's entry under the key is that one's, not this resource's last apply.
   */
  earlierId?: string | undefined;
  /**
   * The environments of the same service (`default` for the one without `--env`) whose last apply
   * this change undoes, allowed by `--take-over`: the plan says it takes the resource from them.
   */
  takesOverFrom?: string[] | undefined;
  /**
   * Keyed hash of the live values this change was computed from (an agent's managed top-level config
   * keys whole). `apply PLAN` computes it again and refuses the plan (`plan_stale`) when it moved.
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
  /**
   * `--take-over` addresses: what this plan may take from another environment of the same service.
   * Absent when there is none. Kept in a saved plan, so that the lines that plan it again carry them
   * and its apply records what it takes as this environment's.
   */
  takeOver?: string[];
  /** Every resource of the manifest, changed or not, in apply order then address order. */
  changes: ResourceChange[];
  summary: PlanSummary;
  /** The environment variables the manifests read, by name, and which are new since the last apply. */
  environmentVariables?: EnvironmentVariables;
  /** Policy findings, changed prompts' token counts and what the change relaxes (absent when the plan was made without policy, as the library's `plan` does). */
  policy?: PlanPolicy;
  /**
   * Set when the state holds nothing of the workspace though its ledger records applies of it: the
   * plan counts what is already on the service as never applied (docs/state.md).
   */
  missingState?: MissingState;
  /**
   * What the workspace's state records under addresses the manifests no longer name: nothing is sent
   * for them (the service has no delete for these), they are only no longer managed. Absent when
   * there is none, and in a plan limited by `targets` (src/plan/no-longer-managed.ts).
   */
  noLongerManaged?: NoLongerManaged[];
}

/** A resource the state records that the manifests no longer name: left as it is on the service. */
export interface NoLongerManaged {
  /** The address the state records it under (`knowledge.prices`). */
  address: string;
  kind: ResourceKind;
  /** The service's id as the state records it (agent id, number, campaign id, file id, provider). */
  id: string;
  /** A knowledge file: the manifests' agents that keep it attached live (they list no files: no `knowledge:`, no `config.knowledge_base.files`). Empty for other kinds. */
  attachedTo: string[];
  /**
   * An agent or campaign whose key the manifests keep but give another `id:`: that id. Apply writes
   * the new resource's record over this one's, so later plans no longer list it.
   */
  keyNowNames?: string;
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
  /** Whether an apply of this workspace recorded the names it read; without a record every name counts as new. */
  recorded: boolean;
}
