/**
 * The campaigns voxform can see. The service cannot list campaigns nor read one back, so they are
 * gathered from three sources — the campaigns the manifests adopt, the campaigns voxform's state
 * records (with the values voxform last applied: the only ones it knows), and the campaigns of the
 * latest calls — and the report says so.
 */
import type { ApiClient } from '../api/index.js';
import { byCodeUnits } from '../util/compare.js';
import { eachLatestCall, INVENTORY_FORMAT_VERSION } from './inventory.js';
import { stateSourceJson, type InventoryState, type StateSourceJson } from './state-records.js';
import { campaignLastWrite } from '../plan/shared-resources.js';

type CampaignReader = Pick<ApiClient, 'iterateCallLogs'>;

type CampaignSource = 'manifest' | 'state' | 'call';

export interface LiveCampaign {
  id: string;
  /** The address of the manifest entry that adopts the campaign (`campaign.recall-reminders`), or null. */
  managed_by: string | null;
  /**
   * Another environment of the service whose apply wrote the campaign last (the state's `writeOrder`
   * across workspaces): `managed_by` is its address there and `last_applied` its values. Null when
   * this run's environment wrote it last, or which did is not known.
   */
  environment: string | null;
  /** What voxform last applied to the campaign, by whichever environment wrote it last (a secret value as its keyed hash); null when it never did. */
  last_applied: { name: string | null; caller: string | null; include_metadata_in_prompt: boolean | null } | null;
  /** How the campaign was found, in this order: a manifest names it, the state records it, a call ran for it. */
  found_through: CampaignSource[];
  /** How many of the calls read ran for it. */
  calls: number;
}

export interface CampaignsReport {
  format_version: number;
  kind: 'campaigns';
  campaigns: LiveCampaign[];
  /** Where the campaigns were looked for: the service cannot list them. */
  sources: { manifest_campaigns: number; state: StateSourceJson & { campaigns: number }; calls_read: number; more_calls: boolean };
}

/** The campaigns the manifests, the state and the latest calls name; `managed` maps local names to campaign ids. */
export async function readCampaigns(client: CampaignReader, managed: ReadonlyMap<string, string>, state: InventoryState): Promise<CampaignsReport> {
  const found = new Map<string, { sources: Set<CampaignSource>; calls: number }>();
  const note = (id: string, source: CampaignSource) => {
    const entry = found.get(id) ?? { sources: new Set<CampaignSource>(), calls: 0 };
    entry.sources.add(source);
    if (source === 'call') entry.calls++;
    found.set(id, entry);
  };
  for (const id of managed.values()) note(id, 'manifest');
  const recorded = new Map(Object.values(state.campaigns).map((record) => [record.id, record.applied]));
  for (const id of recorded.keys()) note(id, 'state');
  const { callsRead, moreCalls } = await eachLatestCall(client, (call) => {
    if (typeof call.campaign_id === 'string' && call.campaign_id !== '') note(call.campaign_id, 'call');
  });

  const managedBy = new Map([...managed].map(([local, id]) => [id, `campaign.${local}`]));
  const order: CampaignSource[] = ['manifest', 'state', 'call'];
  const [own] = state.workspaces;
  const campaigns = [...found].map(([id, entry]): LiveCampaign => {
    // The service cannot read a campaign back: what it holds is what the last apply of any environment set.
    const last = campaignLastWrite(id, state.workspaces);
    const taken = last !== undefined && last.environment !== own?.environment ? last : undefined;
    const applied = taken ? taken.entry.applied : recorded.get(id);
    return {
      id,
      managed_by: taken?.address ?? managedBy.get(id) ?? null,
      environment: taken ? taken.environment : null,
      last_applied: applied ? { name: applied.name ?? null, caller: applied.caller ?? null, include_metadata_in_prompt: applied.include_metadata_in_prompt ?? null } : null,
      found_through: order.filter((source) => entry.sources.has(source)),
      calls: entry.calls,
    };
  });
  return {
    format_version: INVENTORY_FORMAT_VERSION,
    kind: 'campaigns',
    // Managed first (by address), then the rest by id, as `get agents` orders them.
    campaigns: campaigns.sort((a, b) => Number(a.managed_by === null) - Number(b.managed_by === null) || byCodeUnits(a.managed_by ?? a.id, b.managed_by ?? b.id)),
    sources: {
      manifest_campaigns: managed.size,
      state: { ...stateSourceJson(state), campaigns: recorded.size },
      calls_read: callsRead,
      more_calls: moreCalls,
    },
  };
}
