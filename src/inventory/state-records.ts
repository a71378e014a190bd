/**
 * What voxform's state records of campaigns and knowledge files: the facts the service cannot return.
 * Read only (no lock): a listing must not wait for, nor stop, an apply. A state that cannot be read
 * is not an error here: the other sources still answer, and the report says what is missing.
 */
import { isVoxformError } from '../errors.js';
import type { StateBackend } from '../state/backend.js';
import { splitWorkspaceKey, type CampaignState, type KnowledgeState } from '../state/types.js';
import { missingStateJson, readCheckedWorkspace, type MissingState, type MissingStateJson } from '../state/missing-state.js';
import { readOtherWorkspaces, type OtherWorkspace } from '../plan/shared-resources.js';

/** The state's part of a listing's `sources`, with `problem` or `missing_state` when so. */
export function stateSourceJson(state: InventoryState): { workspace: string; problem?: string; missing_state?: MissingStateJson } {
  return {
    workspace: state.workspace,
    ...(state.problem !== undefined ? { problem: state.problem } : {}),
    ...(state.missingState ? { missing_state: missingStateJson(state.missingState) } : {}),
  };
}

export interface InventoryState {
  /** The workspace read: `ENV@SERVICE`. */
  workspace: string;
  /** By address (`knowledge.faq`), as the state keeps them (empty when the state could not be read or holds no workspace). */
  campaigns: Readonly<Record<string, CampaignState>>;
  knowledge: Readonly<Record<string, KnowledgeState>>;
  /**
   * Every workspace of the service, this one's first (its environment: `default` without --env): a
   * number another environment's apply holds, and a campaign another one wrote last, are theirs.
   * Empty when the state could not be read.
   */
  workspaces: OtherWorkspace[];
  /** Why the state could not be read, when it could not. */
  problem?: string;
  /** Set when the state holds nothing of the workspace though its history records applies of it (missing-state.ts). */
  missingState?: MissingState;
}

export async function readInventoryState(backend: StateBackend, workspace: string): Promise<InventoryState> {
  try {
    const stored = await readCheckedWorkspace(backend, workspace);
    const { environment, serviceId } = splitWorkspaceKey(workspace) ?? { environment: workspace, serviceId: '' };
    const workspaces = [{ environment, workspace: stored.workspace }, ...(await readOtherWorkspaces(backend, workspace, serviceId))];
    return { workspace, campaigns: stored.workspace.campaigns, knowledge: stored.workspace.knowledge, workspaces, ...(stored.missingState ? { missingState: stored.missingState } : {}) };
  } catch (error) {
    if (!isVoxformError(error)) throw error;
    return { workspace, campaigns: {}, knowledge: {}, workspaces: [], problem: error.message };
  }
}
