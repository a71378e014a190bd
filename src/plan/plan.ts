import type { DesiredState } from '../manifest/types.js';
import type { TrustedSecrets } from '../secrets/trusted.js';
import type { StateBackend } from '../state/backend.js';
import { FileStateBackend } from '../state/file-backend.js';
import { recordPlanBasis } from './plan-file.js';
import { DEFAULT_STATE_FILE } from '../state/choice.js';
import { workspaceKey, type WorkspaceState } from '../state/types.js';
import { readCheckedWorkspace, type CheckedWorkspace } from '../state/missing-state.js';
import { createPlan } from './create-plan.js';
import { noteStateEvidence } from '../state/trusted-secrets.js';
import { checkTakeOver, findSharedConflicts, markTakenOver, readSharedView, sharedConflictError, unseenEnvironmentsWarning, type SharedResourceConflict, type SharedView } from './shared-resources.js';
import type { LiveReader, LiveState } from './read-live.js';
import type { Plan, ResourceChange } from './types.js';
import { checkOptionalOptions, DESIRED_STATE, requireOptions, withMethods, type Optional } from '../util/required-options.js';

/** The state backend `plan`, `checkDrift` and `apply` read, lock and write: what `openStateBackend` gives. */
const STATE_BACKEND = withMethods('a state backend made by openStateBackend', ['readWorkspace', 'listWorkspaces', 'acquireLock', 'writeWorkspace'] satisfies ReadonlyArray<keyof StateBackend>);

/** What `plan`, `checkDrift` and `apply` cannot run without (the rest of their options have defaults). */
export const PLAN_REQUIRES = {
  desired: DESIRED_STATE,
  client: withMethods('a client made by createClient', ['getAgent', 'listPhones'] satisfies ReadonlyArray<keyof LiveReader>),
  serviceId: 'text',
  fingerprintKey: 'text',
} as const;

/** What each option `plan` and `apply` may be left without must be when given. */
export const PLAN_OPTIONAL = {
  recordedConfiguration: 'boolean',
  backend: STATE_BACKEND,
  stateFile: 'string',
  files: 'names',
  targets: 'names',
  onReadProgress: 'function',
  onChange: 'function',
  onWorkspace: 'function',
  takeOver: 'names',
  secrets: 'object',
  onWarning: 'function',
} as const satisfies Partial<Record<keyof PlanOptions, Optional>>;

export interface PlanOptions {
  /** The manifests, loaded. */
  desired: DesiredState;
  /**
   * `desired` is a recorded configuration (a rollback's, a heal's), not the manifests: what the state
   * records beyond it is not "no longer in the manifests", so the plan lists none of it.
   */
  recordedConfiguration?: boolean | undefined;
  client: LiveReader;
  /** Where the state is kept (`openStateBackend`): read, never written, and not locked. */
  backend?: StateBackend | undefined;
  /** Instead of `backend`: a state file (`.voxform/state.json`). */
  stateFile?: string | undefined;
  /** How the service is named in state and plans: its base URL, or `local` for the embedded emulator. */
  serviceId: string;
  /** `fingerprintKey(apiKey)`: the key of the hashes in the state file and saved plans (never stored). */
  fingerprintKey: string;
  /** Manifest files as shown in the plan (relative to the working directory). */
  files?: string[] | undefined;
  /** Only these addresses and what they depend on. */
  targets?: string[] | undefined;
  /** Called as each agent is read from the service. */
  onReadProgress?: ((agentsRead: number, agents: number) => void) | undefined;
  /** Told of each change made while the other reads are on the wire (a renderer prepares its text then). */
  onChange?: ((change: ResourceChange) => void) | undefined;
  /**
   * Told of the workspace as read, before the plan is made: the CLI registers the values of the
   * variables the last apply read as secrets, so a plan that no longer reads them never prints them.
   */
  onWorkspace?: ((workspace: WorkspaceState) => void) | undefined;
  /**
   * Addresses this plan may take from another environment of the same service (`--take-over`): a
   * number, campaign, credential or agent (named by one id) another environment's last apply set differently is otherwise refused.
   */
  takeOver?: string[] | undefined;
  /**
   * Hears the state backend's evidence (the recorded variables, the deploy ledger's `${env:…}` places)
   * and every live value read before they are reported, so no secret is printed.
   */
  secrets?: TrustedSecrets | undefined;
  /**
   * Told, once the plan is made, that it writes a number's binding, a campaign or a credential while
   * the state holds no workspace of the other environments the manifests put on the service.
   */
  onWarning?: ((message: string) => void) | undefined;
}

