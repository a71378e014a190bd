/**
 * Receiving the service's webhooks in your own server, no HTTP framework assumed: check an
 * end-of-call POST or a prefetch GET against the service schema and the secret headers the agent
 * config gives the webhook, and build a prefetch answer.
 */
import { timingSafeEqual } from 'node:crypto';
import { isAnyArrayBuffer } from 'node:util/types';
import type { EndOfCallPayload, PrefetchWebhookQuery, PrefetchWebhookResponse } from '../schema/types.gen.js';
import type { SchemaIssue } from '../schema/issues.js';
import { validateAgainst } from '../schema/validate.js';
import { isPlainObject, setOwn } from '../util/json-object.js';
import { formatDotted } from '../util/field-path.js';
import { pluralNoun } from '../util/plural.js';
import { checkOptionalOptions } from '../util/required-options.js';
import { JsonPastBudgetError, parseOutsideJson } from '../util/json-budget.js';

export type { EndOfCallPayload, PrefetchWebhookQuery, PrefetchWebhookResponse };

/** Request headers as Node gives them (`req.headers`), any name → value map, or a fetch-style `Headers` (read with `get`). */
export type IncomingHeaders = Readonly<Record<string, string | readonly string[] | undefined>> | { get(name: string): string | null };

export interface WebhookCheckOptions {
  /** The headers the agent config gives this webhook: each must arrive with this value (compared in constant time). */
  expectedHeaders?: Readonly<Record<string, string | undefined>> | undefined;
}

/** Why a webhook request was refused, with the HTTP status a receiver should answer. */
export interface WebhookRejection {
  ok: false;
  /** 401: a secret header is missing or wrong; 400: the body is not JSON, or the URL not a URL; 422: it does not fit the schema. */
  status: 401 | 400 | 422;
  reason: 'headers' | 'json' | 'url' | 'schema';
  /** One sentence; never holds a header's value. */
  message: string;
  /** The schema's findings (for `schema`), paths FastAPI style. */
  issues: SchemaIssue[];
}

export type WebhookParseResult<T> = { ok: true; value: T } | WebhookRejection;

function headerValue(headers: IncomingHeaders | null | undefined, name: string): string | undefined {
  // None given (a plain JavaScript caller's null too): every expected header is missing.
  if (headers === null || headers === undefined) return undefined;
  // A fetch-style Headers (what most frameworks give) keeps its entries out of Object.entries.
  if (typeof headers.get === 'function') return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || value === undefined) continue;
    return typeof value === 'string' ? value : value.join(', ');
  }
  return undefined;
}

/** Equal strings, compared in time that does not depend on where they differ. */
function sameSecret(received: string, expected: string): boolean {
  const a = Buffer.from(received, 'utf8');
  const b = Buffer.from(expected, 'utf8');
  // timingSafeEqual needs equal lengths; compare `b` with itself so a length mismatch costs the same.
  return timingSafeEqual(a.length === b.length ? a : b, b) && a.length === b.length;
}

/**
 * The names (never values, so it can be printed) of the expected headers that are missing or wrong.
 * An expected value that is empty or not text matches nothing: it is a secret not configured (an
 * unset variable, read as `''` or as `undefined` from a plain JavaScript caller), and an empty
 * header anyone can send must not pass for it.
 */
export function checkWebhookHeaders(headers: IncomingHeaders, expected: Readonly<Record<string, string | undefined>> = {}): string[] {
  // A null expectation would otherwise expect nothing, and let every request through.
  checkOptionalOptions('checkWebhookHeaders', { expectedHeaders: expected }, { expectedHeaders: 'object' });
  const failed: string[] = [];
  for (const [name, value] of Object.entries(expected)) {
    const received = headerValue(headers, name);
    if (typeof value !== 'string' || value === '' || received === undefined || !sameSecret(received, value)) failed.push(name);
  }
  return failed;
}

function rejectHeaders(headers: IncomingHeaders, options: WebhookCheckOptions): WebhookRejection | undefined {
  const failed = checkWebhookHeaders(headers, options.expectedHeaders);
  if (failed.length === 0) return undefined;
  const names = failed.map((name) => `"${name}"`).join(', ');
  return { ok: false, status: 401, reason: 'headers', message: `the secret ${pluralNoun(failed.length, 'header')} ${names} ${pluralNoun(failed.length, 'is', 'are')} missing or wrong`, issues: [] };
}

