/**
 * Calling the agent's webhooks for real (prefetch GET, end-of-call POST) with a time-out. A failure
 * of any kind is recorded as a failed delivery and never breaks the session.
 */
import http from 'node:http';
import https from 'node:https';
import type { SecretHeaders, WebhookTarget } from '../schema/types.gen.js';
import { JsonPastBudgetError, parseOutsideJson } from '../util/json-budget.js';
import type { WebhookDelivery } from './types.js';
import { isLoopback } from '../util/loopback.js';
import { VoxformError } from '../errors.js';
import { isTlsError, tlsReason } from '../api/errors.js';

export type WebhookPolicy = 'all' | 'loopback' | 'none';

const WEBHOOK_POLICIES: readonly WebhookPolicy[] = ['all', 'loopback', 'none'];

/**
 * The `webhooks` option, `all` when absent. Any other value is refused: read as `all`, a typo
 * (`'off'`, `'Loopback'`, `false`) would send deliveries, their secret headers included, to real hosts.
 */
export function webhookPolicy(value: unknown): WebhookPolicy {
  if (value === undefined) return 'all';
  if (WEBHOOK_POLICIES.includes(value as WebhookPolicy)) return value as WebhookPolicy;
  throw new VoxformError('emulator_options_invalid', `The webhooks option ${JSON.stringify(value) ?? String(value)} is not one of ${WEBHOOK_POLICIES.map((p) => `'${p}'`).join(', ')}; the emulator was not started.`, {
    hint: "Pass webhooks: 'loopback' (or 'none') in tests, 'all' (the default) to call every webhook.",
  });
}

interface WebhookRequest {
  hook: WebhookDelivery['hook'];
  target: WebhookTarget;
  call_id: string;
  session_id: string;
  /** Query parameters added to the URL (the prefetch GET). */
  query?: Record<string, string>;
  /** A JSON body (the end-of-call POST). */
  body?: unknown;
}

export interface WebhookOutcome {
  delivery: WebhookDelivery;
  /** The parsed JSON answer, when there was one. */
  answer?: unknown;
}

const MAX_ANSWER_BYTES = 1024 * 1024;

/** The headers of a delivery: the target's own over ours, and the JSON body's when there is one. */
function requestHeaders(targetHeaders: SecretHeaders, payload: string | undefined): Record<string, string | undefined> {
  const headers: Record<string, string | undefined> = { 'user-agent': 'voxform-emulator', accept: 'application/json', ...targetHeaders };
  if (payload !== undefined) {
    headers['content-type'] = 'application/json';
    headers['content-length'] = String(Buffer.byteLength(payload));
  }
  return headers;
}

/** What a complete answer means: a failure, or success with the parsed JSON when there is one. */
function judgeAnswer(status: number, text: string, hook: WebhookDelivery['hook']): { error: string } | { answer: unknown } {
  if (status < 200 || status >= 300) return { error: `answered ${status}` };
  if (text.trim() === '') return { answer: undefined };
  try {
    return { answer: parseOutsideJson(text) };
  } catch (error) {
    // Merged into the session and served in the call log: held to the request bodies' budget.
    if (error instanceof JsonPastBudgetError) return { error: `answered ${error.message}` };
    return hook === 'prefetch' ? { error: 'answered something that is not JSON' } : { answer: undefined };
  }
}

export class WebhookSender {
  /** Deliveries in flight, so close() can cut them short. */
  private readonly inFlight = new Set<http.ClientRequest>();

  constructor(
    private readonly timeoutMs: number,
    private readonly policy: WebhookPolicy,
  ) {}

