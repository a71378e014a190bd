/**
 * Server-sent events (the WHATWG `text/event-stream` format), parsed incrementally: chunks may split
 * anywhere — inside a multi-byte UTF-8 character, between the CR and LF of a line ending, inside a
 * field name — and the events come out the same.
 */

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

export class SseParser {
  private readonly decoder = new TextDecoder('utf-8');
  /** Text after the last line ending. */
  private partial = '';
  /** The previous chunk ended with CR: an LF at the start of the next one belongs to it. */
  private afterCR = false;
  private data: string[] = [];
  private eventType = '';
  private lastId: string | undefined;
  private retry: number | undefined;

  /** Feeds a chunk; returns the events it completed, in order. */
  push(chunk: Uint8Array | string): SseEvent[] {
    const text = typeof chunk === 'string' ? chunk : this.decoder.decode(chunk, { stream: true });
    return this.consume(text);
  }

  /**
   * The stream ended. A last event without its blank line is still delivered: the format says to
   * drop it, but servers seen in the wild end on `data: [DONE]\n`, and losing the tail of a reply
   * would be worse than keeping it.
   */
  end(): SseEvent[] {
    const events = this.consume(this.decoder.decode());
    if (this.partial !== '') {
      this.line(this.partial);
      this.partial = '';
    }
    const last = this.dispatch();
    if (last) events.push(last);
    return events;
  }

  private consume(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    if (text === '') return events; // e.g. half a UTF-8 character: keep the CR state for the next chunk
    let start = 0;
    if (this.afterCR && text.startsWith('\n')) start = 1;
    this.afterCR = false;
    for (let i = start; i < text.length; i++) {
      const ch = text.charCodeAt(i);
      if (ch !== 10 && ch !== 13) continue;
      const line = this.partial + text.slice(start, i);
      this.partial = '';
      if (ch === 13) {
        if (i + 1 < text.length) {
          if (text.charCodeAt(i + 1) === 10) i++;
        } else {
          this.afterCR = true;
        }
      }
      start = i + 1;
      if (line === '') {
        const event = this.dispatch();
        if (event) events.push(event);
      } else {
        this.line(line);
      }
    }
    this.partial += text.slice(start);
    return events;
  }

  private line(line: string): void {
    if (line.startsWith(':')) return; // a comment (keep-alive)
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    switch (field) {
      case 'data':
        this.data.push(value);
        break;
      case 'event':
        this.eventType = value;
        break;
      case 'id':
        if (!value.includes('\0')) this.lastId = value;
        break;
      case 'retry':
        if (/^\d+$/.test(value)) this.retry = Number(value);
        break;
      default:
        break; // unknown fields are ignored
    }
  }

  private dispatch(): SseEvent | undefined {
    const hasData = this.data.length > 0;
    const event: SseEvent = { event: this.eventType || 'message', data: this.data.join('\n'), id: this.lastId, retry: this.retry };
    this.data = [];
    this.eventType = '';
    this.retry = undefined;
    return hasData ? event : undefined;
  }
}

/** The events of a byte stream, as they complete. */
export async function* readSse(source: AsyncIterable<Uint8Array | string>): AsyncGenerator<SseEvent> {
  const parser = new SseParser();
  for await (const chunk of source) yield* parser.push(chunk);
  yield* parser.end();
}
