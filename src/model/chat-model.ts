/**
 * An OpenAI-compatible chat model (`POST /chat/completions`), for the judge, the simulated caller and
 * the emulator's `--llm`. Its URL and key come from the operator, never from a test file or manifest.
 */
import type OpenAI from 'openai';
import { setTimeout as sleep } from 'node:timers/promises';
import { formatTimeout, transportReason } from '../api/errors.js';
import { backoffDelay, isConnectionError } from '../api/retry.js';
import { VoxformError } from '../errors.js';
import { registerUrlTokens, replaceUrlTokens } from '../secrets/url-tokens.js';
import { headerValueFromEnv } from '../util/env-header.js';
import { isPlainObject } from '../util/json-object.js';
import { shorten, withoutFullStop } from '../util/shorten.js';
import { errorMessage, isJsonParseError } from '../secrets/error-message.js';
import { parseOutsideJson } from '../util/json-budget.js';

export interface ModelSettings {
  /** Base URL of the OpenAI-compatible API, e.g. http://127.0.0.1:11434/v1. */
  url: string;
  model: string;
  /** Secret; some local servers need none. */
  apiKey: string | undefined;
  /** Per request (default 60 s). */
  timeoutMs?: number;
  /** What sets `timeoutMs`, for the message of a request that got no answer (`--timeout (or VOXFORM_TIMEOUT)`). */
  timeoutSetting?: string | undefined;
}

/** The default time-out of one model request. */
const DEFAULT_MODEL_TIMEOUT_MS = 60_000;

/** A 200 answer whose body is not JSON (a sign-in page of a proxy, a wrong URL's web page). */
class AnswerNotJson extends Error {
  constructor(contentType: string | null) {
    super(`its answer was not JSON (content type ${contentType ?? 'not given'})`);
  }
}

/**
 * The first choice's message as voxform reads it: its text, and the function calls whose id, name
 * and arguments are text. Content of another shape is no text, and a call of another shape is
 * passed over, so a model or proxy that sends other shapes gets a judge's "not valid" or an agent
 * that calls nothing, never a crash where the text is read (docs/service-api.md, answers of another shape).
 */
function answerMessage(data: unknown): ModelAnswer {
  const choices = isPlainObject(data) ? data.choices : undefined;
  const message = Array.isArray(choices) && isPlainObject(choices[0]) ? choices[0].message : undefined;
  if (!isPlainObject(message)) throw new Error('the answer has no message');
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls.filter(isFunctionCall) : [];
  return { role: 'assistant', content: typeof message.content === 'string' ? message.content : null, refusal: null, ...(calls.length > 0 ? { tool_calls: calls } : {}) };
}

type FunctionCall = NonNullable<ModelAnswer['tool_calls']>[number];

function isFunctionCall(call: unknown): call is FunctionCall {
  if (!isPlainObject(call) || typeof call.id !== 'string' || call.type !== 'function' || !isPlainObject(call.function)) return false;
  return typeof call.function.name === 'string' && typeof call.function.arguments === 'string';
}

/** The library's classes of the failures `complete` tells apart. */
interface ModelErrors {
  APIError: typeof OpenAI.APIError;
  TimeoutError: typeof OpenAI.APIConnectionTimeoutError;
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
  return { url, model: judgeModelName(env), apiKey: headerValueFromEnv(env, 'VOXFORM_JUDGE_API_KEY') };
}

/**
 * Hands `add` each secret of a model's settings: its key and its URL's tokens (user info, query
 * values), which docs/security.md §5 makes secrets wherever a URL comes from the operator.
 */
export function registerModelSecrets(settings: { url: string; apiKey?: string | undefined }, add: (secret: string) => void): void {
  if (settings.apiKey) add(settings.apiKey);
  registerUrlTokens(settings.url, add);
}

/** How a message names a model's URL: its tokens as `(sensitive)`, short ones too (the last scrub skips those). */
function shownModelUrl(url: string): string {
  return replaceUrlTokens(url, '(sensitive)');
}

const MODEL_URL_HINT =
  'Give the base URL of an OpenAI-compatible API, such as http://127.0.0.1:11434/v1 (VOXFORM_JUDGE_URL for the judge, --llm or VOXFORM_EMULATOR_LLM for the emulator).';

export class ChatModel {
  /** Made on the first request: the OpenAI library is slow to load, and a run of tests without a judge never asks. */
  private client: Promise<{ client: OpenAI } & ModelErrors> | undefined;

