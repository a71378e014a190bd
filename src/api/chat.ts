import type { ChatCompletionRequest, ChatMessage } from '../schema/types.gen.js';
import { ApiError } from './errors.js';
import { readBodyText, type HttpStreamResponse } from './http.js';
import { readSse, SseStreamTooLargeError } from './sse.js';
import { parseOutsideJson } from '../util/json-budget.js';
import { isPlainObject } from '../util/json-object.js';

/**
 * One reply of an agent, as text deltas in arrival order; sent when iteration starts, readable once.
 * Breaking out closes the connection; after the loop `text` holds the whole reply. Accepts server-sent
 * events in the OpenAI chunk format and, tolerated, a plain JSON completion as one delta.
 */
export class ChatCompletionStream implements AsyncIterable<string> {
  private started = false;
  private parts: string[] = [];
  #sessionId: string | undefined;
  #finishReason: string | null | undefined;

  /** `scrub` takes the secrets out of what the service sent before an error quotes (and shortens) it. */
  constructor(
    private readonly request: ChatCompletionRequest,
    private readonly scrub: (text: string) => string,
    private readonly open: (request: ChatCompletionRequest) => Promise<HttpStreamResponse>,
  ) {}

  get text(): string {
    return this.parts.join('');
  }

  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  get finishReason(): string | null | undefined {
    return this.#finishReason;
  }

  /** Reads the whole reply and returns its text. */
  async collect(): Promise<string> {
    for await (const _delta of this); // deltas accumulate in `text`
    return this.text;
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<string> {
    if (this.started) throw new Error('a chat completion stream can be read only once');
    this.started = true;
    const response = await this.open(this.request);
    const body = response.body;
    try {
      const contentType = String(response.headers['content-type'] ?? '');
      if (contentType.includes('application/json')) {
        yield* this.fromJson(await readBodyText(body));
        return;
      }
      for await (const event of readSse(body as AsyncIterable<Uint8Array>)) {
        const data = event.data.trim();
        if (data === '[DONE]') return;
        if (event.event === 'error') throw streamError(this.reportedError(data));
        yield* this.fromChunk(data);
      }
    } catch (error) {
      if (error instanceof SseStreamTooLargeError) throw streamError(this.scrub(error.message));
      throw error;
    } finally {
      if (!body.destroyed) body.destroy();
    }
  }

  private *fromChunk(data: string): Generator<string> {
    let chunk: unknown;
    try {
      chunk = parseOutsideJson(data);
    } catch {
      // Not JSON: a server that streams bare text. Keep it rather than lose the reply.
      this.parts.push(data);
      yield data;
      return;
    }
    if (chunk && typeof chunk === 'object' && 'error' in chunk) throw streamError(this.reportedError(data));
    yield* this.fromAnswer(chunk);
  }

  /**
   * What an error the stream reports says, scrubbed once decoded: JSON may write a secret's characters
   * escaped (`\u0026`), where a scrub of the text as sent would not find it, so a JSON error is quoted
   * as its value (`error`, where it holds one) reads.
   */
  private reportedError(data: string): string {
    let decoded: unknown;
    try {
      decoded = parseOutsideJson(data);
    } catch {
      return this.scrub(data);
    }
    const error = decoded && typeof decoded === 'object' && 'error' in decoded ? (decoded as { error: unknown }).error : decoded;
    return this.scrub(JSON.stringify(error));
  }

  private *fromJson(text: string): Generator<string> {
    let parsed: unknown;
    try {
      parsed = parseOutsideJson(text);
    } catch {
      throw streamError(`an unreadable answer: ${this.scrub(text).slice(0, 120)}`);
    }
    yield* this.fromAnswer(parsed);
  }

  /**
   * What a stream's chunk or a whole answer carries that voxform reads: the session id, and of each
   * choice its text (`delta.content`, or a whole answer's `message.content`) and why it finished. A
   * value of another shape in their place (a chunk or a choice that is null, choices that are no
   * list) carries none of them: it is passed over as a field voxform does not read is.
   */
  private *fromAnswer(answer: unknown): Generator<string> {
    if (!isPlainObject(answer)) return;
    if (typeof answer.session_id === 'string') this.#sessionId = answer.session_id;
    for (const choice of Array.isArray(answer.choices) ? answer.choices : []) {
      if (!isPlainObject(choice)) continue;
      if (typeof choice.finish_reason === 'string') this.#finishReason = choice.finish_reason;
      yield* this.delta(contentOf(choice.message) ?? contentOf(choice.delta));
    }
  }

  /** A piece of the reply, kept for `text`; an empty or non-text one is no delta. */
  private *delta(content: unknown): Generator<string> {
    if (typeof content !== 'string' || content === '') return;
    this.parts.push(content);
    yield content;
  }
}

/** A choice's `message` or `delta` content; nothing when the part is of another shape. */
function contentOf(part: unknown): unknown {
  return isPlainObject(part) ? part.content : undefined;
}

function streamError(detail: string): ApiError {
  return new ApiError({
    code: 'api_error',
    message: `POST /chat/completions failed: the service reported an error in the reply stream (${detail.slice(0, 200)}).`,
    hint: 'Try the message again; check the agent id if it persists.',
    status: 200,
    method: 'POST',
    path: '/chat/completions',
    detail,
    attempts: 1,
  });
}

/** What a chat session is started with: the agent, and optionally a config and metadata for the session. */
export interface ChatSessionOptions {
  agentId: string;
  agentConfig?: ChatCompletionRequest['agent']['agent_config'];
  metadata?: Record<string, unknown>;
  includeMetadataInPrompt?: boolean;
  /** Earlier messages to continue from (e.g. a transcript saved from another session). */
  history?: ChatMessage[];
}

/**
 * A text conversation with an agent: each `send` posts the whole transcript plus the new message (the
 * service keeps none), the reply appended once complete; `end` posts `end_of_session: true`. Turns
 * are sequential: `send` refuses to start while the previous reply is still streaming.
 */
export class ChatSession {
  private readonly history: ChatMessage[];
  private busy = false;
  private ended = false;
  #sessionId: string | undefined;

