/** The emulator's data model: seeds, stored state, options and controls, on the generated schema types. */
import type {
  Agent,
  AgentConfigRead,
  Campaign,
  ChatMessage,
  EndOfCallPayload,
  GlobalCallHistoryRecord,
  Phone,
} from '../schema/types.gen.js';

/** How PUT /agents/{id} applies a top-level config key (docs/emulator.md, Agents: "Put modes"). */
export type PutMode = 'merge' | 'replace';

/** Answers seen in the wild besides the documented ones (docs/service-api.md, Errors), to test a client's tolerance. */
export interface ResponseStyle {
  /** `success` (default): `{"success": true}`; `ok`: the JSON string `"ok"`. */
  actions?: 'success' | 'ok';
  /** `string` (default): `"kf_…"`; `object`: `{"id": "kf_…"}`. */
  createFile?: 'string' | 'object';
}

export type EndCallStatus = EndOfCallPayload['call_status'];

export const END_CALL_STATUSES: readonly EndCallStatus[] = [
  'user-ended',
  'api-ended',
  'voicemail-message',
  'voicemail-hangup',
  'agent-ended',
  'timeout',
  'error',
  'chat_completion',
];

/** An API key in a seed: the raw `key` (hashed on load) or only its sha256 `hash`. */
export interface SeedKey {
  type: 'private' | 'public';
  key?: string;
  hash?: string;
  id?: string;
  name?: string | null;
  created_at?: number;
  is_default?: boolean;
  legacy?: boolean;
}

/** A phone in a seed: the service's Phone plus the telephony provider it was imported from. */
interface SeedPhone extends Phone {
  provider?: string;
  country?: string;
  region?: string;
}

/** A whole account as a YAML or JSON document; an empty seed is an empty account (no key: nothing authorizes). */
export interface EmulatorSeed {
  keys?: SeedKey[];
  /** Agents with full read-shape configs (provider extras included). */
  agents?: Agent[];
  phones?: SeedPhone[];
  campaigns?: Campaign[];
  /** Call records as GET /call-logs returns them; `call_id`, `agent_id` and `ts` are required. */
  call_logs?: GlobalCallHistoryRecord[];
}

/** An API key as stored: never the key itself, only its sha256. */
export interface StoredKey {
  id: string;
  type: 'private' | 'public';
  name: string | null;
  created_at: number;
  revoked_at: number | null;
  prefix: string;
  legacy: boolean;
  is_default: boolean;
  hash: string;
}

/** A phone as stored: its provider always known (a seed's default is twilio). */
export interface StoredPhone extends SeedPhone {
  provider: string;
  app_id?: string | null;
}

/** A provider credential: only the sha256 of the key, so nothing secret is ever stored or served. */
export interface StoredCredential {
  provider: string;
  fingerprint: string;
  updated_at: number;
}

/** An upload target handed out by generate_presigned_url and not yet expired. */
export interface PendingUpload {
  key: string;
  filename: string;
  /** The exact fields the client must send back. */
  fields: Record<string, string>;
  expires_at: number;
}

/** An object that arrived at the upload target: its size and digest, not its bytes. */
export interface UploadedObject {
  key: string;
  size: number;
  sha256: string;
  content_type: string | null;
  uploaded_at: number;
}

export interface KnowledgeFile {
  id: string;
  object_key: string;
  name: string;
  description?: string;
  file_type?: string;
  size?: number;
  created_at: number;
}

export type SessionKind = 'call' | 'sip' | 'chat';

/** A conversation the emulator runs or ran: one call record in the logs. */
export interface Session {
  call_id: string;
  session_id: string;
  agent_id: string;
  kind: SessionKind;
  /** Start time, Unix seconds (unique across the call log). */
  ts: number;
  /** The effective config: the agent's, the request's override, extra_prompt appended to the prompt. */
  config: AgentConfigRead;
  metadata: Record<string, unknown>;
  from: string;
  to: string;
  /** The voip provider recorded for the call (the phone's provider, `sip` or `web`). */
  provider: string;
  transcript: ChatMessage[];
  ended: boolean;
  /** Hash of the agent_config a chat started with: only a request with the same one continues it. */
  config_key?: string;
}

