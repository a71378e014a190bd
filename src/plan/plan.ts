import type { DesiredState } from '../manifest/types.js';
import type { TrustedSecrets } from '../secrets/trusted.js';
import type { StateBackend } from '../state/backend.js';
import { FileStateBackend } from '../state/file-backend.js';
import { workspaceKey, type WorkspaceState } from '../state/types.js';
import { createPlan } from './create-plan.js';
import type { LiveReader } from './read-live.js';
import type { Plan, ResourceChange } from './types.js';

export interface PlanOptions {
  /** The manifests, loaded. */
  desired: DesiredState;
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
  /** Told of each change made while the other reads are on the wire (`createPlan`: agents, and phones). */
  onChange?: ((change: ResourceChange) => void) | undefined;
  /**
   * Told of the workspace as read from the backend, before anything of the plan is made or
   * reported: the CLI registers the values of the variables the last apply read as secrets, so a
   * plan that no longer reads them never prints what they put on the service.
   */
  onWorkspace?: ((workspace: WorkspaceState) => void) | undefined;
  /**
   * Hears the variables the state recorded and every live value the plan reads (each change's
   * `before`) before it is reported, so what `${env:…}` put on the service is never printed, whatever
   * the manifests and the state file now say (src/secrets/trusted.ts).
   */
  secrets?: TrustedSecrets | undefined;
}

/** What `apply` would do now, read-only: the backend's workspace (the shared drift baseline), the service, the manifests. */
export async function plan(options: PlanOptions): Promise<Plan> {
  const backend = options.backend ?? new FileStateBackend(options.stateFile ?? '.voxform/state.json');
  const { workspace } = await backend.readWorkspace(workspaceKey(options.desired.environment, options.serviceId));
  options.onWorkspace?.(workspace);
  options.secrets?.noteRecordedVariables(workspace.environmentVariables);
  const created = await createPlan({
    desired: options.desired,
    client: options.client,
    workspace,
    salt: options.fingerprintKey,
    baseUrl: options.serviceId,
    files: options.files ?? [],
    targets: options.targets ?? [],
    ...(options.onReadProgress ? { onReadProgress: options.onReadProgress } : {}),
    onChange: (change) => {
      options.secrets?.noteLive(change.before);
      options.onChange?.(change);
    },
  });
  return created.plan;
}
