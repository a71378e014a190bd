/** GET and PUT /agents/{agent_id}. */
import type { UpdateAgentRequest } from '../../schema/types.gen.js';
import { NOT_FOUND, actionDone } from '../http.js';
import { isPlainObject, splitTopLevelNulls } from '../../util/json-object.js';
import { applyConfigUpdate } from '../merge.js';
import type { Route } from '../router.js';

/** A top-level config key set to null means "remove it": validate the body without those keys. */
function withoutTopLevelNulls(body: unknown): unknown {
  if (!isPlainObject(body) || !isPlainObject(body.config)) return body;
  return { ...body, config: splitTopLevelNulls(body.config).rest };
}

export const agentRoutes: Route[] = [
  {
    method: 'GET',
    path: '/agents/{agent_id}',
    operation: 'read agent',
    header: 'unshown',
    handler: ({ core, params }) => {
      const agent = core.store.agents.get(params.agent_id as string);
      return agent ? { status: 200, jsonText: core.store.agentJson(agent) } : NOT_FOUND();
    },
  },
  {
    method: 'PUT',
    path: '/agents/{agent_id}',
    operation: 'update agent',
    header: 'optional',
    body: 'UpdateAgentRequest',
    prepareBody: withoutTopLevelNulls,
    handler: async ({ core, params, body, parsed }) => {
      const agent = core.store.agents.get(params.agent_id as string);
      if (!agent) return NOT_FOUND();
      const update = body as UpdateAgentRequest;
      const { removed } = splitTopLevelNulls((parsed as { config: Record<string, unknown> }).config);
      applyConfigUpdate(agent.config, update.config as Record<string, unknown>, removed, core.putMode);
      agent.name = update.name;
      core.store.touchAgent(agent);
      core.store.markConfigSet(agent.id);
      await core.store.commit();
      return actionDone(core.responseStyle);
    },
  },
];
