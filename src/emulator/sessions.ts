/**
 * Sessions: calls and chats. A session starts with the prefetch webhook (its metadata merged, its
 * extra_prompt appended), is in the call log at once, and on its end the end-of-call webhook fires.
 */
import type { ChatMessage, SessionContinuation, WebhookTarget } from '../schema/types.gen.js';
import { endOfCallPayload, flattenMetadata, prefetchQuery } from '../webhooks/payload.js';
import { prefetchAnswerProblem } from '../webhooks/receive.js';
import { sessionCosts } from './costs.js';
import { HttpError } from './http.js';
import { newId, nowSeconds } from './ids.js';
import { overlayConfig } from './merge.js';
import type { AgentPlayer } from './llm-agent.js';
import { composeReply } from './sse.js';
import { canonicalJson, sha256Hex } from '../util/hash.js';
import type { RequestLog } from './request-log.js';
import type { EmulatorStore } from './store.js';
import type { CallRecord, EndCallOptions, EndCallStatus, RequestLogEntry, Session, SessionKind, WebhookDelivery } from './types.js';
import { bodyValueError } from './validation.js';
import type { WebhookSender } from './webhooks.js';
import { assignOwn, type JsonObject } from '../util/json-object.js';
import { addToList } from '../util/map-lists.js';

/** What a session starts from: the request's fields as the service names them (register_call's, SIP's `init_agent`, a chat's `agent`). */
interface SessionRequest {
  agent_id: string;
  /** Applied over the stored config by top-level key. */
  agent_config?: object | undefined;
  metadata?: Record<string, unknown> | undefined;
  include_metadata_in_prompt?: boolean | undefined;
  from_phone?: string | undefined;
  to_phone?: string | undefined;
  session_continuation?: SessionContinuation | undefined;
}

function charsOf(transcript: readonly ChatMessage[]): number {
  return transcript.reduce((sum, m) => sum + (typeof m.content === 'string' ? m.content.length : 0), 0);
}

/** Identifies the configuration a chat request brings (its agent_config, or none). */
function configKey(override: object | undefined): string {
  return sha256Hex(canonicalJson(override ?? null));
}

/**
 * Hash of a conversation so far, per agent and configuration: how a chat request finds the session
 * it continues. Under another agent_config (a proposed change talked to side by side), it is another.
 */
function transcriptKeys(agentId: string, config: string, messages: readonly ChatMessage[]): string[] {
  const keys: string[] = [];
  let hash = sha256Hex(`${agentId}\u0000${config}`);
  for (const message of messages) {
    hash = sha256Hex(`${hash}\u0000${message.role}\u0000${message.content}`);
    keys.push(hash);
  }
  return keys;
}

export class SessionManager {
  /** Open chat sessions by the hash of their transcript. */
  private readonly chats = new Map<string, Session[]>();

  constructor(
    private readonly store: EmulatorStore,
    private readonly webhooks: WebhookSender,
    private readonly requestLog: RequestLog,
    /** Plays the agent (`--llm`); without it, the deterministic reply of sse.ts. */
    private readonly agentPlayer?: AgentPlayer,
  ) {}

  /** Rebuilds the chat index after the store was replaced (seed, reset, data file). */
  reindex(): void {
    this.chats.clear();
    for (const session of this.store.sessions.values()) if (session.kind === 'chat' && !session.ended) this.indexChat(session);
  }

