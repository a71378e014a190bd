import { validateAgainst } from '../schema/validate.js';
import { VoxformError } from '../errors.js';
import type {
  Agent,
  CallHistoriesQuery,
  CallHistoriesResponse,
  CallLogsQuery,
  CallLogsResponse,
  Campaign,
  ChatCompletionRequest,
  CreateApiKeyRequest,
  CreatedApiKey,
  CreateSipRequest,
  CreateSipResponse,
  EditCampaignInfoRequest,
  GlobalCallHistoryRecord,
  ImportPhoneRequest,
  KnowledgeFileRecord,
  Phone,
  PresignedUrlRequest,
  PresignedUrlResponse,
  RegisterCallRequest,
  RegisterCallResponse,
  RegisterSipCallRequest,
  RegisterSipCallResponse,
  SetAgentFilesRequest,
  SetCallerRequest,
  SetCredentialRequest,
  SetPhoneAgentRequest,
  UpdateAgentRequest,
} from '../schema/types.gen.js';
import { ChatCompletionStream, ChatSession, type ChatSessionOptions } from './chat.js';
import { ApiError, CHECK_KNOWLEDGE_FILES, errorFromBadAnswer, errorFromMalformedRecord, isApiError, requestInvalid, scrubEcho, type FailureContext, type RecordKind } from './errors.js';
import { malformedCallRecord, type CallRecordDefinition } from './call-records.js';
import { malformedPhone, phoneListAt } from './phone-list.js';
import { HttpTransport, type HttpResponse } from './http.js';
import { resolveBaseUrl } from './regions.js';
import { Requester, type Exchange, type RequestEvent, type ResponseEvent, type RetryEvent } from './requester.js';
import type { BackoffOptions } from './retry.js';
import { inspectUploadFile, multipartBody, storageFailure } from './upload.js';
import { MAX_KNOWLEDGE_FILE_BYTES } from '../project-files/limits.js';
import { isPlainObject, splitTopLevelNulls } from '../util/json-object.js';
import { valueAtPath, type PathSegment } from '../util/field-path.js';
import { sleepUnlessAborted } from '../util/sleep.js';
import { headerValue } from '../util/env-header.js';
import { voxformVersion } from '../util/version.js';
import { checkOptionalOptions, requireOptions, type Optional } from '../util/required-options.js';
import { JsonPastBudgetError, parseOutsideJson } from '../util/json-budget.js';

export interface ClientOptions {
  /** The service's base URL; overrides `region`. May carry a path prefix. */
  baseUrl?: string;
  /** `us` (default) or `eu`: the regional gateway, when no `baseUrl` is given. */
  region?: 'us' | 'eu';
  /** The private key, sent raw in the `authorization` header and nowhere else; trimmed and checked as the CLI's `VOXFORM_API_KEY` (`env_header_invalid`). */
  apiKey: string;
  /** Scrubs the caller's other secrets from what the service echoes, before a message shortens it. */
  redact?: (text: string) => string;
  /** Requests on the wire at once across every origin (default 16); more calls wait their turn. */
  maxInFlight?: number;
  /** Time-out of one whole request across its retries, ms (default 30,000); waits for a slot or a retry do not count. */
  timeoutMs?: number;
  /** Largest answer body read, bytes (default 64 MiB); a larger one is `api_response_too_large`. */
  maxResponseBytes?: number;
  /** Further attempts after a failure that may be retried (default 4, so at most 5 attempts). */
  retries?: number;
  /** Backoff tunables: base and maximum ceiling of the full-jitter backoff, cap on Retry-After. */
  backoff?: BackoffOptions;
  /** Sent as `user-agent` (default `voxform/<version>`). */
  userAgent?: string;
  /** Receives one line per attempt, answer and retry, `authorization` redacted (`VOXFORM_DEBUG=1`). */
  debug?: (line: string) => void;
  /** Called as each attempt is sent (progress, tracing). */
  onRequest?: (event: RequestEvent) => void;
  /** Called as each attempt ends, with its status or its transport failure. */
  onResponse?: (event: ResponseEvent) => void;
  /** Called before each retry, with the reason and the wait. */
  onRetry?: (event: RetryEvent) => void;
  /**
   * Told as each attempt of an operation not safe to repeat (one that creates something) is sent;
   * the function it returns is called when the attempt ends. `ifInterrupted` is the error the attempt
   * gets if the client is closed with `abort` meanwhile (`api_outcome_unknown`): a caller that stops
   * without waiting for it (the CLI on Ctrl-C) can still say what may have been done.
   */
  onWriteSent?: (ifInterrupted: () => ApiError) => () => void;
  /** Hears every answer body the service sends back, parsed (JSON, else its text), before the caller gets it. */
  onAnswer?: (answer: unknown) => void;
  /** Waits between attempts (default: a real timer); should end early once `signal` aborts. Tests pass an instant one. */
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  /** The random source of the jitter (default `Math.random`). */
  random?: () => number;
  /** Largest knowledge file `uploadKnowledgeFile` accepts, bytes (default 50 MiB). */
  maxUploadBytes?: number;
}

