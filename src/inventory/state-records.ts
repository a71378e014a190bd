/**
 * What voxform's state records of campaigns, knowledge files and numbers: the facts the service cannot return.
 * Read only (no lock): a listing must not wait for, nor stop, an apply. A state that cannot be read
 * is not an error here: the other sources still answer, and the report says what is missing. Nor is
 * another environment's workspace that cannot be read: this environment's records are still whole.
 */
import { isVoxformError } from '../errors.js';
import type { StateBackend } from '../state/backend.js';
import { splitWorkspaceKey, type CampaignState, type KnowledgeState, type UnreadEnvironment } from '../state/types.js';
import { missingStateJson, readCheckedWorkspace, type MissingState, type MissingStateJson } from '../state/missing-state.js';
import { readOtherEnvironments, type OtherWorkspace } from '../plan/shared-resources.js';

/** The state's part of a listing's `sources`, with `problem`, `missing_state` or `unread_environments` when so. */
export interface StateSourceJson {
  workspace: string;
  problem?: string;
  missing_state?: MissingStateJson;
  unread_environments?: UnreadEnvironment[];
}

export function stateSourceJson(state: InventoryState): StateSourceJson {
  return {
    workspace: state.workspace,
    ...(state.problem !== undefined ? { problem: state.problem } : {}),
    ...(state.missingState ? { missing_state: missingStateJson(state.missingState) } : {}),
    ...(state.unreadEnvironments.length > 0 ? { unread_environments: state.unreadEnvironments } : {}),
  };
}

export interface InventoryState {
  /** The workspace read: `ENV@SERVICE`. */
  workspace: string;
  /** By address (`knowledge.faq`), as the state keeps them (empty when the state could not be read or holds no workspace). */
  campaigns: Readonly<Record<string, CampaignState>>;
  knowledge: Readonly<Record<string, KnowledgeState>>;
  /**
   * The workspaces of the service read, this one's first (its environment: `default` without --env):
   * a number another environment's apply holds, and a campaign another one wrote last, are theirs.
   * Only this one's unless the others were asked for; empty when this one could not be read (whose
   * claims come first is then not known).
   */
  workspaces: OtherWorkspace[];
  /** Why the state could not be read, when it could not. */
  problem?: string;
  /** Set when the state holds nothing of the workspace though its history records applies of it (missing-state.ts). */
  missingState?: MissingState;
  /** The other environments' workspaces that could not be read: left out of `workspaces`. */
  unreadEnvironments: UnreadEnvironment[];
}

/** This environment's workspace; with `otherEnvironments`, the service's other workspaces too (numbers and campaigns are the account's). */
export async function readInventoryState(backend: StateBackend, workspace: string, { otherEnvironments = false } = {}): Promise<InventoryState> {
  let stored;
  try {
    stored = await readCheckedWorkspace(backend, workspace);
  } catch (error) {
    if (!isVoxformError(error)) throw error;
    return { workspace, campaigns: {}, knowledge: {}, workspaces: [], problem: error.message, unreadEnvironments: [] };
  }
  const { environment, serviceId } = splitWorkspaceKey(workspace) ?? { environment: workspace, serviceId: '' };
  const others = otherEnvironments ? await readOtherEnvironments(backend, workspace, serviceId) : { workspaces: [], unread: [] };
  return {
    workspace,
    campaigns: stored.workspace.campaigns,
    knowledge: stored.workspace.knowledge,
    workspaces: [{ environment, workspace: stored.workspace }, ...others.workspaces],
    ...(stored.missingState ? { missingState: stored.missingState } : {}),
    unreadEnvironments: others.unread,
  };
}
