/** GET /phones, POST /phones/import, POST /phones/{phone}/set_agent. */
import type { ImportPhoneRequest, Phone, SetPhoneAgentRequest } from '../../schema/types.gen.js';
import { NOT_FOUND, actionDone, detail, json } from '../http.js';
import { nowSeconds } from '../ids.js';
import type { Route } from '../router.js';
import type { StoredPhone } from '../types.js';
import { bodyValueError } from '../validation.js';

/** E.164: a plus, then up to 15 digits, the first not 0. */
const E164 = /^\+[1-9][0-9]{6,14}$/;

/** A phone as the service shows it: the stored provider details stay inside. */
export function publicPhone(phone: StoredPhone): Phone {
  const { id, create_at, status, agent_id, agent_config_override, tags } = phone;
  return {
    id,
    ...(create_at === undefined ? {} : { create_at }),
    ...(status === undefined ? {} : { status }),
    ...(agent_id === undefined ? {} : { agent_id }),
    ...(agent_config_override === undefined ? {} : { agent_config_override }),
    tags: tags ?? [],
  };
}

export const phoneRoutes: Route[] = [
  {
    method: 'GET',
    path: '/phones',
    operation: 'list phones',
    header: 'required',
    handler: ({ core }) => json(200, [...core.store.phones.values()].map(publicPhone)),
  },
  {
    method: 'POST',
    path: '/phones/import',
    operation: 'import phone',
    header: 'required',
    body: 'ImportPhoneRequest',
    handler: async ({ core, body }) => {
      const request = body as ImportPhoneRequest;
      if (!E164.test(request.phone)) throw bodyValueError(['phone'], 'the phone number must be in E.164 form, such as +15551230002');
      if (core.store.phones.has(request.phone)) return detail(409, `Phone number ${request.phone} already exists in this account`);
      core.store.phones.set(request.phone, {
        id: request.phone,
        create_at: nowSeconds(),
        status: 'active',
        tags: [],
        provider: request.provider ?? 'twilio',
        country: request.country,
        region: request.region,
        app_id: request.app_id ?? null,
      });
      await core.store.commit();
      return actionDone(core.responseStyle);
    },
  },
  {
    method: 'POST',
    path: '/phones/{phone}/set_agent',
    operation: 'set phone agent',
    header: 'required',
    body: 'SetPhoneAgentRequest',
    handler: async ({ core, params, body }) => {
      const phone = core.store.phones.get(params.phone as string);
      if (!phone) return NOT_FOUND();
      const { agent_id } = body as SetPhoneAgentRequest;
      if (!core.store.agents.has(agent_id)) throw bodyValueError(['agent_id'], 'no agent with this id');
      phone.agent_id = agent_id;
      await core.store.commit();
      return actionDone(core.responseStyle);
    },
  },
];