/** Filters of the call log (the page size and cursor are the iterator's business). */
export type CallLogFilters = Omit<CallLogsQuery, 'limit' | 'start_after_ts'>;

interface IterateCallLogsOptions {
  /** Records per request, 1–100 (default 100, the service's maximum). */
  pageSize?: number;
  /** Stop after this many records. */
  max?: number;
  /** Called after each page with the running total (progress displays). */
  onPage?: (info: { page: number; records: number }) => void;
}

/** How an import ended: the service's answer, or — after a lost answer — the phone list showing the number. */
interface ImportPhoneResult {
  phone: string;
  confirmedBy: 'response' | 'phone_list';
  /** The service's answer when there was one (its shape is not documented). */
  response: unknown;
}

/** What `uploadKnowledgeFile` describes the file with. */
export interface KnowledgeUploadOptions {
  /** The file's display name in the knowledge base (default: the file's base name). */
  name?: string;
  description?: string;
  /** `sha256:<hex>` of the content the file must hold (what its plan showed): a file that holds other content by the time it is sent is refused with `knowledge_file_changed`, and storage keeps nothing. */
  contentHash?: string;
}

/**
 * The typed client of the voice-agent service, the only code in voxform that talks to it. Invariants:
 * - Every body is validated against its schema first: an invalid one throws `api_request_invalid`, unsent.
 * - At most `maxInFlight` calls are on the wire (one keep-alive pool per origin); the rest wait in order.
 * - Idempotent calls are retried on 429, 502–504 and connection errors with full-jitter backoff and
 *   `Retry-After`; calls that create something only when the service certainly did not act (429,
 *   refused connection); `importPhone` re-reads the phone list before a retry, never importing twice.
 * - Errors are `ApiError`s with a stable code and one sentence; the key never appears in an error,
 *   a debug line or a hook event.
 * - Action endpoints succeed on any 2xx unless the body says `success: false`.
 * - Every call record a call-log read answers is checked against the service schema: one of another
 *   shape fails the read with `api_error` naming it (its place and call id), never reaching a caller.
 * - Ids are percent-encoded into paths (agent ids may start with `-`, phone ids carry `+`).
 */
export interface ApiClient {
  /** The base URL requests go to (region preset or override, no trailing slash). */
  readonly baseUrl: string;