  constructor(readonly settings: ModelSettings) {
    let base: URL;
    try {
      base = new URL(settings.url);
    } catch {
      // Not repeated: a value that is no URL may be a secret typed in the wrong place (docs/security.md §5).
      throw new VoxformError('model_url_invalid', 'The model URL is not a URL.', { hint: MODEL_URL_HINT });
    }
    if (base.protocol !== 'http:' && base.protocol !== 'https:') {
      throw new VoxformError('model_url_invalid', `The model URL must be http or https, not ${base.protocol.slice(0, -1)}.`, { hint: MODEL_URL_HINT });
    }
    // A request may not carry user info (fetch refuses such a URL): the key goes as a bearer token instead.
    if (base.username !== '' || base.password !== '') {
      throw new VoxformError('model_url_invalid', `The model URL ${shownModelUrl(settings.url)} holds a user name or password, which cannot be sent.`, {
        hint: 'Leave them out of the URL and give the key as VOXFORM_JUDGE_API_KEY (or VOXFORM_EMULATOR_LLM_API_KEY for the emulator).',
      });
    }
  }

  /**
   * One completion (not streamed). With `json`, the model is asked for a JSON object. A request
   * that failed in a way worth repeating (no answer in time, the connection lost, 408, 409, 429 or
   * a 5xx) is sent again, up to MODEL_ATTEMPTS in all: each time only after `onRetry`, which may
   * refuse by throwing, so a run's request cap counts every request sent and `--timeout` holds for
   * each one. `signal` cuts the request short and ends the wait before another (`interrupted`).
   */
  async complete(messages: ChatTurn[], options: CompleteOptions = {}): Promise<ModelAnswer> {
    const { client, APIError, TimeoutError } = await (this.client ??= this.connect());
    const body = {
      model: options.model ?? this.settings.model,
      messages,
      temperature: 0,
      ...(options.json ? { response_format: { type: 'json_object' as const } } : {}),
      ...(options.tools && options.tools.length > 0 ? { tools: options.tools } : {}),
    };
    const signal = options.signal;
    for (let attempt = 1; ; attempt++) {
      try {
        if (signal?.aborted) throw modelStopped(this.settings.url);
        const { data, response } = await withRequestSignal(signal, (requestOptions) => client.chat.completions.create(body, requestOptions).withResponse());
        // The library hands a body of another content type over as text, where a completion has choices.
        if (typeof data !== 'object' || data === null) throw new AnswerNotJson(response.headers.get('content-type'));
        return answerMessage(data);
      } catch (error) {
        if (signal?.aborted) throw modelStopped(this.settings.url);
        if (attempt < MODEL_ATTEMPTS && worthRepeating(error, APIError)) {
          // A stop ends the wait: the next attempt then throws.
          await sleep(backoffDelay(attempt), undefined, signal ? { signal } : {}).catch(() => undefined);
          if (!signal?.aborted) options.onRetry?.();
          continue;
        }
        throw new VoxformError('model_failed', `The model at ${shownModelUrl(this.settings.url)} failed: ${this.describeFailure(error, { APIError, TimeoutError }, attempt)}.`, {
          hint: 'Check the URL, model name and key, and that the server speaks the OpenAI chat completions API.',
        });
      }
    }
  }

