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
import type { EmulatorOptions } from './types.js';
import type { WebhookPolicy } from './webhooks.js';
import { shorten } from '../util/shorten.js';
import { errorMessage } from '../secrets/error-message.js';

/** Model rounds per reply: a model that keeps calling tools is stopped here. */
const MAX_TOOL_ROUNDS = 5;

interface AgentTurnInput {
  config: AgentConfigRead;
  messages: readonly ChatMessage[];
  sessionId: string;
  metadata: Record<string, unknown>;
}

interface AgentTurn {
  reply: string;
  functionCalls: Array<{ name: string; params: Record<string, unknown> }>;
}

/** Plays an agent; without one, sessions give the deterministic reply. */
export interface AgentPlayer {
  reply(input: AgentTurnInput): Promise<AgentTurn>;
}

export class LlmAgent implements AgentPlayer {
  private readonly model: ChatModel;

  constructor(
    private readonly settings: NonNullable<EmulatorOptions['llm']>,
    private readonly toolPolicy: WebhookPolicy,
  ) {
    this.model = new ChatModel({ url: settings.url, model: settings.model ?? 'gpt-4o-mini', apiKey: settings.apiKey });
  }

  async reply(input: AgentTurnInput): Promise<AgentTurn> {
    const last = input.messages[input.messages.length - 1];
    // The greeting is the agent's first_message, as on a call; after the agent's own line there is nothing to add.
    if (!input.messages.some((m) => m.role === 'user') && input.config.first_message) return { reply: input.config.first_message, functionCalls: [] };
    if (last?.role === 'assistant') return { reply: '', functionCalls: [] };
    const tools = (input.config.tools ?? []) as ToolCommon[];
    const conversation: ChatTurn[] = [{ role: 'system', content: input.config.prompt ?? '' }];
    for (const message of input.messages) if (message.role === 'user' || message.role === 'assistant') conversation.push({ role: message.role, content: message.content });
    const functionCalls: AgentTurn['functionCalls'] = [];
    for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
      const answer = await this.complete(conversation, tools.map(asFunction), input.config);
      const calls = answer.tool_calls?.filter((call) => call.type === 'function') ?? [];
      if (calls.length === 0) return { reply: shorten(answer.content ?? '', 8000), functionCalls };
      conversation.push({ role: 'assistant', content: answer.content ?? null, tool_calls: calls });
      for (const call of calls) {
        const args = parseArguments(call.function.arguments);
        functionCalls.push({ name: call.function.name, params: args });
        const tool = tools.find((candidate) => candidate.name === call.function.name);
        const result = tool
          ? await callToolWebhook({ tool, args, sessionId: input.sessionId, metadata: input.metadata, policy: this.toolPolicy })
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
    const value = JSON.parse(text) as unknown;
    return isPlainObject(value) ? value : {};
  } catch {
    return {};
  }
}