  /** POST /api_keys — creates a key; the answer holds `key` (shown once). Not retried unless refused (429). */
  createApiKey(body: CreateApiKeyRequest): Promise<CreatedApiKey>;
  /** POST /user/credentials — stores (replaces) a provider credential. Idempotent, retried. */
  setCredential(body: SetCredentialRequest): Promise<void>;
  /** PUT /campaigns/{id}/info — sets a campaign's name and metadata flag; answers the campaign. */
  editCampaignInfo(campaignId: string, body: EditCampaignInfoRequest): Promise<Campaign>;
  /** POST /campaigns/{id}/set_caller `{caller}` — sets the caller number. Idempotent, retried. */
  setCampaignCaller(campaignId: string, caller: string): Promise<void>;
  /** POST /phones/{phone}/set_agent `{agent_id}` — binds an agent to a number. Idempotent, retried. */
  setPhoneAgent(phone: string, agentId: string): Promise<void>;
  /** GET /phones — every phone number of the account. */
  listPhones(): Promise<Phone[]>;
  /** POST /phones/import — imports a number; before a retry, checks GET /phones so it is never imported twice. */
  importPhone(body: ImportPhoneRequest): Promise<ImportPhoneResult>;
  /** GET /agents/{id}. */
  getAgent(agentId: string): Promise<Agent>;
  /**
   * PUT /agents/{id} — a top-level `config` key set to `null` asks the service to remove it; such
   * keys are sent as they are (validation looks at the others).
   */
  updateAgent(agentId: string, body: UpdateAgentRequest): Promise<void>;
  /** GET /agents/{id}/call-histories — one page (`start_at`, `limit`). */
  listAgentCallHistories(agentId: string, query?: CallHistoriesQuery): Promise<CallHistoriesResponse>;
  /** GET /call-logs — one page of the account's call log, newest first. */
  listCallLogs(query?: CallLogsQuery): Promise<CallLogsResponse>;
  /** Every record of the call log matching `filters`, newest first, none twice or skipped (docs/client.md). */
  iterateCallLogs(filters?: CallLogFilters, options?: IterateCallLogsOptions): AsyncIterable<GlobalCallHistoryRecord>;
  /** POST /register_call — starts a call session. Not retried unless refused. */
  registerCall(body: RegisterCallRequest): Promise<RegisterCallResponse>;
  /** POST /register_sip_call. Not retried unless refused. */
  registerSipCall(body: RegisterSipCallRequest): Promise<RegisterSipCallResponse>;
  /** POST /sip — creates a SIP session. Not retried unless refused. */
  createSip(body: CreateSipRequest): Promise<CreateSipResponse>;
  /** POST /chat/completions — the reply as text deltas, as they stream in. Not retried unless refused. */
  chatCompletions(body: ChatCompletionRequest): ChatCompletionStream;
  /** A conversation: the transcript is carried from turn to turn; `end()` sends `end_of_session`. */
  chatSession(options: ChatSessionOptions): ChatSession;
  /** POST /knowledge/generate_presigned_url — an upload target (`url`, `fields`). Retried (it changes nothing). */
  generatePresignedUrl(body: PresignedUrlRequest): Promise<PresignedUrlResponse>;
  /** POST /knowledge/create_file — records an uploaded file; resolves to its id. Not retried unless refused. */
  createKnowledgeFile(body: KnowledgeFileRecord): Promise<string>;
  /** POST /knowledge/set_agent_files — replaces an agent's knowledge files. Idempotent, retried. */
  setAgentFiles(body: SetAgentFilesRequest): Promise<void>;
  /** presign → multipart POST of the file → create_file; resolves to the file id. An oversized file is never sent. */
  uploadKnowledgeFile(filePath: string, options?: KnowledgeUploadOptions): Promise<string>;
  /**
   * The same client, whose requests `signal` withdraws while they wait for a slot (`api_not_sent`,
   * never sent); one on the wire runs to its answer, unretried. A stopped apply so sends nothing new.
   * With `abortOnTheWire`, one on the wire is cut short too (`api_interrupted`; `api_outcome_unknown`
   * for one that creates something): a stopped test run waits for no answer.
   */
  withSignal(signal: AbortSignal, options?: { abortOnTheWire?: boolean }): ApiClient;
  /**
   * The same client, telling `onSent` as each attempt of its requests leaves the queue for the wire,
   * with the attempt's path: a request waiting for a slot has not started, and a knowledge upload
   * has made no file until its last request (`/knowledge/create_file`) leaves.
   */
  withOnSent(onSent: (path: string) => void): ApiClient;
  /** Closes the pools once requests sent have finished; with `abort`, at once (`api_interrupted`). */
  close(options?: { abort?: boolean }): Promise<void>;
}

/** An exchange whose JSON body is validated against the schema definition `schema` before it is sent. */
type CheckedExchange = Exchange & { schema?: string };

/** Where an answer holds its list of records (`listAt`, a path in it), what a record is, and the first one voxform cannot read (described). */
interface RecordList {
  kind: RecordKind;
  listAt: (answer: unknown) => PathSegment[];
  malformed: (records: readonly unknown[], at: readonly PathSegment[]) => string | undefined;
}

/** The call records of an answer, each checked against the schema's `definition`. */
function callRecords(definition: CallRecordDefinition, listAt: RecordList['listAt']): RecordList {
  return { kind: 'call record', listAt, malformed: (records, at) => malformedCallRecord(records, definition, at) };
}

const PHONES: RecordList = { kind: 'phone', listAt: (answer) => phoneListAt(answer) ?? [], malformed: malformedPhone };

/** How to see whether a call whose answer was lost was started. */
const CHECK_CALLS = '`voxform logs` lists the calls the service started.';

/** What each option createClient() may be left without must be when given (`apiKey` is checked as a header value). */
const CLIENT_OPTIONAL = {
  baseUrl: 'string',
  region: 'string',
  redact: 'function',
  maxInFlight: 'count',
  timeoutMs: 'timer',
  maxResponseBytes: 'positive',
  retries: 'whole',
  backoff: 'object',
  userAgent: 'header',
  debug: 'function',
  onRequest: 'function',
  onResponse: 'function',
  onRetry: 'function',
  onWriteSent: 'function',
  onAnswer: 'function',
  sleep: 'function',
  random: 'function',
  maxUploadBytes: 'count',
} as const satisfies Partial<Record<keyof ClientOptions, Optional>>;

