import type { DesiredAgent, DesiredCampaign, DesiredKnowledgeFile, DesiredPhone, DesiredState } from '../../src/manifest/types.js';

const here = { file: 'voxform.yaml', line: 1, col: 1 };

export function desiredAgent(localName: string, partial: Partial<DesiredAgent> = {}): DesiredAgent {
  return {
    kind: 'agent',
    address: `agent.${localName}`,
    source: here,
    localName,
    id: partial.id ?? `-OK${localName}`,
    name: undefined,
    config: {},
    knowledge: undefined,
    ignore: [],
    sensitivePaths: [],
    ...partial,
  };
}

export function desiredPhone(number: string, partial: Partial<DesiredPhone> = {}): DesiredPhone {
  return { kind: 'phone', address: `phone.${number}`, source: here, number, agent: undefined, import: undefined, sensitivePaths: [], ...partial };
}

export function desiredCampaign(localName: string, partial: Partial<DesiredCampaign> = {}): DesiredCampaign {
  return {
    kind: 'campaign',
    sensitivePaths: [],
    address: `campaign.${localName}`,
    source: here,
    localName,
    id: `cmp_${localName}`,
    name: undefined,
    include_metadata_in_prompt: undefined,
    caller: undefined,
    ...partial,
  };
}

/** A markdown knowledge file of the manifests, `faq.md` under /tmp unless `partial` says otherwise. */
export function desiredKnowledge(localName: string, partial: Partial<DesiredKnowledgeFile> = {}): DesiredKnowledgeFile {
  return {
    kind: 'knowledge',
    address: `knowledge.${localName}`,
    source: here,
    localName,
    path: `/tmp/${localName}.md`,
    name: `${localName}.md`,
    description: undefined,
    contentHash: `sha256:${localName}`,
    size: 10,
    mimeType: 'text/markdown',
    sensitivePaths: [],
    ...partial,
  };
}

/** A desired state from lists of resources; everything else empty. */
export function desiredState(resources: {
  agents?: DesiredAgent[];
  phones?: DesiredPhone[];
  campaigns?: DesiredCampaign[];
  knowledge?: DesiredState['knowledge'] extends Map<string, infer K> ? K[] : never;
  credentials?: DesiredState['credentials'] extends Map<string, infer C> ? C[] : never;
  secrets?: string[];
  environmentVariables?: string[];
}): DesiredState {
  return {
    files: ['/tmp/voxform.yaml'],
    manifestHash: 'sha256:manifest',
    environment: undefined,
    environments: [],
    region: undefined,
    baseUrl: undefined,
    agents: new Map((resources.agents ?? []).map((a) => [a.localName, a])),
    phones: new Map((resources.phones ?? []).map((p) => [p.number, p])),
    campaigns: new Map((resources.campaigns ?? []).map((c) => [c.localName, c])),
    knowledge: new Map((resources.knowledge ?? []).map((k) => [k.localName, k])),
    credentials: new Map((resources.credentials ?? []).map((c) => [c.provider, c])),
    secrets: resources.secrets ?? [],
    environmentVariables: resources.environmentVariables ?? [],
  };
}
