import type {
  EditCampaignInfoRequest,
  ImportPhoneRequest,
  SetAgentFilesRequest,
  SetCredentialRequest,
  UpdateAgentRequest,
} from '../schema/types.gen.js';
import type { LiveReader } from '../plan/read-live.js';
import type { KnowledgeUploadOptions } from '../api/client.js';

/** The part of the API client that applying a plan needs (the real one is `src/api`'s `ApiClient`). */
export interface ApplyClient extends LiveReader {
  updateAgent(agentId: string, body: UpdateAgentRequest): Promise<unknown>;
  setAgentFiles(body: SetAgentFilesRequest): Promise<unknown>;
  importPhone(body: ImportPhoneRequest): Promise<unknown>;
  setPhoneAgent(phone: string, agentId: string): Promise<unknown>;
  editCampaignInfo(campaignId: string, body: EditCampaignInfoRequest): Promise<unknown>;
  setCampaignCaller(campaignId: string, caller: string): Promise<unknown>;
  setCredential(body: SetCredentialRequest): Promise<unknown>;
  /** Presigned upload, then create_file; resolves to the new file's id. */
  uploadKnowledgeFile(path: string, options: KnowledgeUploadOptions & { name: string }): Promise<string>;
  /** The same client whose requests still waiting in it `signal` withdraws (`ApiClient.withSignal`): apply's stop sends nothing new. */
  withSignal?(signal: AbortSignal): ApplyClient;
  /** Tells `onSent` as each attempt of a request leaves the client, with its path (`ApiClient.withOnSent`): apply says a change started only then. */
  withOnSent?(onSent: (path: string) => void): ApplyClient;
}

/** Every method an apply may call that no client may lack: checked before the lock is taken, not at the first write. */
export const APPLY_CLIENT_METHODS = [
  'getAgent',
  'listPhones',
  'updateAgent',
  'setAgentFiles',
  'importPhone',
  'setPhoneAgent',
  'editCampaignInfo',
  'setCampaignCaller',
  'setCredential',
  'uploadKnowledgeFile',
] as const satisfies ReadonlyArray<keyof ApplyClient>;