/** Waits in milliseconds, 0 for none: one that is not a number would make every retry wait nothing. */
const BACKOFF_OPTIONAL = { baseMs: 'whole', maxMs: 'whole', maxRetryAfterMs: 'whole' } as const satisfies Record<keyof BackoffOptions, Optional>;

/** Checked as the call is made, not at the first page: `pageSize: '10'` is refused, never compared as text. */
const CALL_LOG_OPTIONAL = { pageSize: 'page', max: 'whole', onPage: 'function' } as const satisfies Record<keyof IterateCallLogsOptions, Optional>;

/** Builds a client; throws `base_url_invalid` / `region_invalid` for a bad base URL or region, `env_header_invalid` for a key a header cannot carry. */
export function createClient(options: ClientOptions): ApiClient {
  requireOptions('createClient', options, {});
  checkOptionalOptions('createClient', options, CLIENT_OPTIONAL);
  if (options.backoff !== undefined) checkOptionalOptions('createClient', options.backoff, BACKOFF_OPTIONAL, 'backoff');
  // The CLI's rule for VOXFORM_API_KEY: a key read from a file with its line break works here too.
  const apiKey = typeof options.apiKey === 'string' ? headerValue(options.apiKey, 'apiKey') : undefined;
  if (apiKey === undefined) {
    throw new VoxformError('api_key_missing', 'No API key was given to the client.', { hint: 'Pass apiKey, the private key of the account (the CLI reads it from VOXFORM_API_KEY).' });
  }
  const baseUrl = resolveBaseUrl({ baseUrl: options.baseUrl, region: options.region });
  const timeoutMs = options.timeoutMs ?? 30_000;
  const transport = new HttpTransport({
    maxInFlight: options.maxInFlight ?? 16,
    // A connection that cannot be opened within the request's time-out is of no use.
    connectTimeoutMs: Math.min(10_000, timeoutMs),
    ...(options.maxResponseBytes === undefined ? {} : { maxResponseBytes: options.maxResponseBytes }),
  });
  const requester = new Requester({
    transport,
    baseUrl,
    apiKey,
    timeoutMs,
    retries: options.retries ?? 4,
    backoff: options.backoff ?? {},
    userAgent: options.userAgent ?? `voxform/${voxformVersion()}`,
    debug: options.debug,
    redact: options.redact,
    onRequest: options.onRequest,
    onResponse: options.onResponse,
    onRetry: options.onRetry,
    onWriteSent: options.onWriteSent,
    sleep: options.sleep ?? sleepUnlessAborted,
    random: options.random ?? Math.random,
  });
  return new ServiceClient(baseUrl, requester, options.maxUploadBytes ?? MAX_KNOWLEDGE_FILE_BYTES, options.onAnswer);
}

/** The API key lives in the requester's private field only: out of `console.log` and `JSON.stringify` of the client. */
class ServiceClient implements ApiClient {
  constructor(
    readonly baseUrl: string,
    private readonly requester: Requester,
    private readonly maxUploadBytes: number,
    private readonly onAnswer: ((answer: unknown) => void) | undefined,
  ) {}

  withSignal(signal: AbortSignal, options: { abortOnTheWire?: boolean } = {}): ApiClient {
    return this.through(this.requester.withSignal(signal, options));
  }

  withOnSent(onSent: (path: string) => void): ApiClient {
    return this.through(this.requester.withOnSent(onSent));
  }

  /**
   * This client sending through `requester`. Made on `this`, so a wrapper of the client
   * (`Object.create(client)` with methods of its own) gets a view that keeps them.
   */
  private through(requester: Requester): ApiClient {
    return Object.create(this, { requester: { value: requester } }) as ApiClient;
  }

  async createApiKey(body: CreateApiKeyRequest): Promise<CreatedApiKey> {
    return this.json<CreatedApiKey>({ method: 'POST', path: '/api_keys', json: body, schema: 'CreateApiKeyRequest', retry: 'refused-only', checkOutcome: 'look for the new key in the service’s dashboard.' }, isObjectWith('key'));
  }

  async setCredential(body: SetCredentialRequest): Promise<void> {
    await this.action({ method: 'POST', path: '/user/credentials', json: body, schema: 'SetCredentialRequest', retry: 'safe' });
  }

