/**
 * The configuration a chat request carries for `--against desired`: what the agent's config will
 * be once apply has run. Built the way the plan builds apply's request (src/plan/update-body.ts):
 * the live config in the update shape, each top-level key that apply would send replaced by what
 * it sends; ignored paths stay as they are live. Secrets (tool headers, webhook headers, `${env:…}`
 * values) are in it, as in apply's request, and never printed (the run registers them for
 * redaction).
 */
import type { Agent, AgentConfigUpdate } from '../schema/types.gen.js';
import type { DesiredAgent } from '../manifest/types.js';
import { comparableLiveAgent } from '../plan/diff.js';
import { buildAgentUpdate } from '../plan/update-body.js';
import { splitTopLevelNulls } from '../util/json-object.js';

export function desiredAgentConfig(agent: DesiredAgent, live: Agent): AgentConfigUpdate {
  const config: Record<string, unknown> = { ...comparableLiveAgent(live).config };
  const update = buildAgentUpdate(agent, live);
  // A top-level null is apply clearing the key: the agent will not have it.
  const { rest, removed } = splitTopLevelNulls(update?.config ?? {});
  for (const key of removed) delete config[key];
  Object.assign(config, rest);
  return config as AgentConfigUpdate;
}
