/** PUT /campaigns/{campaign_id}/info and POST /campaigns/{campaign_id}/set_caller. */
import type { EditCampaignInfoRequest, SetCallerRequest } from '../../schema/types.gen.js';
import { NOT_FOUND, actionDone, json } from '../http.js';
import type { Route } from '../router.js';
import { bodyValueError } from '../validation.js';

export const campaignRoutes: Route[] = [
  {
    method: 'PUT',
    path: '/campaigns/{campaign_id}/info',
    operation: 'edit campaign info',
    header: 'required',
    body: 'EditCampaignInfoRequest',
    handler: async ({ core, params, body }) => {
      const campaign = core.store.campaigns.get(params.campaign_id as string);
      if (!campaign) return NOT_FOUND();
      const edit = body as EditCampaignInfoRequest;
      if (edit.name !== undefined) campaign.name = edit.name;
      if (edit.include_metadata_in_prompt !== undefined) campaign.include_metadata_in_prompt = edit.include_metadata_in_prompt;
      await core.store.commit();
      return json(200, campaign);
    },
  },
  {
    method: 'POST',
    path: '/campaigns/{campaign_id}/set_caller',
    operation: 'set campaign caller',
    header: 'unshown',
    body: 'SetCallerRequest',
    handler: async ({ core, params, body }) => {
      const campaign = core.store.campaigns.get(params.campaign_id as string);
      if (!campaign) return NOT_FOUND();
      const { caller } = body as SetCallerRequest;
      // A campaign calls from one of the account's own numbers.
      if (!core.store.phones.has(caller)) throw bodyValueError(['caller'], 'the caller must be a phone number of this account');
      campaign.caller = caller;
      await core.store.commit();
      return actionDone(core.responseStyle);
    },
  },
];