  async editCampaignInfo(campaignId: string, body: EditCampaignInfoRequest): Promise<Campaign> {
    const path = `/campaigns/${segment('campaign id', campaignId)}/info`;
    const answer = await this.json<unknown>({ method: 'PUT', path, json: body, schema: 'EditCampaignInfoRequest', retry: 'safe', notFoundHint: 'Check the campaign id in your manifest.' }, () => true);
    // The spec answers the campaign; tolerate an action-style answer by echoing what was set.
    if (answer !== null && typeof answer === 'object' && 'id' in answer) return answer as Campaign;
    return { id: campaignId, ...body };
  }

  async setCampaignCaller(campaignId: string, caller: string): Promise<void> {
    const body: SetCallerRequest = { caller };
    const path = `/campaigns/${segment('campaign id', campaignId)}/set_caller`;
    await this.action({ method: 'POST', path, json: body, schema: 'SetCallerRequest', retry: 'safe', notFoundHint: 'Check the campaign id in your manifest.' });
  }

  async setPhoneAgent(phone: string, agentId: string): Promise<void> {
    const body: SetPhoneAgentRequest = { agent_id: agentId };
    const path = `/phones/${segment('phone number', phone)}/set_agent`;
    await this.action({ method: 'POST', path, json: body, schema: 'SetPhoneAgentRequest', retry: 'safe', notFoundHint: 'Check the phone number and the agent id in your manifest (import the number first if the account lacks it).' });
  }

  async listPhones(): Promise<Phone[]> {
    // The spec answers an array; a wrapped list (`{phones: […]}`, `{items: […]}`, `{data: […]}`) is tolerated.
    const answer = await this.json<unknown>({ method: 'GET', path: '/phones', retry: 'safe' }, (value) => phoneListAt(value) !== undefined, PHONES);
    return valueAtPath(answer, PHONES.listAt(answer)) as Phone[];
  }

  async importPhone(body: ImportPhoneRequest): Promise<ImportPhoneResult> {
    check('POST /phones/import', 'ImportPhoneRequest', body);
    const wanted = phoneDigits(body.phone);
    const response = await this.requester.send({
      method: 'POST',
      path: '/phones/import',
      json: body,
      retry: 'safe',
      // The import is not idempotent, so a retry is only sent once the phone list shows that no
      // earlier attempt got through.
      alreadyDone: async () => {
        let phones: Phone[];
        try {
          phones = await this.listPhones();
        } catch (error) {
          throw new ApiError({
            code: isApiError(error) && error.code === 'api_unauthorized' ? 'api_unauthorized' : 'api_unavailable',
            message: `POST /phones/import of ${body.phone} failed, and the phone list could not be read to check whether an attempt got through (${(error instanceof Error ? error.message : String(error)).replace(/\.$/, '')}).`,
            hint: 'Run `voxform plan` once the service answers: it shows whether the number is in the account.',
            method: 'POST',
            path: '/phones/import',
            attempts: 1,
            cause: error,
          });
        }
        return phones.some((phone) => phoneDigits(phone.id) === wanted);
      },
    });
    if (!response) return { phone: body.phone, confirmedBy: 'phone_list', response: undefined };
    return { phone: body.phone, confirmedBy: 'response', response: this.checkAction(response, 'POST', '/phones/import') };
  }

  async getAgent(agentId: string): Promise<Agent> {
    const path = `/agents/${segment('agent id', agentId)}`;
    return this.json<Agent>({ method: 'GET', path, retry: 'safe', notFoundHint: 'Check the agent id in your manifest.' }, isObjectWith('config'));
  }

  async updateAgent(agentId: string, body: UpdateAgentRequest): Promise<void> {
    const path = `/agents/${segment('agent id', agentId)}`;
    // A top-level null asks the service to drop that key: not a value the schema describes.
    const config = isPlainObject(body.config) ? splitTopLevelNulls(body.config).rest : body.config;
    check(`PUT ${path}`, 'UpdateAgentRequest', { ...body, config });
    await this.action({ method: 'PUT', path, json: body, retry: 'safe', notFoundHint: 'Check the agent id in your manifest.' });
  }

  async listAgentCallHistories(agentId: string, query: CallHistoriesQuery = {}): Promise<CallHistoriesResponse> {
    const path = `/agents/${segment('agent id', agentId)}/call-histories`;
    check(`GET ${path}`, 'CallHistoriesQuery', query);
    const answer = await this.json<CallHistoriesResponse | GlobalCallHistoryRecord[]>(
      { method: 'GET', path, query: { ...query }, retry: 'safe', notFoundHint: 'Check the agent id.' },
      (value) => Array.isArray(value) || isObjectWithList('items')(value),
      callRecords('CallHistoryRecord', (value) => (Array.isArray(value) ? [] : ['items'])),
    );
    return Array.isArray(answer) ? { items: answer } : answer;
  }

