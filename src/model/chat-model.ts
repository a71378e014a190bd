/**
 * An OpenAI-compatible chat model (`POST /chat/completions`), for the judge, the simulated caller and
 * the emulator's `--llm`. Its URL and key come from the operator, never from a test file or manifest.
 */
import type OpenAI from 'openai';
import { VoxformError } from '../errors.js';
import { isPlainObject } from '../util/json-object.js';

export interface ModelSettings {
  /** Base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1. */
  url: string;
  model: string;
  /** Secret; some local servers need none. */
  apiKey: string | undefined;
  /** Per request (default 60 s). */
  timeoutMs?: number;
}

/** Longest answer text kept from a model (a reason, a caller's message, an agent's reply). */
export const MODEL_TEXT_LIMIT = 4000;

export type ChatTurn = OpenAI.Chat.Completions.ChatCompletionMessageParam;
export type ToolDefinition = OpenAI.Chat.Completions.ChatCompletionTool;
export type ModelAnswer = OpenAI.Chat.Completions.ChatCompletionMessage;

/** The judge's model name: VOXFORM_JUDGE_MODEL, else gpt-4o-mini (a replay keys on it without a URL). */
export function judgeModelName(env: Readonly<Record<string, string | undefined>>): string {
  return env.VOXFORM_JUDGE_MODEL?.trim() || 'gpt-4o-mini';
}

/** The judge and simulated caller settings: VOXFORM_JUDGE_URL, VOXFORM_JUDGE_MODEL, VOXFORM_JUDGE_API_KEY. */
export function judgeSettingsFromEnv(env: Readonly<Record<string, string | undefined>>): ModelSettings | undefined {
  const url = env.VOXFORM_JUDGE_URL?.trim();
  if (!url) return undefined;
  return { url, model: judgeModelName(env), apiKey: env.VOXFORM_JUDGE_API_KEY?.trim() || undefined };
}

const MODEL_URL_HINT =
  'Give the base URL of an OpenAI-compatible API, such as http://127.0.0.1:11434/v1 (VOXFORM_JUDGE_URL for the judge, --llm or VOXFORM_EMULATOR_LLM for the emulator).';

export class ChatModel {
  /** Made on the first request: the OpenAI library is slow to load, and a run of tests without a judge never asks. */
  private client: Promise<{ client: OpenAI; APIError: typeof OpenAI.APIError }> | undefined;

  constructor(readonly settings: ModelSettings) {
    let base: URL;
    try {
      base = new URL(settings.url);
    } catch {
      throw new VoxformError('model_url_invalid', `The model URL "${settings.url}" is not a URL.`, { hint: MODEL_URL_HINT });
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new VoxformError('model_url_invalid', `The model URL must be http or https, not ${base.protocol.slice(0, -1)}.`, { hint: MODEL_URL_HINT });
    }
  }

  /** One completion (not streamed). With `json`, the model is asked for a JSON object. */
  async complete(messages: ChatTurn[], options: { json?: boolean; tools?: ToolDefinition[]; model?: string } = {}): Promise<ModelAnswer> {
    const { client, APIError } = await (this.client ??= this.connect());
    try {
      const completion = await client.chat.completions.create({
        model: options.model ?? this.settings.model,
        messages,
        temperature: 0,
        ...(options.json ? { response_format: { type: 'json_object' as const } } : {}),
        ...(options.tools && options.tools.length > 0 ? { tools: options.tools } : {}),
      });
      const message = completion.choices?.[0]?.message;
      if (!message) throw new Error('the answer has no choices');
      return message;
    } catch (error) {
      throw new VoxformError('model_failed', `The model at ${this.settings.url} failed: ${describeModelError(error, APIError)}.`, {
        hint: 'Check the URL, model name and key, and that the server speaks the OpenAI chat completions API.',
      });
    }
  }

  private async connect(): Promise<{ client: OpenAI; APIError: typeof OpenAI.APIError }> {
    const { default: OpenAIClient } = await import('openai');
    // Every option explicit: the client would otherwise read OPENAI_* variables the operator did not mean for voxform.
    const client = new OpenAIClient({
      baseURL: this.settings.url,
      apiKey: this.settings.apiKey ?? 'none',
      organization: null,
      project: null,
      timeout: this.settings.timeoutMs ?? 60_000,
      maxRetries: 2,
    });
    return { client, APIError: OpenAIClient.APIError };
  }
}

/** What the judge and the simulated caller need of a model: a test may hand them a replayed one instead. */
export type CompletionModel = Pick<ChatModel, 'complete'>;

function describeModelError(error: unknown, APIError: typeof OpenAI.APIError): string {
  const said = error instanceof APIError && error.status ? `status ${error.status}` : error instanceof Error ? error.message : String(error);
  // Ends a sentence of ours: its own full stop would make two ("Request timed out..").
  return said.slice(0, 200).replace(/\.+$/, '');
}

/** Parses a model's JSON answer; undefined when it is not a JSON object. */
export function parseJsonObject(text: string | null | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  const trimmed = text.trim().replace(/^```(?:json)?\s*/i, '').replace(/\s*```$/, '');
  try {
    const value = JSON.parse(trimmed) as unknown;
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

export function clip(text: string, limit = MODEL_TEXT_LIMIT): string {
  return text.length > limit ? `${text.slice(0, limit - 1)}…` : text;
}
