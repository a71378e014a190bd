/** The checked drafts of a load → `DesiredState` records; runs only without errors, so required values are there. */
import type { AgentDraft } from './agents.js';
import type { KnowledgeContent } from './includes.js';
import { sha256 } from '../util/hash.js';
import { mimeTypeFor } from '../util/mime.js';
import { attachSpans, shallowCopy, type NodeSpans } from './positions.js';
import type { CampaignDraft, CredentialDraft, KnowledgeDraft, PhoneDraft } from './resources.js';
import { locationOf } from './source.js';
import type { SourceLocation } from '../errors.js';
import type { DesiredAgent, DesiredCampaign, DesiredCredential, DesiredKnowledgeFile, DesiredPhone } from './types.js';

export function desiredAgent(draft: AgentDraft, promptText: string | undefined, promptDisplay?: string): DesiredAgent {
  let config = draft.config;
  let promptFile: DesiredAgent['promptFile'];
  if (promptText !== undefined) {
    // The other fields still point at the lines that wrote them (policy findings name those lines).
    config = shallowCopy(config) as Record<string, unknown>;
    config.prompt = promptText;
    if (draft.prompt && promptDisplay !== undefined) promptFile = { display: promptDisplay, verbatim: draft.prompt.template === undefined, at: locationOf(draft.prompt.span) };
  }
  return withEntrySpans(draft.entrySpans, {
    kind: 'agent',
    address: `agent.${draft.localName}`,
    source: locationOf(draft.keySpan),
    localName: draft.localName,
    id: draft.id as string,
    ...(draft.idSpan ? { idSource: locationOf(draft.idSpan) } : {}),
    name: draft.name,
    config,
    knowledge: draft.knowledge?.map((reference) => reference.name),
    ignore: draft.ignore,
    sensitivePaths: draft.sensitivePaths,
    envReferences: draft.envReferences,
    ...(promptFile ? { promptFile } : {}),
    ...(draft.template ? { template: draft.template } : {}),
  });
}

/**
 * Where an agent's id is written: its `id:` (under `--env`, the overlay's when it gives one), else its
 * key. Every command that finds the service without that id reports it here, where the typo is.
 */
export function agentIdSource(agent: Pick<DesiredAgent, 'source' | 'idSource'>): SourceLocation {
  return agent.idSource ?? agent.source;
}

/**
 * `localNames`: each manifest agent's local name by its id. A phone that names such an agent by its id is
 * bound to that agent as if by name: its binding waits for the agent's update, and `--target` takes the agent along.
 */
export function desiredPhone(draft: PhoneDraft, agents: Map<string, AgentDraft>, localNames: ReadonlyMap<string, string>): DesiredPhone {
  let agent: DesiredPhone['agent'];
  if (draft.agent && 'localName' in draft.agent) agent = { id: agents.get(draft.agent.localName)?.id as string, localName: draft.agent.localName };
  else if (draft.agent) agent = { id: draft.agent.id, localName: localNames.get(draft.agent.id), source: locationOf(draft.agent.span) };
  return withEntrySpans(draft.entrySpans, { kind: 'phone', address: `phone.${draft.number}`, source: locationOf(draft.keySpan), number: draft.number, agent, import: draft.import, sensitivePaths: draft.sensitivePaths });
}

export function desiredCampaign(draft: CampaignDraft): DesiredCampaign {
  return withEntrySpans(draft.entrySpans, {
    kind: 'campaign',
    address: `campaign.${draft.localName}`,
    source: locationOf(draft.keySpan),
    localName: draft.localName,
    id: draft.id as string,
    name: draft.name,
    include_metadata_in_prompt: draft.include_metadata_in_prompt,
    caller: draft.caller?.number,
    sensitivePaths: draft.sensitivePaths,
  });
}

export function desiredKnowledge(draft: KnowledgeDraft, content: KnowledgeContent): DesiredKnowledgeFile {
  return withEntrySpans(draft.entrySpans, {
    kind: 'knowledge',
    address: `knowledge.${draft.localName}`,
    source: locationOf(draft.keySpan),
    localName: draft.localName,
    path: draft.request.file,
    name: draft.name,
    description: draft.description,
    contentHash: content.contentHash,
    size: content.size,
    mimeType: mimeTypeFor(draft.request.file),
    sensitivePaths: draft.sensitivePaths,
  });
}

export function desiredCredential(draft: CredentialDraft): DesiredCredential {
  return {
    kind: 'credential',
    address: `credential.${draft.provider}`,
    source: locationOf(draft.span),
    provider: draft.provider,
    apiKey: draft.apiKey,
    fingerprint: sha256(`${draft.provider}\0${draft.apiKey}`),
  };
}

/**
 * The record with the spans of the entry it was made from: a value the record keeps under the
 * entry's own key (`name`, `description`, `config`) is then found where it is written (policy/places.ts).
 */
function withEntrySpans<T extends object>(spans: NodeSpans | undefined, record: T): T {
  if (spans) attachSpans(record, spans);
  return record;
}