  async listCallLogs(query: CallLogsQuery = {}): Promise<CallLogsResponse> {
    check('GET /call-logs', 'CallLogsQuery', query);
    return this.json<CallLogsResponse>({ method: 'GET', path: '/call-logs', query: { ...query }, retry: 'safe' }, isObjectWithList('histories'), callRecords('GlobalCallHistoryRecord', () => ['histories']));
  }

  iterateCallLogs(filters: CallLogFilters = {}, options: IterateCallLogsOptions = {}): AsyncIterable<GlobalCallHistoryRecord> {
    checkOptionalOptions('iterateCallLogs', options, CALL_LOG_OPTIONAL);
    return walkCallLogs((query) => this.listCallLogs(query), filters, options);
  }

  async registerCall(body: RegisterCallRequest): Promise<RegisterCallResponse> {
    return this.json<RegisterCallResponse>({ method: 'POST', path: '/register_call', json: body, schema: 'RegisterCallRequest', retry: 'refused-only', notFoundHint: 'Check the agent id.', checkOutcome: CHECK_CALLS }, isObjectWith('call_id'));
  }

  async registerSipCall(body: RegisterSipCallRequest): Promise<RegisterSipCallResponse> {
    return this.json<RegisterSipCallResponse>({ method: 'POST', path: '/register_sip_call', json: body, schema: 'RegisterSipCallRequest', retry: 'refused-only', notFoundHint: 'Check the agent id.', checkOutcome: CHECK_CALLS }, isObjectWith('call_id'));
  }

  async createSip(body: CreateSipRequest): Promise<CreateSipResponse> {
    return this.json<CreateSipResponse>({ method: 'POST', path: '/sip', json: body, schema: 'CreateSipRequest', retry: 'refused-only', notFoundHint: 'Check the agent id.' }, isObjectWith('sip'));
  }

  chatCompletions(body: ChatCompletionRequest): ChatCompletionStream {
    check('POST /chat/completions', 'ChatCompletionRequest', body);
    const echo = this.context('POST', '/chat/completions');
    return new ChatCompletionStream(body, (text) => scrubEcho(text, echo), (request) =>
      this.requester.stream({
        method: 'POST',
        path: '/chat/completions',
        json: request,
        retry: 'refused-only',
        accept: 'text/event-stream',
        notFoundHint: 'Check the agent id.',
        checkOutcome: CHECK_CALLS,
      }),
    );
  }

  chatSession(options: ChatSessionOptions): ChatSession {
    segment('agent id', options.agentId);
    return new ChatSession(options, (request) => this.chatCompletions(request));
  }

  async generatePresignedUrl(body: PresignedUrlRequest): Promise<PresignedUrlResponse> {
    return this.json<PresignedUrlResponse>({ method: 'POST', path: '/knowledge/generate_presigned_url', json: body, schema: 'PresignedUrlRequest', retry: 'safe', preparesOnly: true }, (value) => isObjectWith('url')(value) && isObjectWith('fields')(value));
  }

  async createKnowledgeFile(body: KnowledgeFileRecord): Promise<string> {
    const answer = await this.json<unknown>({ method: 'POST', path: '/knowledge/create_file', json: body, schema: 'KnowledgeFileRecord', retry: 'refused-only', checkOutcome: CHECK_KNOWLEDGE_FILES }, () => true);
    const id = fileIdOf(answer);
    if (id === undefined) throw this.unexpected('POST', '/knowledge/create_file', 'a file id (a string, or an object with `id`)');
    return id;
  }

  async setAgentFiles(body: SetAgentFilesRequest): Promise<void> {
    await this.action({ method: 'POST', path: '/knowledge/set_agent_files', json: body, schema: 'SetAgentFilesRequest', retry: 'safe', notFoundHint: 'Check the agent id and the knowledge file ids.' });
  }