/** What `apply` would do now, read-only: the backend's workspace (the shared drift baseline), the service, the manifests. */
export async function plan(options: PlanOptions): Promise<Plan> {
  requireOptions('plan', options, PLAN_REQUIRES);
  checkOptionalOptions('plan', options, PLAN_OPTIONAL);
  const backend = options.backend ?? new FileStateBackend(options.stateFile ?? DEFAULT_STATE_FILE);
  const key = workspaceKey(options.desired.environment, options.serviceId);
  const stored = await readCheckedWorkspace(backend, key);
  options.onWorkspace?.(stored.workspace);
  if (options.secrets) await noteStateEvidence(options.secrets, backend, key, stored.workspace);
  const { plan: made } = await planWorkspace({ ...options, backend }, stored);
  recordPlanBasis(made, stored.workspace, backend);
  return made;
}

interface PlannedWorkspace {
  plan: Plan;
  live: LiveState;
  /** What the other workspaces of the service say of its campaigns and credentials: the plan was made against `view.workspace`. */
  view: SharedView;
  /** What the plan would undo of another environment's apply; empty unless `reportConflicts`. */
  conflicts: SharedResourceConflict[];
}

/**
 * A fresh plan against `stored.workspace` (as `sharedView` sees it among the other workspaces of the service),
 * carrying `stored.missingState` when the state lost the workspace;
 * every live value it reads is noted as a possible secret first. Refused (`shared_resource_conflict`)
 * when it would undo another environment's apply of the same service, unless `reportConflicts`
 * (drift, which classifies those differences instead). `reportGoneAgents`: drift's too (`CreatePlanOptions`).
 */
export async function planWorkspace(options: PlanOptions & { reportConflicts?: boolean; reportGoneAgents?: boolean }, stored: Pick<CheckedWorkspace, 'workspace' | 'missingState'>): Promise<PlannedWorkspace> {
  const { workspace, missingState } = stored;
  checkTakeOver(options.desired, options.takeOver ?? []);
  const backend = options.backend ?? new FileStateBackend(options.stateFile ?? DEFAULT_STATE_FILE);
  const { view, others, unseen } = await readSharedView(backend, options.desired, options.serviceId, workspace);
  const made = await createPlan({
    desired: options.desired,
    client: options.client,
    workspace: view.workspace,
    recorded: workspace,
    moves: view.moves,
    salt: options.fingerprintKey,
    baseUrl: options.serviceId,
    files: options.files ?? [],
    targets: options.targets ?? [],
    listNoLongerManaged: !options.recordedConfiguration,
    reportGoneAgents: options.reportGoneAgents,
    onReadProgress: options.onReadProgress,
    onAgentRead: (agent) => options.secrets?.noteLiveAgent(agent),
    liveSecrets: options.secrets,
    onChange: (change) => {
      options.secrets?.noteLive(change.before);
      options.onChange?.(change);
    },
  });
  // One pass finds every value another environment set; those `--take-over` names are marked, not refused.
  const takeOverAddresses = options.takeOver ?? [];
  const found = findSharedConflicts(made.plan.changes, others, options.fingerprintKey, view.lastWriters);
  const taken = found.filter((conflict) => takeOverAddresses.includes(conflict.address));
  const conflicts = found.filter((conflict) => !takeOverAddresses.includes(conflict.address));
  if (conflicts.length > 0 && !options.reportConflicts) throw sharedConflictError(conflicts, options.desired, options.serviceId);
  const unseenWarning = unseenEnvironmentsWarning(unseen, made.plan.changes);
  if (unseenWarning) options.onWarning?.(unseenWarning);
  const takeOver = options.takeOver?.length ? { takeOver: [...options.takeOver], changes: markTakenOver(made.plan.changes, taken) } : {};
  return { ...made, plan: { ...made.plan, ...takeOver, ...(missingState ? { missingState } : {}) }, view, conflicts };
}
