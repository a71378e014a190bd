import type { DesiredState } from '../manifest/types.js';
import { readStateFile } from '../state/state-file.js';
import { emptyWorkspace, workspaceKey } from '../state/types.js';
import { createPlan } from './create-plan.js';
import type { LiveReader } from './read-live.js';
import type { Plan } from './types.js';

export interface PlanOptions {
  /** The manifests, loaded. */
  desired: DesiredState;
  client: LiveReader;
  /** The state file (`.voxform/state.json`); read, never written, and not locked. */
  stateFile: string;
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
}

/** What `apply` would do now, read-only: the state file's workspace, the service, the manifests. */
export async function plan(options: PlanOptions): Promise<Plan> {
  const state = await readStateFile(options.stateFile);
  const workspace = state.workspaces[workspaceKey(options.desired.environment, options.serviceId)] ?? emptyWorkspace();
  const created = await createPlan({
    desired: options.desired,
    client: options.client,
    workspace,
    salt: options.fingerprintKey,
    baseUrl: options.serviceId,
    files: options.files ?? [],
    targets: options.targets ?? [],
    ...(options.onReadProgress ? { onReadProgress: options.onReadProgress } : {}),
  });
  return created.plan;
}