  async uploadKnowledgeFile(filePath: string, options: KnowledgeUploadOptions = {}): Promise<string> {
    const file = { ...(await inspectUploadFile(filePath, this.maxUploadBytes)), contentHash: options.contentHash };
    const target = await this.generatePresignedUrl({ filename: file.fileName });
    if (!URL.canParse(target.url, this.baseUrl)) throw this.unexpected('POST', '/knowledge/generate_presigned_url', 'an upload URL');
    const url = new URL(target.url, this.baseUrl);
    const objectKey = target.fields.key;
    if (typeof objectKey !== 'string' || objectKey === '') throw this.unexpected('POST', '/knowledge/generate_presigned_url', 'upload fields with a `key`');
    await this.requester.send({
      method: 'POST',
      path: url.pathname,
      absoluteUrl: url,
      body: () => multipartBody(target.fields, file),
      retry: 'safe', // the same key overwritten with the same bytes
      describeFailure: (status, text, attempts) => storageFailure(url, status, text, attempts),
      preparesOnly: true,
    });
    const record: KnowledgeFileRecord = { object_key: objectKey, name: options.name ?? file.fileName, file_type: file.contentType, size: file.size };
    if (options.description !== undefined) record.description = options.description;
    return this.createKnowledgeFile(record);
  }

  close(options: { abort?: boolean } = {}): Promise<void> {
    return options.abort ? this.requester.transport.destroy() : this.requester.transport.close();
  }

  /**
   * Sends and parses a JSON answer, checking it looks like what the operation promises and, for a
   * list of records (call records, phones), that each can be read.
   */
  private async json<T>(exchange: CheckedExchange, looksRight: (value: unknown) => boolean, records?: RecordList): Promise<T> {
    const response = await this.send(exchange);
    if (!response) throw new Error(`${exchange.method} ${exchange.path} was settled without an answer`);
    const value = this.parse(response, exchange.method, exchange.path);
    if (!looksRight(value)) throw this.unexpected(exchange.method, exchange.path, 'the documented answer', response.status);
    if (records) {
      const at = records.listAt(value);
      const problem = records.malformed(valueAtPath(value, at) as unknown[], at);
      if (problem !== undefined) throw errorFromMalformedRecord(response.status, { kind: records.kind, problem }, this.context(exchange.method, exchange.path));
    }
    return value as T;
  }

  /** Sends an action and checks its answer (`{success: true}`, `"ok"`, anything 2xx but `success: false`). */
  private async action(exchange: CheckedExchange): Promise<unknown> {
    const response = await this.send(exchange);
    if (!response) return undefined;
    return this.checkAction(response, exchange.method, exchange.path);
  }

  /** Sends an exchange, its body checked against its `schema` first. */
  private send(exchange: CheckedExchange): Promise<HttpResponse | undefined> {
    if (exchange.schema !== undefined) check(`${exchange.method} ${exchange.path}`, exchange.schema, exchange.json);
    return this.requester.send(exchange);
  }

  private checkAction(response: HttpResponse, method: string, path: string): unknown {
    const value = this.parse(response, method, path);
    if (value !== null && typeof value === 'object' && (value as { success?: unknown }).success === false) {
      const detail = (value as { detail?: unknown; message?: unknown }).detail ?? (value as { message?: unknown }).message;
      throw errorFromBadAnswer(response.status, '`success: false`', this.context(method, path), typeof detail === 'string' ? detail : undefined);
    }
    return value;
  }

  /** An answer's body parsed, and heard by `onAnswer`; JSON past the budget of JSON from outside is refused (json-budget.ts). */
  private parse(response: HttpResponse, method: string, path: string): unknown {
    let value: unknown;
    try {
      value = parseBody(response.body);
    } catch (error) {
      if (error instanceof JsonPastBudgetError) throw errorFromBadAnswer(response.status, error.message, this.context(method, path));
      throw error;
    }
    this.onAnswer?.(value);
    return value;
  }

  private unexpected(method: string, path: string, what: string, status = 200): VoxformError {
    return errorFromBadAnswer(status, `something other than ${what}`, this.context(method, path));
  }

  private context(method: string, path: string): FailureContext {
    return this.requester.answerContext(method, path);
  }
}

/**
 * Walks the call log newest first. The cursor is a bare timestamp read as "strictly older", so
 * records sharing it across a page boundary would be skipped: each page is asked from just above
 * the cursor and the records already yielded are dropped by call id. A tie group that fills a whole
 * page is stepped past with the exact cursor.
 */