function describeIssue(issue: SchemaIssue, root: string): string {
  return `${issue.path.length > 0 ? formatDotted(issue.path) : root} ${issue.message}`;
}

/**
 * The text of a raw body: a string, or bytes in any of the forms servers give them (a Buffer or other
 * typed array or DataView from Node, an ArrayBuffer from `await request.arrayBuffer()`); undefined for
 * a value a framework already parsed.
 */
function rawBodyText(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (isAnyArrayBuffer(body)) return Buffer.from(body).toString('utf8');
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  return undefined;
}

/**
 * An end-of-call POST: `body` as received (text, bytes, or JSON your framework already parsed) and
 * its headers. Resolves to the typed payload, or to why it was refused.
 */
export function parseEndOfCallWebhook(body: string | ArrayBuffer | ArrayBufferView | unknown, headers: IncomingHeaders = {}, options: WebhookCheckOptions = {}): WebhookParseResult<EndOfCallPayload> {
  const refused = rejectHeaders(headers, options);
  if (refused) return refused;
  let value: unknown = body;
  const text = rawBodyText(body);
  if (text !== undefined) {
    try {
      value = parseOutsideJson(text);
    } catch (error) {
      return { ok: false, status: 400, reason: 'json', message: error instanceof JsonPastBudgetError ? `the body ${error.phrase}` : 'the body is not JSON', issues: [] };
    }
  }
  const issues = validateAgainst('EndOfCallPayload', value);
  if (issues.length > 0) return { ok: false, status: 422, reason: 'schema', message: `not an end-of-call payload: ${describeIssue(issues[0] as SchemaIssue, '(body)')}`, issues };
  return { ok: true, value: value as EndOfCallPayload };
}

/** A prefetch GET's query: the spec's parameters, and every other parameter as session metadata. */
export interface PrefetchRequest {
  query: PrefetchWebhookQuery;
  /** The parameters besides session_id, agent_id, from and to: the session's metadata, flattened to text. */
  metadata: Record<string, string>;
}

const PREFETCH_PARAMETERS = new Set(['session_id', 'agent_id', 'from', 'to']);

/**
 * A prefetch GET: its URL (`req.url`, a path with a query, or a full URL) and headers. A parameter
 * given twice counts once, with its last value: a service that adds its query to a configured URL
 * already carrying `session_id` puts its own value after the URL's (docs/webhooks.md).
 */
export function parsePrefetchRequest(url: string | URL, headers: IncomingHeaders = {}, options: WebhookCheckOptions = {}): WebhookParseResult<PrefetchRequest> {
  const refused = rejectHeaders(headers, options);
  if (refused) return refused;
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url, 'http://receiver.invalid') : url;
  } catch {
    return { ok: false, status: 400, reason: 'url', message: 'not a prefetch request: its URL cannot be parsed', issues: [] };
  }
  const query: Record<string, string> = {};
  // A parameter named __proto__ is metadata like any other: an own key, never the object's prototype.
  for (const [name, value] of parsed.searchParams) setOwn(query, name, value);
  const issues = validateAgainst('PrefetchWebhookQuery', query);
  if (issues.length > 0) return { ok: false, status: 422, reason: 'schema', message: `not a prefetch request: ${describeIssue(issues[0] as SchemaIssue, '(query)')}`, issues };
  const metadata = Object.fromEntries(Object.entries(query).filter(([name]) => !PREFETCH_PARAMETERS.has(name)));
  return { ok: true, value: { query: query as PrefetchWebhookQuery, metadata } };
}

/** What is wrong with a prefetch answer (parsed JSON), or undefined when it is a `PrefetchWebhookResponse`. */
export function prefetchAnswerProblem(answer: unknown): string | undefined {
  if (!isPlainObject(answer)) return 'not a JSON object';
  const issues = validateAgainst('PrefetchWebhookResponse', answer);
  return issues[0] ? describeIssue(issues[0], '(answer)') : undefined;
}

/** The JSON text of a prefetch answer; throws a TypeError when `response` is not a `PrefetchWebhookResponse`. */
export function prefetchResponse(response: PrefetchWebhookResponse): string {
  const problem = prefetchAnswerProblem(response);
  if (problem) throw new TypeError(`not a prefetch answer: ${problem}`);
  return JSON.stringify(response);
}