  constructor(
    private readonly options: ChatSessionOptions,
    private readonly complete: (request: ChatCompletionRequest) => ChatCompletionStream,
  ) {
    this.history = [...(options.history ?? [])];
  }

  /** The transcript so far (user and assistant messages). */
  get messages(): readonly ChatMessage[] {
    return this.history;
  }

  /** The service's session id, once a reply carried one. */
  get sessionId(): string | undefined {
    return this.#sessionId;
  }

  /** Sends one user message; iterate the result for the reply's deltas. */
  send(content: string): AsyncIterable<string> {
    return this.exchange([{ role: 'user', content }]);
  }

  /**
   * Asks for what the agent says first (its `first_message`), as a call opens with it: a request with
   * no user message. Only before anything else was said; iterate the result for the greeting's deltas.
   */
  greeting(): AsyncIterable<string> {
    if (this.history.length > 0) throw new Error('the greeting comes before anything else is said');
    return this.exchange([]);
  }

  private exchange(said: ChatMessage[]): AsyncIterable<string> {
    if (this.ended) throw new Error('this chat session has ended');
    if (this.busy) throw new Error('the previous reply is still streaming');
    const stream = this.complete(this.request([...this.history, ...said], false));
    const self = this;
    return {
      async *[Symbol.asyncIterator]() {
        self.busy = true;
        let complete = false;
        try {
          yield* stream;
          complete = true;
        } finally {
          self.busy = false;
          if (stream.sessionId) self.#sessionId = stream.sessionId;
          // A reply cut short stays out of the transcript, and so does its question; an empty one is no turn.
          if (complete) self.history.push(...said, ...(stream.text === '' ? [] : [{ role: 'assistant' as const, content: stream.text }]));
        }
      },
    };
  }

  /** Ends the session on the service; safe to call more than once. */
  async end(): Promise<void> {
    if (this.ended) return;
    this.ended = true;
    await this.complete(this.request([...this.history], true)).collect();
  }

  private request(messages: ChatMessage[], endOfSession: boolean): ChatCompletionRequest {
    const agent: ChatCompletionRequest['agent'] = { agent_id: this.options.agentId };
    if (this.options.agentConfig !== undefined) agent.agent_config = this.options.agentConfig;
    if (this.options.metadata !== undefined) agent.metadata = this.options.metadata;
    if (this.options.includeMetadataInPrompt !== undefined) agent.include_metadata_in_prompt = this.options.includeMetadataInPrompt;
    return { agent, messages, end_of_session: endOfSession };
  }
}
