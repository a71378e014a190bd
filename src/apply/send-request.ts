/**
 * Sends one planned request through the typed client. A request whose path is not the one its
 * operation sends for its resource is refused unsent, so the plan shown is the plan run.
 */
import type {
  Agent,
  EditCampaignInfoRequest,
  ImportPhoneRequest,
  SetAgentFilesRequest,
  SetCredentialRequest,
  UpdateAgentRequest,
} from '../schema/types.gen.js';
import { VoxformError } from '../errors.js';
import type { PlannedRequest, RequestOperation, ResourceChange } from '../plan/types.js';
import type { ApplyClient } from './client.js';
import type { KnowledgeUploadOptions } from '../api/client.js';
import type { DesiredIndex } from './resources.js';

/** What a request returned that apply uses: a new file id, or the agent read back. */
export type RequestResult = { fileId: string } | { agent: Agent } | undefined;

const encode = encodeURIComponent;

/** The path each operation sends to, for the resource id of its change. */
const PATHS: Record<RequestOperation, (id: string) => string> = {
  set_credential: () => '/user/credentials',
  upload_knowledge_file: () => '/knowledge/create_file',
  update_agent: (id) => `/agents/${encode(id)}`,
  read_agent: (id) => `/agents/${encode(id)}`,
  set_agent_files: () => '/knowledge/set_agent_files',
  import_phone: () => '/phones/import',
  set_phone_agent: (id) => `/phones/${encode(id)}/set_agent`,
  edit_campaign_info: (id) => `/campaigns/${encode(id)}/info`,
  set_campaign_caller: (id) => `/campaigns/${encode(id)}/set_caller`,
};

function text(body: Record<string, unknown>, key: string): string {
  const value = body[key];
  if (typeof value !== 'string') throw new VoxformError('plan_unreadable', `The planned body has no \`${key}\`.`, { hint: 'Make the plan again with `voxform plan --out FILE`; never edit a saved plan.' });
  return value;
}

export async function sendRequest(
  request: PlannedRequest,
  change: ResourceChange,
  body: Record<string, unknown> | undefined,
  context: { client: ApplyClient; resources: DesiredIndex },
): Promise<RequestResult> {
  const id = change.id ?? '';
  if (PATHS[request.operation](id) !== request.path) {
    throw new VoxformError('plan_unreadable', `${request.id}: ${request.operation} of ${change.address} is sent to ${PATHS[request.operation](id)}, but the plan says ${request.path}; nothing was sent.`, { hint: 'Make the plan again with `voxform plan --out FILE`; never edit a saved plan.' });
  }
  const { client } = context;
  const payload = body ?? {};
  switch (request.operation) {
    case 'set_credential':
      await client.setCredential(payload as unknown as SetCredentialRequest);
      return undefined;
    case 'upload_knowledge_file': {
      const file = context.resources.of(change.address, 'knowledge');
      // The manifests' hash (checked before) covers the file; this names the file if it moved since.
      if (payload.content_hash !== file.contentHash) throw new VoxformError('plan_stale', `${file.address}: the file changed since the plan was made; nothing was uploaded.`, { hint: 'Plan again.' });
      // The content the plan showed, checked as it is sent: the file may be edited while apply asks.
      const options: KnowledgeUploadOptions & { name: string } = { name: text(payload, 'name'), contentHash: file.contentHash };
      if (typeof payload.description === 'string') options.description = payload.description;
      return { fileId: await client.uploadKnowledgeFile(file.path, options) };
    }
    case 'update_agent':
      await client.updateAgent(id, payload as unknown as UpdateAgentRequest);
      return undefined;
    case 'read_agent':
      return { agent: await client.getAgent(id) };
    case 'set_agent_files':
      await client.setAgentFiles(payload as unknown as SetAgentFilesRequest);
      return undefined;
    case 'import_phone':
      await client.importPhone(payload as unknown as ImportPhoneRequest);
      return undefined;
    case 'set_phone_agent':
      await client.setPhoneAgent(id, text(payload, 'agent_id'));
      return undefined;
    case 'edit_campaign_info':
      await client.editCampaignInfo(id, payload as unknown as EditCampaignInfoRequest);
      return undefined;
    case 'set_campaign_caller':
      await client.setCampaignCaller(id, text(payload, 'caller'));
      return undefined;
  }
}