  /** `at`: where the request's fields sit in the body, for a 422 on an unknown session id. */
  async start(kind: SessionKind, request: SessionRequest, entry: RequestLogEntry | undefined, at: string[]): Promise<Session> {
    const agent = this.store.agents.get(request.agent_id);
    if (!agent) throw new Error(`start(): unknown agent ${request.agent_id}`); // routes check first
    let sessionId = newId('ses');
    let transcript: ChatMessage[] = [];
    let metadata: Record<string, unknown> = {};
    const continuation = request.session_continuation;
    if (continuation?.session_id !== undefined) {
      const previous = this.store.sessionsById.get(continuation.session_id);
      const loc = [...at, 'session_continuation', 'session_id'];
      if (!previous) throw bodyValueError(loc, 'no session with this id');
      // Nothing published says whether another agent may go on with a session: refusing is what a
      // client can rely on either way (its metadata and history were the other agent's).
      if (previous.agent_id !== agent.id) throw bodyValueError(loc, 'this session belongs to another agent');
      // The same session goes on in a new call: its history and metadata carry over.
      sessionId = previous.session_id;
      transcript = [...previous.transcript];
      metadata = { ...previous.metadata };
    }
    transcript.push(...(continuation?.messages ?? []));
    assignOwn(metadata, request.metadata ?? {});

    const config = overlayConfig(agent.config, request.agent_config as JsonObject | undefined);
    const session: Session = {
      call_id: newId('call'),
      session_id: sessionId,
      agent_id: agent.id,
      kind,
      ts: this.store.nextSessionTs(),
      config,
      metadata,
      from: request.from_phone ?? '',
      to: request.to_phone ?? '',
      provider: this.voipProvider(kind, request.from_phone, request.to_phone),
      transcript,
      ended: false,
      config_key: configKey(request.agent_config),
    };

    const target = config.extra_prompt_webhook;
    if (target) await this.prefetch(session, target, entry);
    if (request.include_metadata_in_prompt && Object.keys(session.metadata).length > 0) {
      const lines = Object.entries(flattenMetadata(session.metadata)).map(([k, v]) => `- ${k}: ${v}`);
      session.config.prompt = `${session.config.prompt ?? ''}\n\nSession metadata:\n${lines.join('\n')}`.trimStart();
    }

    this.store.addSession(session);
    this.store.callLog.insert(this.newRecord(session));
    if (session.kind === 'chat') this.indexChat(session);
    return session;
  }

  /** The prefetch GET; its answer updates the session, its failure is only recorded. */
  private async prefetch(session: Session, target: WebhookTarget, entry: RequestLogEntry | undefined): Promise<void> {
    const query = prefetchQuery({ session_id: session.session_id, agent_id: session.agent_id, from: session.from, to: session.to, metadata: session.metadata });
    const outcome = await this.webhooks.send({ hook: 'prefetch', target, call_id: session.call_id, session_id: session.session_id, query });
    const problem = outcome.delivery.ok && outcome.answer !== undefined ? prefetchAnswerProblem(outcome.answer) : undefined;
    if (problem) {
      outcome.delivery.ok = false;
      outcome.delivery.error = `answer ignored: ${problem}`;
    }
    // Recorded once judged: the log keeps a copy.
    this.requestLog.recordDelivery(outcome.delivery, entry);
    if (!outcome.delivery.ok || outcome.answer === undefined) return;
    const answer = outcome.answer as { metadata?: Record<string, unknown>; extra_prompt?: string };
    if (answer.metadata) assignOwn(session.metadata, answer.metadata);
    if (answer.extra_prompt) {
      session.config.prompt = session.config.prompt ? `${session.config.prompt}\n\n${answer.extra_prompt}` : answer.extra_prompt;
    }
  }

  private voipProvider(kind: SessionKind, from: string | undefined, to: string | undefined): string {
    if (kind === 'chat') return 'web';
    if (kind === 'sip') return 'sip';
    const phone = (from && this.store.phones.get(from)) || (to && this.store.phones.get(to)) || undefined;
    return phone?.provider ?? 'twilio';
  }

  private newRecord(session: Session): CallRecord {
    return {
      agent_id: session.agent_id,
      agent_config: session.config as Record<string, unknown>,
      duration: 0,
      ts: session.ts,
      chat: JSON.stringify(session.transcript),
      chars_used: charsOf(session.transcript),
      session_id: session.session_id,
      call_id: session.call_id,
      cost_breakdown: [],
      voip: { provider: session.provider, from: session.from, to: session.to },
      recording: { recording_url: '' },
      metadata: session.metadata,
      function_calls: [],
      call_status: session.kind === 'chat' ? 'in-progress' : 'registered',
      campaign_id: null,
      error_message: null,
      call_metrics: {},
      carrier_call_log: {},
    };
  }

  private chatKey(session: Session): string | undefined {
    return transcriptKeys(session.agent_id, session.config_key ?? configKey(undefined), session.transcript).pop();
  }

