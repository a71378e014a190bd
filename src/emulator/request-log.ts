/**
 * The request log behind GET /_emulator/requests: the last N requests, with the webhooks each
 * caused. What a caller sent and a webhook's target and error are kept `printable`: no control
 * character a caller chose reaches a terminal raw.
 */
import type { IncomingMessage } from 'node:http';
import { printable } from '../util/printable.js';
import type { RequestLogEntry, WebhookDelivery } from './types.js';

const REDACTED_HEADER = '(redacted)';

/** A request's headers as the log shows them, names in lower case, repeats joined. */
function shownHeaders(rawHeaders: readonly string[]): Record<string, string> {
  const headers: Record<string, string> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = printable((rawHeaders[i] as string).toLowerCase());
    // The key never reaches the log; its presence does (a test may assert a client sent one).
    const value = name === 'authorization' ? REDACTED_HEADER : printable(rawHeaders[i + 1] as string);
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return headers;
}

export class RequestLog {
  private entries: RequestLogEntry[] = [];
  /** Every webhook delivery, including those no logged request caused (a call ended in-process). */
  private webhooks: WebhookDelivery[] = [];
  private seq = 0;

  constructor(
    private readonly limit: number,
    /** Told of every delivery as it completes (the CLI prints failures). */
    private readonly onDelivery?: (delivery: WebhookDelivery) => void,
  ) {}

  /** Starts an entry for a request; it is filled in when the answer goes out. */
  begin(req: IncomingMessage, path: string, query: string): RequestLogEntry {
    const entry: RequestLogEntry = {
      seq: ++this.seq,
      at: new Date().toISOString(),
      method: printable(req.method ?? 'GET'),
      path: printable(path),
      query: printable(query),
      status: 0,
      duration_ms: 0,
      headers: shownHeaders(req.rawHeaders),
      faults: [],
      webhooks: [],
    };
    this.entries.push(entry);
    if (this.entries.length > this.limit * 2) this.entries = this.entries.slice(-this.limit);
    return entry;
  }

  /** Entries oldest first, optionally only those after sequence number `since`. */
  list(since = 0): RequestLogEntry[] {
    const kept = this.entries.slice(-this.limit);
    return structuredClone(since > 0 ? kept.filter((e) => e.seq > since) : kept);
  }

  /** Records a webhook delivery, on the request that caused it when there is one. */
  recordDelivery(sent: WebhookDelivery, entry: RequestLogEntry | undefined): void {
    const delivery = { ...sent, url: printable(sent.url), ...(sent.error === undefined ? {} : { error: printable(sent.error) }) };
    entry?.webhooks.push(delivery);
    this.webhooks.push(delivery);
    this.onDelivery?.(delivery);
    if (this.webhooks.length > this.limit) this.webhooks.splice(0, this.webhooks.length - this.limit);
  }

  /** Webhook deliveries, oldest first. */
  deliveries(): WebhookDelivery[] {
    return structuredClone(this.webhooks);
  }

  clear(): void {
    this.entries = [];
    this.webhooks = [];
  }
}