  /** Why a request failed; a time-out named as the service's is (src/api/errors.ts), with what sets it. */
  private describeFailure(error: unknown, errors: ModelErrors, attempts: number): string {
    if (!(error instanceof errors.TimeoutError)) return describeModelError(error, errors.APIError);
    const notes = [attempts > 1 ? `after ${attempts} attempts` : '', this.settings.timeoutSetting ? `${this.settings.timeoutSetting} gives it longer` : ''].filter(Boolean);
    return `no complete answer came within ${formatTimeout(this.settings.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS)}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
  }

  private async connect(): Promise<{ client: OpenAI } & ModelErrors> {
    const { default: OpenAIClient } = await import('openai');
    // The client appends `/chat/completions` to the base URL's text: a query (`?api-version=…`) is
    // taken off the base and sent with every request instead, so the path is joined before it.
    const base = new URL(this.settings.url);
    const defaultQuery = Object.fromEntries(base.searchParams);
    base.search = '';
    base.hash = '';
    // Every option explicit: the client would otherwise read OPENAI_* variables the operator did not mean for voxform.
    const client = new OpenAIClient({
      baseURL: base.toString(),
      ...(Object.keys(defaultQuery).length > 0 ? { defaultQuery } : {}),
      apiKey: this.settings.apiKey ?? 'none',
      organization: null,
      project: null,
      timeout: this.settings.timeoutMs ?? DEFAULT_MODEL_TIMEOUT_MS,
      // Repeated by `complete`, where each request sent is counted: the library's own retries are not.
      maxRetries: 0,
    });
    return { client, APIError: OpenAIClient.APIError, TimeoutError: OpenAIClient.APIConnectionTimeoutError };
  }
}

/** What one completion asks of the model beyond the messages. */
export interface CompleteOptions {
  /** Asks for a JSON object (the judge's verdict). */
  json?: boolean;
  tools?: ToolDefinition[];
  model?: string;
  /** Told before each request sent again; may refuse by throwing. */
  onRetry?: () => void;
  /** Cuts the request short, its retries included (a stopped run). */
  signal?: AbortSignal | undefined;
}

function modelStopped(url: string): VoxformError {
  return new VoxformError('interrupted', `The request to the model at ${shownModelUrl(url)} was stopped: the run is stopping.`, { hint: 'Run the command again to finish its work.' });
}

/**
 * Sends `request` with a signal of its own, which `signal` aborts until the request ends. The client
 * adds an abort listener to the signal it is given and never removes it: given the run's signal,
 * every request of a long run would leave one behind on it.
 */
async function withRequestSignal<T>(signal: AbortSignal | undefined, request: (options: { signal?: AbortSignal }) => Promise<T>): Promise<T> {
  if (!signal) return request({});
  const own = new AbortController();
  const abort = () => own.abort(signal.reason);
  signal.addEventListener('abort', abort, { once: true });
  try {
    return await request({ signal: own.signal });
  } finally {
    signal.removeEventListener('abort', abort);
  }
}

/**
 * The same model, each of whose requests `signal` cuts short: what a run stopped by Ctrl-C gives the
 * judge and the simulated caller, so no stop waits for a model's answer.
 */
export function stoppedBy(model: CompletionModel, signal: AbortSignal | undefined): CompletionModel {
  if (!signal) return model;
  return { complete: (messages, options) => model.complete(messages, { ...options, signal }) };
}

/** Requests one completion may take: the first and two more after failures worth repeating, each after the client's backoff. */
const MODEL_ATTEMPTS = 3;

/** A failure that another request may not meet: no answer, a lost connection, or a status that says try again. */
function worthRepeating(error: unknown, APIError: typeof OpenAI.APIError): boolean {
  // An answer cut off partway (the connection dropped while its body was read) fails in the fetch, not the library.
  if (!(error instanceof APIError)) return isConnectionError(error);
  // No status: the request timed out or the connection failed (the library's APIConnectionError).
  const status = error.status;
  return status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * What the judge and the simulated caller need of a model, runTests' `model`: one chat completion,
 * not streamed, in OpenAI's Chat Completions shapes (the conversation's messages in, the answer's
 * message out). A test may hand them a replayed one instead; `ChatModel` is the CLI's.
 */
export interface CompletionModel {
  complete(messages: ChatTurn[], options?: CompleteOptions): Promise<ModelAnswer>;
}

function describeModelError(error: unknown, APIError: typeof OpenAI.APIError): string {
  const cutOff = !(error instanceof APIError) && isConnectionError(error);
  const said =
    error instanceof APIError && error.status
      ? `status ${error.status}`
      : cutOff
        ? `${transportReason(error)} before its answer was complete`
        : isJsonParseError(error)
          ? 'its answer, declared JSON, was not valid JSON'
          : errorMessage(error);
  // Ends a sentence of ours.
  return withoutFullStop(shorten(said, 200));
}

/** Parses a model's JSON answer; undefined when it is not a JSON object. */
export function parseJsonObject(text: string | null | undefined): Record<string, unknown> | undefined {
  if (!text) return undefined;
  const opened = text.trim().replace(/^```(?:json)?\s*/i, '');
  // Cut without a pattern: `\s*` before an anchored end is tried from every blank of a long run, and
  // a recorded answer (a checkout's file) can be megabytes of blanks.
  const trimmed = opened.endsWith('```') ? opened.slice(0, -3).trimEnd() : opened;
  try {
    const value = parseOutsideJson(trimmed);
    return isPlainObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}