  private indexChat(session: Session): void {
    const key = this.chatKey(session);
    if (key) addToList(this.chats, key, session);
  }

  private unindexChat(session: Session): void {
    const key = this.chatKey(session);
    if (!key) return;
    const list = (this.chats.get(key) ?? []).filter((s) => s !== session);
    if (list.length > 0) this.chats.set(key, list);
    else this.chats.delete(key);
  }

  /**
   * One chat request, carrying the whole conversation (OpenAI style): it continues the agent's open
   * chat with the same agent_config whose transcript is the longest prefix of `messages` (the most
   * recently active of identical ones), or starts a new session.
   */
  /** `lasting`: whether the turn changed more than its chat's transcript (it started the chat, or the agent called tools). */
  async chatTurn(agent: SessionRequest, messages: ChatMessage[], entry: RequestLogEntry | undefined): Promise<{ session: Session; reply: string; lasting: boolean }> {
    const keys = transcriptKeys(agent.agent_id, configKey(agent.agent_config), messages);
    let session: Session | undefined;
    for (let i = keys.length - 1; i >= 0 && !session; i--) {
      const open = this.chats.get(keys[i] as string)?.filter((s) => !s.ended);
      session = open?.[open.length - 1];
    }
    const started = session === undefined;
    if (session) {
      this.unindexChat(session);
      assignOwn(session.metadata, agent.metadata ?? {});
    } else {
      session = await this.start('chat', agent, entry, ['agent']);
      this.unindexChat(session);
    }
    const agentName = this.store.agents.get(agent.agent_id)?.name ?? agent.agent_id;
    const turn = this.agentPlayer
      ? await this.agentPlayer.reply(session, messages)
      : { reply: composeReply(agentName, session.config, messages), functionCalls: [] };
    const reply = turn.reply;
    session.transcript = [...messages.map((m) => ({ role: m.role, content: m.content })), ...(reply === '' ? [] : [{ role: 'assistant', content: reply }])];
    this.indexChat(session);
    const record = this.store.callLog.get(session.call_id);
    if (record) {
      if (turn.functionCalls.length > 0) record.function_calls = [...(record.function_calls ?? []), ...turn.functionCalls];
      record.chat = JSON.stringify(session.transcript);
      record.chars_used = charsOf(session.transcript);
    }
    return { session, reply, lasting: started || turn.functionCalls.length > 0 };
  }

  /** Ends a session: its call record is final before the end-of-call webhook goes out (`delivery`). */
  end(session: Session, status: EndCallStatus, options: EndCallOptions, entry: RequestLogEntry | undefined, origin: string): { record: CallRecord; delivery: Promise<WebhookDelivery | null> } {
    if (session.ended) throw new HttpError(409, `Call ${session.call_id} has already ended`);
    session.ended = true;
    if (session.kind === 'chat') this.unindexChat(session);
    if (options.messages) session.transcript = options.messages.map((m) => ({ role: m.role, content: m.content }));
    const duration = options.duration ?? Math.max(0, Math.round(nowSeconds() - session.ts));
    const chars = charsOf(session.transcript);
    const record = this.store.callLog.get(session.call_id) ?? this.newRecord(session);
    Object.assign(record, {
      duration,
      chat: JSON.stringify(session.transcript),
      chars_used: chars,
      cost_breakdown: sessionCosts(session.config, session.kind === 'chat' ? 'chat' : 'voice', duration, chars),
      recording: { recording_url: session.config.call_settings?.enable_recording ? `${origin}/_emulator/recordings/${session.call_id}.wav` : '' },
      metadata: session.metadata,
      call_status: status,
      error_message: options.error_message ?? null,
    });
    this.store.callLog.insert(record);

    const target = session.config.session_data_webhook;
    if (!target) return { record, delivery: Promise.resolve(null) };
    const payload = endOfCallPayload(record);
    const delivery = this.webhooks
      .send({ hook: 'end_of_call', target, call_id: session.call_id, session_id: session.session_id, body: payload })
      .then((outcome) => {
        this.requestLog.recordDelivery(outcome.delivery, entry);
        return outcome.delivery;
      });
    return { record, delivery };
  }
}
