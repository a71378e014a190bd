/**
 * The emulator's `--llm` mode: an OpenAI-compatible model plays the agent, with the session's prompt
 * as the system message and the agent's tools as functions; a tool call is sent to the tool's
 * webhook and recorded in the call record's `function_calls`.
 */
import { ChatModel, type ChatTurn, type ToolDefinition } from '../model/chat-model.js';
import type { AgentConfigRead, ChatMessage, ToolCommon } from '../schema/types.gen.js';
import { HttpError } from './http.js';
import { callToolWebhook } from './llm-tools.js';
import { isPlainObject } from '../util/json-object.js';
import type { EmulatorOptions, Session } from './types.js';
import type { WebhookPolicy } from './webhooks.js';
import { shorten } from '../util/shorten.js';
import { errorMessage } from '../secrets/error-message.js';
import { parseOutsideJson } from '../util/json-budget.js';

/** Model rounds per reply: a model that keeps calling tools is stopped here. */
const MAX_TOOL_ROUNDS = 5;

interface AgentTurn {
  reply: string;
  functionCalls: Array<{ name: string; params: Record<string, unknown> }>;
}

/** What a turn is played with: the session's effective config, id and metadata. */
type AgentSession = Pick<Session, 'config' | 'session_id' | 'metadata'>;

/** Plays an agent; without one, sessions give the deterministic reply. */
export interface AgentPlayer {
  reply(session: AgentSession, messages: readonly ChatMessage[]): Promise<AgentTurn>;
}

export class LlmAgent implements AgentPlayer {
  private readonly model: ChatModel;

  constructor(
    private readonly settings: NonNullable<EmulatorOptions['llm']>,
    private readonly toolPolicy: WebhookPolicy,
  ) {
    this.model = new ChatModel({ url: settings.url, model: settings.model ?? 'gpt-4o-mini', apiKey: settings.apiKey });
  }

  async reply(session: AgentSession, messages: readonly ChatMessage[]): Promise<AgentTurn> {
    const { config } = session;
    const last = messages[messages.length - 1];
    // The greeting is the agent's first_message, as on a call; after the agent's own line there is nothing to add.
    if (!messages.some((m) => m.role === 'user') && config.first_message) return { reply: config.first_message, functionCalls: [] };
    if (last?.role === 'assistant') return { reply: '', functionCalls: [] };
    const tools = (config.tools ?? []) as ToolCommon[];
    const conversation: ChatTurn[] = [{ role: 'system', content: config.prompt ?? '' }];
    for (const message of messages) if (message.role === 'user' || message.role === 'assistant') conversation.push({ role: message.role, content: message.content });
    const functionCalls: AgentTurn['functionCalls'] = [];
    for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
      const answer = await this.complete(conversation, tools.map(asFunction), config);
      const calls = answer.tool_calls?.filter((call) => call.type === 'function') ?? [];
      if (calls.length === 0) return { reply: shorten(answer.content ?? '', 8000), functionCalls };
      conversation.push({ role: 'assistant', content: answer.content ?? null, tool_calls: calls });
      for (const call of calls) {
        const args = parseArguments(call.function.arguments);
        functionCalls.push({ name: call.function.name, params: args });
        const tool = tools.find((candidate) => candidate.name === call.function.name);
        const result = tool
          ? await callToolWebhook({ tool, args, sessionId: session.session_id, metadata: session.metadata, policy: this.toolPolicy })
          : `error: the agent has no tool named ${call.function.name}`;
        conversation.push({ role: 'tool', tool_call_id: call.id, content: result });
      }
    }
    return { reply: 'Sorry, I could not finish that.', functionCalls };
  }

  private async complete(conversation: ChatTurn[], tools: ToolDefinition[], config: AgentConfigRead) {
    try {
      return await this.model.complete(conversation, { tools, model: this.settings.model ?? config.llm?.model ?? 'gpt-4o-mini' });
    } catch (error) {
      throw new HttpError(502, `The agent model failed: ${errorMessage(error)}`);
    }
  }
}

function asFunction(tool: ToolCommon): ToolDefinition {
  const properties: Record<string, { type: string; description?: string }> = {};
  const required: string[] = [];
  for (const param of tool.params ?? []) {
    if (!param.name) continue;
    properties[param.name] = { type: param.type ?? 'string', ...(param.description ? { description: param.description } : {}) };
    if (param.required) required.push(param.name);
  }
  return {
    type: 'function',
    function: { name: tool.name ?? 'tool', description: tool.description ?? '', parameters: { type: 'object', properties, required } },
  };
}

function parseArguments(text: string): Record<string, unknown> {
  try {
    const value = parseOutsideJson(text);
    return isPlainObject(value) ? value : {};
  } catch {
    return {};
  }
}
