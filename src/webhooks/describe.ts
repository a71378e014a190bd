/**
 * One line about a webhook request, for `voxform webhook serve`, with nothing secret or personal:
 * no header value, agent_config, transcript text or metadata value (keys only).
 */
import type { EndOfCallPayload } from '../schema/types.gen.js';
import type { PrefetchRequest } from './receive.js';
import { plural } from '../util/plural.js';
import { parseOutsideJson } from '../util/json-budget.js';


function messageCount(chat: string): number | undefined {
  try {
    const messages = parseOutsideJson(chat);
    return Array.isArray(messages) ? messages.length : undefined;
  } catch {
    return undefined;
  }
}

function keys(value: Readonly<Record<string, unknown>> | undefined): string {
  const names = Object.keys(value ?? {});
  return names.length === 0 ? 'no metadata' : `metadata ${names.join(', ')}`;
}

export function describeEndOfCall(payload: EndOfCallPayload): string {
  const messages = messageCount(payload.chat);
  const credits = (payload.cost_breakdown ?? []).reduce((sum, item) => sum + (typeof item.credit === 'number' ? item.credit : 0), 0);
  return [
    `call ${payload.call_id}`,
    `agent ${payload.agent_id}`,
    payload.call_status,
    `${payload.duration} s`,
    messages === undefined ? 'chat not a JSON list' : plural(messages, 'message'),
    plural(payload.function_calls?.length ?? 0, 'function call'),
    `${Math.round(credits * 10000) / 10000} credits`,
    keys(payload.metadata),
  ].join(', ');
}

export function describePrefetch(request: PrefetchRequest): string {
  const parts = [`session ${request.query.session_id}`, `agent ${request.query.agent_id}`];
  if (request.query.from) parts.push(`from ${request.query.from}`);
  if (request.query.to) parts.push(`to ${request.query.to}`);
  parts.push(keys(request.metadata));
  return parts.join(', ');
}