/** A record of the call log, as GET /call-logs returns it (the global shape). */
export type CallRecord = GlobalCallHistoryRecord & { call_id: string; agent_id: string; ts: number };

/** One fault-injection rule. The first rule whose `path` (and `method`) match a request decides its faults. */
export interface FaultRule {
  /** A glob over the request path (`*` within a segment, `**` across segments), or a regular expression written `^…` or `re:…`. */
  path: string;
  /** Only these methods (default: every method). */
  method?: string | string[];
  /** Added latency, ms. */
  latencyMs?: number;
  /** Extra latency, uniformly drawn from [0, jitterMs), ms. */
  jitterMs?: number;
  /** Fraction of matched requests answered with `errorStatus` instead of being handled. */
  errorRate?: number;
  /** 500 or 503 (default). */
  errorStatus?: 500 | 503;
  /** `burst` matched requests pass, then `limited` (default 1) are answered 429 with Retry-After, and so on. */
  rateLimit?: { burst: number; retryAfterSeconds: number; limited?: number };
  /** Fraction of matched requests whose connection is destroyed without an answer. */
  dropRate?: number;
  /** Drop `before` the request is handled (default), or `after` (its effect happened, the answer is lost). */
  dropPhase?: 'before' | 'after';
}

export interface FaultSettings {
  /** Makes every random draw repeatable: the same seed and the same order of requests give the same faults. */
  seed?: number | string;
  rules: FaultRule[];
}

/** One webhook call the emulator made. */
export interface WebhookDelivery {
  hook: 'prefetch' | 'end_of_call';
  method: 'GET' | 'POST';
  url: string;
  call_id: string;
  session_id: string;
  ok: boolean;
  status?: number;
  /** Why it failed, when it did. */
  error?: string;
  duration_ms: number;
  at: string;
}

/** One request the emulator answered (control requests under /_emulator/ are not logged). */
export interface RequestLogEntry {
  seq: number;
  at: string;
  method: string;
  path: string;
  query: string;
  /** The status answered; 0 when the connection was dropped. */
  status: number;
  duration_ms: number;
  /** With `authorization` redacted. */
  headers: Record<string, string>;
  /** `latency`, `error`, `rate_limited`, `dropped`: what a fault rule did. */
  faults: string[];
  /** Webhooks this request caused; end-of-call deliveries may be appended after the answer was sent. */
  webhooks: WebhookDelivery[];
  /** For a 500: what went wrong. */
  error?: string;
}

export interface EndCallOptions {
  error_message?: string | null;
  /** Duration in seconds to record (default: the time since the call started, rounded). */
  duration?: number;
  /** Replaces the call's transcript. */
  messages?: ChatMessage[];
}

interface EndCallResult {
  record: CallRecord;
  /** The end-of-call delivery, or null when the agent has no `session_data_webhook`. */
  webhook: WebhookDelivery | null;
}

/** What synthetic traffic to generate (the body of `POST /_emulator/traffic`; docs/traffic.md). */
export interface TrafficOptions {
  /** A built-in profile name, or a profile object. Default `steady`. */
  profile?: string | Record<string, unknown>;
  /** Calls per agent (default: the profile's `calls_per_agent`). */
  calls?: number;
  /** Default 1: the same seed and the same configurations give the same calls. */
  seed?: number | string;
  /** The end of the window, Unix seconds (default: now). */
  until?: number;
  /** Only these agents (ids or names); default every agent of the account. */
  agents?: string[];
}

/** The calls generated for one agent. */
export interface AgentTrafficSummary {
  agent_id: string;
  name: string;
  /** `configurationHash` of the configuration the calls ran with. */
  config_hash: string;
  calls: number;
  from: number;
  until: number;
  outcomes: Partial<Record<EndCallStatus, number>>;
  transfers: number;
  tool_calls: number;
  tool_failures: number;
  /** The profile's rules that applied to this version (`rules[0]`, …). */
  rules: string[];
}