export async function* walkCallLogs(
  fetchPage: (query: CallLogsQuery) => Promise<CallLogsResponse>,
  filters: CallLogFilters,
  options: IterateCallLogsOptions,
): AsyncGenerator<GlobalCallHistoryRecord> {
  const pageSize = options.pageSize ?? 100;
  const max = options.max ?? Infinity;
  let cursor: number | undefined;
  /** Keys of the records yielded whose `ts` equals the cursor. */
  let atCursor = new Set<string>();
  /** Whether to ask from just above the cursor (normally) or from the cursor itself (to step past a tie group). */
  let overlap = true;
  let total = 0;
  for (let page = 1; total < max; page++) {
    let query: CallLogsQuery = { ...filters, limit: Math.min(pageSize, max - total) };
    if (cursor !== undefined) {
      // Room for the records that come again, so a page still brings `limit` new ones.
      const repeats = overlap ? atCursor.size : 0;
      query = { ...query, limit: Math.min(100, (query.limit as number) + repeats), start_after_ts: overlap ? nextUp(cursor) : cursor };
    }
    const answer = await fetchPage(query);
    const records = Array.isArray(answer.histories) ? answer.histories : [];
    let fresh = 0;
    for (const record of records) {
      if (cursor !== undefined && typeof record.ts === 'number') {
        if (record.ts > cursor) continue;
        if (record.ts === cursor && atCursor.has(recordKey(record))) continue;
      }
      yield record;
      fresh++;
      total++;
      if (total >= max) break;
    }
    options.onPage?.({ page, records: total });
    // A cursor sent as a numeric string is taken as the number it spells.
    const next = typeof answer.next_cursor === 'string' ? Number(answer.next_cursor) : answer.next_cursor;
    if (!next || records.length === 0) return;
    if (fresh === 0 && cursor !== undefined && next >= cursor) {
      if (!overlap) return; // the service repeats itself: stop rather than loop
      overlap = false; // a tie group fills the page: step past it
      continue;
    }
    overlap = true;
    if (next !== cursor) atCursor = new Set();
    for (const record of records) if (record.ts === next) atCursor.add(recordKey(record));
    cursor = next;
  }
}

function recordKey(record: GlobalCallHistoryRecord): string {
  return record.call_id ?? record.session_id ?? `${record.ts}|${record.agent_id}|${record.duration}`;
}

/** The smallest double greater than `x` (x ≥ 0). */
export function nextUp(x: number): number {
  if (!Number.isFinite(x) || x < 0) return x;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, x);
  view.setBigUint64(0, view.getBigUint64(0) + 1n);
  return view.getFloat64(0);
}

/** Validates a body against its schema definition; our own mistake never reaches the service. */
function check(operation: string, definition: string, body: unknown): void {
  const issues = validateAgainst(definition, body);
  if (issues.length > 0) throw requestInvalid(operation, issues);
}

/**
 * An id as one path segment. Ids that would address a different resource are refused: an empty one,
 * and "." or "..", which `encodeURIComponent` leaves as they are and a server or proxy resolves as
 * URLs are (`/agents/..` is `/`), so the request, and the key with it, would reach another endpoint.
 */
function segment(what: string, value: string): string {
  if (typeof value !== 'string' || value.trim() === '') {
    throw new VoxformError('api_request_invalid', `voxform needs a non-empty ${what} to build this request.`, {
      hint: `Check the ${what} in your manifest or on the command line.`,
    });
  }
  if (value === '.' || value === '..') {
    throw new VoxformError('api_request_invalid', `The ${what} "${value}" cannot be sent: in a request's path it names the path's own folder or the one above, another endpoint of the service.`, {
      hint: `Write the ${what} the service gave (the dashboard shows it) in your manifest or on the command line.`,
    });
  }
  return encodeURIComponent(value);
}

/** JSON when it parses (a JSON string `"ok"` included), else the raw text (a bare `ok`); empty → null. Throws JsonPastBudgetError. */
function parseBody(text: string): unknown {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  try {
    return parseOutsideJson(trimmed);
  } catch (error) {
    if (error instanceof JsonPastBudgetError) throw error;
    return trimmed;
  }
}

function isObjectWith(key: string): (value: unknown) => boolean {
  return (value) => isPlainObject(value) && key in value;
}

/** An object whose `key` is a list: a page of records whose list is something else is no page. */
function isObjectWithList(key: string): (value: unknown) => boolean {
  return (value) => isPlainObject(value) && Array.isArray(value[key]);
}

function fileIdOf(answer: unknown): string | undefined {
  if (typeof answer === 'string' && answer.trim() !== '') return answer.trim();
  if (answer && typeof answer === 'object') {
    for (const key of ['id', 'file_id']) {
      const value = (answer as Record<string, unknown>)[key];
      if (typeof value === 'string' && value !== '') return value;
    }
  }
  return undefined;
}

/** A number's digits with its leading `+`: `+1 (555) 123-0001` and `+15551230001` compare equal. */
function phoneDigits(phone: string): string {
  return `${phone.trim().startsWith('+') ? '+' : ''}${phone.replace(/\D/g, '')}`;
}
