/** Rules across resources, each a small function: references resolve, and no live resource is claimed twice. */
import { didYouMean } from '../util/did-you-mean.js';
import type { AgentDraft } from './agents.js';
import type { DiagnosticList } from './diagnostics.js';
import { formatSourceLocation } from '../errors.js';
import { isPhoneNumber } from './names.js';
import { locationOf } from './source.js';
import type { CampaignDraft, CredentialDraft, KnowledgeDraft, PhoneDraft } from './resources.js';

export interface Drafts {
  agents: Map<string, AgentDraft>;
  phones: Map<string, PhoneDraft>;
  campaigns: Map<string, CampaignDraft>;
  knowledge: Map<string, KnowledgeDraft>;
  /** Local names of knowledge files (including ones whose entry had errors: they exist). */
  knowledgeNames: ReadonlySet<string>;
  /** Local names of agents (including ones whose entry had errors). */
  agentNames: ReadonlySet<string>;
  phoneNumbers: ReadonlySet<string>;
  credentials: CredentialDraft[];
}

function suggestion(name: string, candidates: Iterable<string>, diagnostics: DiagnosticList): string {
  const near = didYouMean(name, candidates, diagnostics.suggestions);
  return near ? `; did you mean "${near}"?` : '';
}

function checkPhoneAgents(drafts: Drafts, diagnostics: DiagnosticList): void {
  for (const phone of drafts.phones.values()) {
    const agent = phone.agent;
    if (!agent || !('localName' in agent) || drafts.agentNames.has(agent.localName)) continue;
    const near = suggestion(agent.localName, drafts.agentNames, diagnostics);
    diagnostics.error(
      'reference_missing',
      `phone "${phone.number}" is answered by agent "${agent.localName}", which the manifest does not define${near || '; for an agent outside the manifest write agent: { id: … }'}`,
      agent.span,
    );
  }
}

function checkCampaignCallers(drafts: Drafts, diagnostics: DiagnosticList): void {
  for (const campaign of drafts.campaigns.values()) {
    const caller = campaign.caller;
    // A caller that is not E.164 is the schema's error already: it could never be a phone of the manifest.
    if (!caller || drafts.phoneNumbers.has(caller.number) || !isPhoneNumber(caller.number)) continue;
    diagnostics.error(
      'reference_missing',
      `campaign "${campaign.localName}" calls from "${caller.number}", which is not a phone of the manifest${suggestion(caller.number, drafts.phoneNumbers, diagnostics) || '; add it under phones'}`,
      caller.span,
    );
  }
}

function checkAgentKnowledge(drafts: Drafts, diagnostics: DiagnosticList): void {
  for (const agent of drafts.agents.values()) {
    for (const reference of agent.knowledge ?? []) {
      if (drafts.knowledgeNames.has(reference.name)) continue;
      diagnostics.error(
        'reference_missing',
        `agent "${agent.localName}" attaches knowledge file "${reference.name}", which the manifest does not define${suggestion(reference.name, drafts.knowledgeNames, diagnostics) || '; add it under knowledge'}`,
        reference.span,
      );
    }
  }
}

/** Two local names adopting one live agent (or campaign) would undo each other on every apply. */
function checkUniqueIds(drafts: Drafts, diagnostics: DiagnosticList): void {
  const check = (kind: string, items: Iterable<{ localName: string; id: string | undefined; idSpan: AgentDraft['idSpan']; keySpan: AgentDraft['keySpan'] }>): void => {
    const seen = new Map<string, { localName: string; span: AgentDraft['keySpan'] }>();
    for (const item of items) {
      if (item.id === undefined) continue;
      const span = item.idSpan ?? item.keySpan;
      const first = seen.get(item.id);
      if (first) {
        diagnostics.error(
          'duplicate_id',
          `${kind} "${item.localName}" has the same id as ${kind} "${first.localName}" (${formatSourceLocation(locationOf(first.span))}); each live ${kind} can be managed by one entry`,
          span,
        );
      } else {
        seen.set(item.id, { localName: item.localName, span });
      }
    }
  };
  check('agent', drafts.agents.values());
  check('campaign', drafts.campaigns.values());
}

/** One credential per provider: the service stores one key per provider. */
function checkUniqueProviders(drafts: Drafts, diagnostics: DiagnosticList): void {
  const seen = new Map<string, CredentialDraft>();
  for (const credential of drafts.credentials) {
    const first = seen.get(credential.provider);
    if (first) {
      diagnostics.error(
        'duplicate_resource',
        `credential "${credential.provider}" is defined twice: here and at ${formatSourceLocation(locationOf(first.providerSpan))}`,
        credential.providerSpan,
      );
    } else {
      seen.set(credential.provider, credential);
    }
  }
}

/**
 * Every rule across resources; `unparsed`: a file could not be parsed, and the rules that need every
 * resource of the manifest (references) are skipped, as they would only add noise.
 */
export function checkAcrossResources(drafts: Drafts, diagnostics: DiagnosticList, unparsed: boolean): void {
  if (!unparsed) for (const rule of [checkPhoneAgents, checkCampaignCallers, checkAgentKnowledge]) rule(drafts, diagnostics);
  checkUniqueIds(drafts, diagnostics);
  checkUniqueProviders(drafts, diagnostics);
}