  async send(request: WebhookRequest): Promise<WebhookOutcome> {
    const target = typeof request.target === 'string' ? { url: request.target, headers: {} } : { url: request.target.url, headers: request.target.headers ?? {} };
    const method = request.body === undefined ? 'GET' : 'POST';
    const started = performance.now();
    const { hook, call_id, session_id } = request;
    const delivery: WebhookDelivery = { hook, method, url: target.url, call_id, session_id, ok: false, duration_ms: 0, at: new Date().toISOString() };
    let settled = false;
    const fail = (error: string): WebhookOutcome => {
      // Once settled, a late event (the error that destroying a timed-out request raises) changes nothing.
      if (settled) return { delivery };
      delivery.error = error;
      delivery.duration_ms = Math.round((performance.now() - started) * 10) / 10;
      return { delivery };
    };

    let url: URL;
    try {
      url = new URL(target.url);
    } catch {
      return fail('not a valid URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return fail(`unsupported scheme ${url.protocol}`);
    if (this.policy === 'none') return fail('skipped: webhooks are turned off');
    if (this.policy === 'loopback' && !isLoopback(url.hostname)) return fail('skipped: only loopback webhooks are allowed');
    // The service's parameters replace those of the same name in the configured URL: a receiver reads one value, the service's.
    for (const [name, value] of Object.entries(request.query ?? {})) url.searchParams.set(name, value);

    const payload = request.body === undefined ? undefined : JSON.stringify(request.body);
    const headers = requestHeaders(target.headers, payload);

    return new Promise<WebhookOutcome>((resolve) => {
      const transport = url.protocol === 'https:' ? https : http;
      let req: http.ClientRequest;
      try {
        // A fresh connection per delivery (no agent): nothing lingers to hold the process or a test server open.
        req = transport.request(url, { method, headers, agent: false });
      } catch (error) {
        // Headers no HTTP request can carry (a name with a space, a value with a line break): the
        // config was accepted, so every session of the agent would fail here — record it instead.
        resolve(fail(`cannot be sent: ${(error as Error).message}`));
        return;
      }
      this.inFlight.add(req);
      const finish = (outcome: WebhookOutcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        this.inFlight.delete(req);
        resolve(outcome);
      };
      const timer = setTimeout(() => {
        finish(fail(`timed out after ${this.timeoutMs} ms`));
        req.destroy();
      }, this.timeoutMs);
      req.on('error', (error: NodeJS.ErrnoException) => finish(fail(connectionFailure(error))));
      req.on('response', (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size <= MAX_ANSWER_BYTES) chunks.push(chunk);
        });
        res.on('error', (error) => finish(fail(error.message)));
        res.on('end', () => {
          delivery.status = res.statusCode ?? 0;
          const judged = judgeAnswer(delivery.status, Buffer.concat(chunks).toString('utf8'), request.hook);
          if ('error' in judged) return finish(fail(judged.error));
          delivery.ok = true;
          delivery.duration_ms = Math.round((performance.now() - started) * 10) / 10;
          finish({ delivery, answer: judged.answer });
        });
      });
      req.end(payload);
    });
  }

  /** Cuts every delivery in flight short (they are recorded as failed). */
  abortAll(): void {
    for (const req of this.inFlight) req.destroy(new Error('the emulator is shutting down'));
  }
}

/** What went wrong with the connection, as what the receiver did ("the receiver refused the connection"), its code kept. */
function connectionFailure(error: NodeJS.ErrnoException): string {
  const words: Record<string, string> = {
    ECONNREFUSED: 'refused the connection: nothing listens there',
    ECONNRESET: 'dropped the connection before answering',
    ENOTFOUND: 'could not be found: no such host',
    EAI_AGAIN: 'could not be found: the name lookup failed for now',
    EHOSTUNREACH: 'could not be reached: no route to its host',
    ETIMEDOUT: 'could not be reached in time',
  };
  const said = error.code ? words[error.code] : undefined;
  if (said) return `${said} (${error.code})`;
  // In the client's words: a receiver's certificate fails as the service's would.
  if (isTlsError(error)) return `failed the TLS handshake: ${tlsReason(error)}`;
  return error.code ? `${error.code}: ${error.message}` : error.message;
}
