import type { DesiredAgent, DesiredCampaign, DesiredCredential, DesiredKnowledgeFile, DesiredPhone, DesiredState } from '../manifest/types.js';

type DesiredByKind = {
  agent: DesiredAgent;
  phone: DesiredPhone;
  campaign: DesiredCampaign;
  knowledge: DesiredKnowledgeFile;
  credential: DesiredCredential;
};

export type DesiredResource = DesiredByKind[keyof DesiredByKind];

/** The desired resources by address, for apply to find what a change of the plan is about. */
export class DesiredIndex {
  private readonly byAddress: Map<string, DesiredResource>;

  constructor(desired: DesiredState) {
    const all = [desired.agents, desired.phones, desired.campaigns, desired.knowledge, desired.credentials].flatMap((map) => [...map.values()]);
    this.byAddress = new Map(all.map((resource) => [resource.address, resource]));
  }

  get(address: string): DesiredResource | undefined {
    return this.byAddress.get(address);
  }

  /** The resource a change of the plan is about; a plan naming one the manifests lack is refused. */
  of<K extends keyof DesiredByKind>(address: string, kind: K): DesiredByKind[K] {
    const found = this.byAddress.get(address);
    if (!found || found.kind !== kind) throw new Error(`the plan names ${address}, which the manifests do not define as a ${kind}`);
    return found as DesiredByKind[K];
  }
}
