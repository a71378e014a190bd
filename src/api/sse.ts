/**
 * Server-sent events, parsed incrementally by `eventsource-parser`, plus what it leaves to its caller:
 * bytes to text, the default event type, the last id carried forward, and a bound on one unfinished event.
 */
import { createParser, type EventSourceParser } from 'eventsource-parser';

/** One dispatched event. `data` holds the `data:` lines joined with `\n`. */
export interface SseEvent {
  /** The `event:` field, `message` when absent. */
  event: string;
  data: string;
  /** The last `id:` seen, when any. */
  id: string | undefined;
  /** The `retry:` field of this event, when it had one. */
  retry: number | undefined;
}

/** The most text one unfinished line or event may hold: a stream that never ends an event must not grow unbounded. */
const SSE_MAX_BUFFERED_CHARS = 1024 * 1024;

export class SseStreamTooLargeError extends Error {
  constructor() {
    super(`an event of the stream grew past ${SSE_MAX_BUFFERED_CHARS} characters without ending`);
    this.name = 'SseStreamTooLargeError';
  }
}

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  private readonly parser: EventSourceParser;
  private completed: SseEvent[] = [];
  private lastId: string | undefined;
  private retry: number | undefined;
  private overflowed = false;

  constructor() {
    this.parser = createParser({
      maxBufferSize: SSE_MAX_BUFFERED_CHARS,
      onRetry: (retry) => {
        this.retry = retry;
      },
      onEvent: (message) => {
        if (message.id !== undefined) this.lastId = message.id;
        this.completed.push({ event: message.event ?? 'message', data: message.data, id: this.lastId, retry: this.retry });
        this.retry = undefined;
      },
      onError: (error) => {
        if (error.type === 'max-buffer-size-exceeded') this.overflowed = true;
        // Other parse errors (an unknown field, a malformed retry) are ignored, as the format says.
      },
    });
  }

  /** Feeds a chunk; returns the events it completed, in order. */
  push(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    if (text !== '') this.feed(text);
    return this.take();
  }

  /** The stream ended. A last event without its blank line is still delivered: servers end on `data: [DONE]\n`. */
  end(): SseEvent[] {
    const rest = this.decoder.decode();
    if (rest !== '') this.feed(rest);
    this.feed('\n\n');
    return this.take();
  }

  private feed(text: string): void {
    if (!this.overflowed) this.parser.feed(text);
    if (this.overflowed) throw new SseStreamTooLargeError();
  }

  private take(): SseEvent[] {
    const events = this.completed;
    this.completed = [];
    return events;
  }
}

/** The events of a byte stream, as they complete. */
export async function* readSse(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  for await (const chunk of source) yield* parser.push(chunk);
  yield* parser.end();
}
