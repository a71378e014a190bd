/** The account's resources: API keys, credentials, campaigns, phones and agents. */
import type {
  CreateApiKeyRequest,
  CreatedApiKey,
  EditCampaignInfoRequest,
  ImportPhoneRequest,
  Phone,
  SetCallerRequest,
  SetCredentialRequest,
  SetPhoneAgentRequest,
  UpdateAgentRequest,
} from '../../schema/types.gen.js';
import { NOT_FOUND, detail, json } from '../http.js';
import { newId, nowSeconds, randomAlphanumeric } from '../ids.js';
import { applyConfigUpdate } from '../merge.js';
import { actionDone, route, type Route } from '../router.js';
import type { StoredPhone } from '../types.js';
import { bodyValueError } from '../validation.js';
import { checkConfigFileIds } from '../referenced-files.js';
import { sha256Hex } from '../../util/hash.js';
import { isPlainObject, splitTopLevelNulls } from '../../util/json-object.js';

/** How much of a new key is kept in the clear as its `prefix`. */
const PREFIX_LENGTH = 8;

/** E.164: a plus, then up to 15 digits, the first not 0. */
const E164 = /^\+[1-9][0-9]{6,14}$/;

/** A phone as the service shows it: the stored provider details stay inside (undefined fields are not written). */
function publicPhone(phone: StoredPhone): Phone {
  const { id, create_at, status, agent_id, agent_config_override, tags } = phone;
  return { id, create_at, status, agent_id, agent_config_override, tags: tags ?? [] };
}

/** A top-level config key set to null means "remove it": validate the body without those keys. */
function withoutTopLevelNulls(body: unknown): unknown {
  if (!isPlainObject(body) || !isPlainObject(body.config)) return body;
  return { ...body, config: splitTopLevelNulls(body.config).rest };
}

/** In the spec's order. */
export const accountRoutes: Route[] = [
  route('POST /api_keys', 'create API key', { header: 'optional', body: 'CreateApiKeyRequest' }, async ({ core, body }) => {
    const request = body as CreateApiKeyRequest;
    const key = randomAlphanumeric(32);
    const stored = {
      id: newId('key'),
      type: request.type,
      name: request.name ?? null,
      created_at: nowSeconds(),
      revoked_at: null,
      prefix: key.slice(0, PREFIX_LENGTH),
      legacy: false,
      is_default: false,
      hash: sha256Hex(key),
    };
    core.store.keys.set(stored.hash, stored);
    await core.store.commit();
    const { hash: _hash, ...shown } = stored;
    const created: CreatedApiKey = { ...shown, key };
    return json(201, created);
  }),
  route('POST /user/credentials', 'set credential', { header: 'unshown', body: 'SetCredentialRequest' }, async ({ core, body }) => {
    const { provider, api_key } = body as SetCredentialRequest;
    core.store.credentials.set(provider, { provider, fingerprint: sha256Hex(api_key), updated_at: nowSeconds() });
    await core.store.commit();
    return json(200, { success: true });
  }),
  route('PUT /campaigns/{campaign_id}/info', 'edit campaign info', { header: 'required', body: 'EditCampaignInfoRequest' }, async ({ core, params, body }) => {
    const campaign = core.store.campaigns.get(params.campaign_id as string);
    if (!campaign) return NOT_FOUND();
    const edit = body as EditCampaignInfoRequest;
    if (edit.name !== undefined) campaign.name = edit.name;
    if (edit.include_metadata_in_prompt !== undefined) campaign.include_metadata_in_prompt = edit.include_metadata_in_prompt;
    await core.store.commit();
    return json(200, campaign);
  }),
  route('POST /campaigns/{campaign_id}/set_caller', 'set campaign caller', { header: 'unshown', body: 'SetCallerRequest' }, async ({ core, params, body }) => {
    const campaign = core.store.campaigns.get(params.campaign_id as string);
    if (!campaign) return NOT_FOUND();
    const { caller } = body as SetCallerRequest;
    // A campaign calls from one of the account's own numbers.
    if (!core.store.phones.has(caller)) throw bodyValueError(['caller'], 'the caller must be a phone number of this account');
    campaign.caller = caller;
    return actionDone(core);
  }),
  route('GET /phones', 'list phones', { header: 'required' }, ({ core }) => json(200, [...core.store.phones.values()].map(publicPhone))),
  route('POST /phones/import', 'import phone', { header: 'required', body: 'ImportPhoneRequest' }, async ({ core, body }) => {
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
    return actionDone(core);
  }),
  route('POST /phones/{phone}/set_agent', 'set phone agent', { header: 'required', body: 'SetPhoneAgentRequest' }, async ({ core, params, body }) => {
    const phone = core.store.phones.get(params.phone as string);
    if (!phone) return NOT_FOUND();
    const { agent_id } = body as SetPhoneAgentRequest;
    if (!core.store.agents.has(agent_id)) throw bodyValueError(['agent_id'], 'no agent with this id');
    phone.agent_id = agent_id;
    return actionDone(core);
  }),
  route('GET /agents/{agent_id}', 'read agent', { header: 'unshown' }, ({ core, params }) => {
    const agent = core.store.agents.get(params.agent_id as string);
    return agent ? { status: 200, json: agent } : NOT_FOUND();
  }),
  route('PUT /agents/{agent_id}', 'update agent', { header: 'optional', body: 'UpdateAgentRequest', prepareBody: withoutTopLevelNulls }, async ({ core, params, body, parsed }) => {
    const agent = core.store.agents.get(params.agent_id as string);
    if (!agent) return NOT_FOUND();
    const update = body as UpdateAgentRequest;
    checkConfigFileIds(core.store, update.config, ['config']);
    const { removed } = splitTopLevelNulls((parsed as { config: Record<string, unknown> }).config);
    applyConfigUpdate(agent.config, update.config as Record<string, unknown>, removed, core.putMode);
    agent.name = update.name;
    core.store.agentConfigChanged(agent);
    return actionDone(core);
  }),
];
