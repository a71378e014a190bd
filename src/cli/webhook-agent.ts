/**
 * The URL and secret headers of a manifest agent's webhooks, for `webhook send` and `serve`; the manifests
 * load as for every command (secrets registered), so a header value is sent or compared, never printed.
 */
import { VoxformError } from '../errors.js';
import type { DesiredAgent, DesiredState } from '../manifest/types.js';
import { didYouMean } from '../util/did-you-mean.js';
import { printable } from '../util/printable.js';
import { isPlainObject } from '../util/json-object.js';
import type { CommandContext } from './context.js';
import type { ProjectOptions } from './project.js';

export type WebhookEvent = 'end-of-call' | 'prefetch';

/** The agent config field of each webhook. */
export const WEBHOOK_FIELD: Record<WebhookEvent, 'session_data_webhook' | 'extra_prompt_webhook'> = {
  'end-of-call': 'session_data_webhook',
  prefetch: 'extra_prompt_webhook',
};

interface ConfiguredWebhook {
  /** The configured URL; undefined when the agent has no such webhook. Written by whoever wrote the manifest. */
  url: string | undefined;
  /** The headers sent with it (secret values). */
  headers: Record<string, string>;
}

export interface AgentWebhooks {
  localName: string;
  id: string;
  /** The agent's config as apply would send it (secrets included: never print it). */
  config: Record<string, unknown>;
  hooks: Record<WebhookEvent, ConfiguredWebhook>;
  /** The manifests it was loaded from (to connect to their service). */
  desired: DesiredState;
}

function configuredWebhook(value: unknown): ConfiguredWebhook {
  if (typeof value === 'string' && value !== '') return { url: value, headers: {} };
  if (!isPlainObject(value)) return { url: undefined, headers: {} };
  const headers: Record<string, string> = {};
  if (isPlainObject(value.headers)) for (const [name, header] of Object.entries(value.headers)) if (typeof header === 'string') headers[name] = header;
  return { url: typeof value.url === 'string' && value.url !== '' ? value.url : undefined, headers };
}

function webhooksOf(agent: DesiredAgent, desired: DesiredState): AgentWebhooks {
  return {
    desired,
    localName: agent.localName,
    id: agent.id,
    config: agent.config,
    hooks: {
      'end-of-call': configuredWebhook(agent.config[WEBHOOK_FIELD['end-of-call']]),
      prefetch: configuredWebhook(agent.config[WEBHOOK_FIELD.prefetch]),
    },
  };
}

/**
 * The manifest agent named `name` (`--agent`), with its webhooks; `agent_unknown` when there is none.
 * `outcome`: what manifests with errors stopped (`nothing was sent`, or serve's receiver not started).
 */
export async function loadAgentWebhooks(name: string, options: ProjectOptions, ctx: CommandContext, outcome: string): Promise<AgentWebhooks> {
  // Loaded on use: without --agent, `webhook send` reads no manifest and starts faster.
  const { displayFiles, loadDesiredState } = await import('./project.js');
  const desired = await loadDesiredState(options, ctx, { outcome });
  const agent = desired.agents.get(name);
  if (agent) return webhooksOf(agent, desired);
  const names = [...desired.agents.keys()];
  const suggestion = didYouMean(name, names);
  // Loaded on use as well: only a name the manifests do not have needs the hint's wording.
  const { agentNamesFrom } = await import('./agent-argument.js');
  throw new VoxformError('agent_unknown', `--agent "${name}" is not an agent of the manifests.`, {
    hint: suggestion ? `Did you mean ${suggestion}?` : names.length > 0 ? `Agents of the manifests: ${names.join(', ')}.` : `Give ${agentNamesFrom(displayFiles(desired, ctx.cwd), { maybeUnread: false })}.`,
  });
}

/** Header names for output (the values are secrets), escaped: a pull request may have written them. */
export function headerNames(headers: Readonly<Record<string, string>>): string {
  const names = Object.keys(headers).map(printable);
  return names.length === 0 ? 'none' : names.join(', ');
}
