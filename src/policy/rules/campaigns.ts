/** Outbound campaigns: the agent that places the calls. */
import type { DesiredAgent, DesiredCampaign, DesiredState } from '../../manifest/types.js';
import { isPlainObject } from '../../util/json-object.js';
import { valueAtPath } from '../../util/field-path.js';
import type { PolicyRule, RuleHit } from '../types.js';

/** The manifest agent a campaign calls with (the one bound to its caller number), if any. */
function campaignAgent(desired: DesiredState, campaign: DesiredCampaign): DesiredAgent | undefined {
  const phone = campaign.caller === undefined ? undefined : desired.phones.get(campaign.caller);
  const name = phone?.agent?.localName;
  return name === undefined ? undefined : desired.agents.get(name);
}

export const CAMPAIGN_RULES: PolicyRule[] = [
  {
    id: 'campaign-voicemail',
    area: 'campaigns',
    level: 'advisory',
    summary: 'An agent that places campaign calls handles voicemail (flow.voicemail).',
    hint: 'Set flow.voicemail.message (what to leave on a machine) so the agent does not talk to a voicemail greeting.',
    check: ({ desired }) =>
      [...desired.campaigns.values()].flatMap((campaign): RuleHit[] => {
        const agent = campaignAgent(desired, campaign);
        if (!agent || isPlainObject(valueAtPath(agent.config, ['flow', 'voicemail']))) return [];
        return [{ resource: campaign.address, message: `campaign "${campaign.localName}" calls with agent "${agent.localName}", which has no flow.voicemail: it will talk to answering machines`, location: campaign.source }];
      }),
  },
  {
    id: 'campaign-caller-agent',
    area: 'campaigns',
    level: 'mandatory',
    summary: "A campaign's caller number is bound to an agent of the manifest.",
    hint: 'Bind the caller number to an agent under phones: (agent: NAME), or choose a caller number that is.',
    check: ({ desired }) =>
      [...desired.campaigns.values()].flatMap((campaign): RuleHit[] => {
        if (campaign.caller === undefined || desired.phones.get(campaign.caller)?.agent !== undefined) return [];
        return [{ resource: campaign.address, message: `campaign "${campaign.localName}" calls from ${campaign.caller}, which no agent of the manifest answers`, location: campaign.source }];
      }),
  },
];