/** What a traffic request generated. */
export interface TrafficSummary {
  profile: string;
  seed: string | number;
  until: number;
  calls: number;
  agents: AgentTrafficSummary[];
  /** Agents given no calls, and why. */
  skipped: Array<{ agent_id: string; reason: string }>;
}

/** In-process access to the same controls as the HTTP control surface under /_emulator/. */
export interface EmulatorControl {
  /** Back to the start: the seed, an empty request log, and the start-up faults, put mode and response style. */
  reset(): Promise<void>;
  seed(seed: EmulatorSeed): Promise<void>;
  setPutMode(mode: PutMode): void;
  getPutMode(): PutMode;
  setResponseStyle(style: ResponseStyle): void;
  getResponseStyle(): Required<ResponseStyle>;
  setFaults(rules: FaultRule[], options?: { seed?: number | string }): void;
  clearFaults(): void;
  getFaults(): FaultSettings;
  requestLog(): RequestLogEntry[];
  clearRequestLog(): void;
  /** Every webhook delivery of the request log, oldest first. */
  webhookDeliveries(): WebhookDelivery[];
  /** End a registered call or a chat session, as the caller hanging up would; fires the end-of-call webhook. */
  endCall(callId: string, status: EndCallStatus, options?: EndCallOptions): Promise<EndCallResult>;
  /** Adds synthetic calls of the account's agents to the call log; throws `TrafficProfileError` on a bad request. */
  traffic(options?: TrafficOptions): Promise<TrafficSummary>;
  /** A copy of the stored account (keys as hashes), for assertions. */
  state(): EmulatorStateSnapshot;
  /** Resolves when every change so far is on disk (immediately without a data file). */
  flush(): Promise<void>;
}

/** The stored account as `state()` and the data file show it. */
export interface EmulatorStateSnapshot {
  keys: StoredKey[];
  agents: Agent[];
  phones: StoredPhone[];
  campaigns: Campaign[];
  call_logs: CallRecord[];
  credentials: StoredCredential[];
  knowledge: { pending_uploads: PendingUpload[]; objects: UploadedObject[]; files: KnowledgeFile[] };
  sessions: Session[];
}

export interface EmulatorOptions {
  /** Default 0 (an ephemeral port) for the library; the CLI defaults to 4010. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Persist to this JSON file; loaded if it exists, else created from the seed. */
  dataFile?: string;
  /** Other processes use `dataFile` at the same time (`--local`). Default false (the emulator owns the file). */
  sharedDataFile?: boolean;
  /** A YAML/JSON file path or an object; default: the built-in default seed. */
  seed?: string | EmulatorSeed;
  /** Latency added to every request: fixed ms, or [min, max] for jitter. */
  latencyMs?: number | [number, number];
  /** Fraction of requests answered with 503. */
  failRate?: number;
  /** Seed of the fault draws, for rules without their own. */
  faultSeed?: number | string;
  putMode?: PutMode;
  /** Answers seen in the wild instead of the spec's (default: the spec's). */
  responseStyle?: ResponseStyle;
  /** No request lines on stderr. Default true for the library; the CLI prints them. */
  quiet?: boolean;
  /** Where request lines go when not quiet (default: process.stderr). */
  log?: (line: string) => void;
  /** How long a webhook may take before it counts as failed, ms (default 2000). */
  webhookTimeoutMs?: number;
  /** `all` (default), `loopback` (others are logged as skipped), or `none`. */
  webhooks?: 'all' | 'loopback' | 'none';
  /** How many entries the request log keeps (default 2000; the oldest go first). */
  requestLogLimit?: number;
  /**
   * Play agents with this OpenAI-compatible model (`--llm`) instead of the deterministic reply: `url`
   * is the API's base URL; `model` by default the agent's llm.model, else gpt-4o-mini.
   */
  llm?: { url: string; model?: string | undefined; apiKey?: string | undefined };
}

export interface RunningEmulator {
  /** e.g. http://127.0.0.1:54321 */
  url: string;
  /** The seeded private key. */
  apiKey: string;
  close(): Promise<void>;
  control: EmulatorControl;
}
