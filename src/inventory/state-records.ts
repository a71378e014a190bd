/**
 * What voxform's state records of campaigns and knowledge files: the facts the service cannot return.
 * Read only (no lock): a listing must not wait for, nor stop, an apply. A state that cannot be read
 * is not an error here: the other sources still answer, and the report says what is missing.
 */
import { isVoxformError } from '../errors.js';
import type { StateBackend } from '../state/backend.js';
import type { CampaignState, KnowledgeState } from '../state/types.js';

export interface InventoryState {
  /** The workspace read: `ENV@SERVICE`. */
  workspace: string;
  /** By address (`knowledge.faq`), as the state keeps them (empty when the state could not be read or holds no workspace). */
  campaigns: Readonly<Record<string, CampaignState>>;
  knowledge: Readonly<Record<string, KnowledgeState>>;
  /** Why the state could not be read, when it could not. */
  problem?: string;
}

export async function readInventoryState(backend: StateBackend, workspace: string): Promise<InventoryState> {
  try {
    const stored = await backend.readWorkspace(workspace);
    return { workspace, campaigns: stored.workspace.campaigns, knowledge: stored.workspace.knowledge };
  } catch (error) {
    if (!isVoxformError(error)) throw error;
    return { workspace, campaigns: {}, knowledge: {}, problem: error.message };
  }
}
