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
import { assignOwn, isPlainObject, splitTopLevelNulls } from '../util/json-object.js';
import { TRANSFER_FUNCTION } from '../report/outcomes.js';

export function desiredAgentConfig(agent: DesiredAgent, live: Agent): AgentConfigUpdate {
  const config: Record<string, unknown> = { ...comparableLiveAgent(live).config };
  const update = buildAgentUpdate(agent, live);
  // A top-level null is apply clearing the key: the agent will not have it.
  const { rest, removed } = splitTopLevelNulls(update?.config ?? {});
  for (const key of removed) delete config[key];
  assignOwn(config, rest);
  return config as AgentConfigUpdate;
}

/** The tool names a test of an agent may give, as far as the manifests fix them (see `toolNamesOf`). */
export interface AgentToolNames {
  /** The agent's own tools (`config.tools`): what `mock_tools:` may name. */
  tools: ReadonlySet<string>;
  /** What a call record's function calls can be named: the tools, the platform functions the manifests name, and the transfer. */
  callable: ReadonlySet<string>;
}

/**
 * The tool names the manifests fix for an agent, or undefined when the live agent's tools stay as
 * they are (`config.tools` not set, or ignored): then any name may be one of its tools.
 */
export function toolNamesOf(agent: DesiredAgent): AgentToolNames | undefined {
  if (!Array.isArray(agent.config.tools) || agent.ignore.some((path) => path === 'config' || path === 'config.tools')) return undefined;
  const tools = new Set(namesIn(agent.config.tools));
  const platform = Array.isArray(agent.config.platform_functions) ? namesIn(agent.config.platform_functions) : [];
  return { tools, callable: new Set([...tools, ...platform, TRANSFER_FUNCTION]) };
}

function namesIn(list: readonly unknown[]): string[] {
  return list.flatMap((item) => (isPlainObject(item) && typeof item.name === 'string' ? [item.name] : []));
}
