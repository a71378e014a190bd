/** POST /register_call, /register_sip_call, /sip and /chat/completions, and the recordings of calls. */
import type { ChatCompletionRequest, CreateSipRequest, InitAgent, RegisterCallRequest } from '../../schema/types.gen.js';
import { loadSchemas } from '../../schema/load.js';
import { isPlainObject } from '../../util/json-object.js';
import { json, NOT_FOUND, type Reply } from '../http.js';
import { route, type Route, type RouteContext } from '../router.js';
import { replyEvents } from '../sse.js';
import type { SessionKind } from '../types.js';
import { bodyValueError } from '../validation.js';
import { checkConfigFileIds } from '../referenced-files.js';

/**
 * The fields of a chat request the service reads. Every other body refuses an unknown field
 * (`extra_forbidden`), but OpenAI clients send theirs on every call: at the top level (`model`,
 * `stream`, `temperature`, …) and on messages (`name`). So a chat request keeps only the known
 * top-level fields and, on each message, the known message fields, then is validated as strictly as
 * before (docs/service-api.md and docs/emulator.md, "OpenAI clients and unknown fields").
 */
function knownFields(): { request: Set<string>; message: Set<string> } {
  const defs = loadSchemas().service.$defs as Record<string, { properties?: object }>;
  return { request: new Set(Object.keys(defs.ChatCompletionRequest?.properties ?? {})), message: new Set(Object.keys(defs.ChatMessage?.properties ?? {})) };
}

const keepOnly = (value: Record<string, unknown>, known: Set<string>) => Object.fromEntries(Object.entries(value).filter(([name]) => known.has(name)));

function withoutUnknownChatFields(body: unknown): unknown {
  if (!isPlainObject(body)) return body;
  const known = knownFields();
  const kept = keepOnly(body, known.request);
  if (Array.isArray(kept.messages)) kept.messages = kept.messages.map((message: unknown) => (isPlainObject(message) ? keepOnly(message, known.message) : message));
  return kept;
}

async function startCall(ctx: RouteContext, kind: SessionKind, request: RegisterCallRequest | InitAgent, loc: string[]) {
  if (!ctx.core.store.agents.has(request.agent_id)) throw bodyValueError([...loc, 'agent_id'], 'no agent with this id');
  checkConfigFileIds(ctx.core.store, request.agent_config, [...loc, 'agent_config']);
  const session = await ctx.core.sessions.start(kind, request, ctx.entry, loc);
  await ctx.core.store.commit();
  return session;
}

async function chat(ctx: RouteContext): Promise<Reply> {
  const request = ctx.body as ChatCompletionRequest;
  const { core } = ctx;
  if (!core.store.agents.has(request.agent.agent_id)) throw bodyValueError(['agent', 'agent_id'], 'no agent with this id');
  checkConfigFileIds(core.store, request.agent.agent_config, ['agent', 'agent_config']);
  const { session, reply, lasting } = await core.sessions.chatTurn(request.agent, request.messages, ctx.entry);
  if (request.end_of_session) {
    // The record is final before the answer; the webhook goes out on its own and never holds the stream.
    void core.sessions.end(session, 'chat_completion', {}, ctx.entry, ctx.origin).delivery;
  }
  // A shared file (`--local`) is rewritten whole for a change: a turn that only carries a chat's
  // transcript on waits for the chat's end to be written. Only the command that started a chat sends
  // its turns, each with the whole conversation, so one that reloads the file goes on from its start.
  if (lasting || request.end_of_session || !core.store.shared) await core.store.commit();
  const events = replyEvents(reply, {
    callId: session.call_id,
    sessionId: session.session_id,
    model: session.config.llm?.model ?? 'emulator',
    created: Math.floor(Date.now() / 1000),
  });
  return { status: 200, sse: events };
}

/** A WAV header with no samples: a valid, silent recording. */
function silentWav(): Buffer {
  const wav = Buffer.alloc(44);
  wav.write('RIFF', 0);
  wav.writeUInt32LE(36, 4);
  wav.write('WAVEfmt ', 8);
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20); // PCM
  wav.writeUInt16LE(1, 22); // mono
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(16000, 28);
  wav.writeUInt16LE(2, 32);
  wav.writeUInt16LE(16, 34);
  wav.write('data', 36);
  wav.writeUInt32LE(0, 40);
  return wav;
}

export const sessionRoutes: Route[] = [
  route('POST /register_call', 'register call', { header: 'required', body: 'RegisterCallRequest' }, async (ctx) => {
    const session = await startCall(ctx, 'call', ctx.body as RegisterCallRequest, []);
    return json(200, { call_id: session.call_id, session_id: session.session_id });
  }),
  route('POST /register_sip_call', 'register SIP call', { header: 'required', body: 'RegisterSipCallRequest' }, async (ctx) => {
    const session = await startCall(ctx, 'sip', ctx.body as InitAgent, []);
    // SIP URIs name the host the client reached the emulator on.
    return json(200, { call_id: session.call_id, sip_uri: `sip:${session.call_id}@${new URL(ctx.origin).hostname}` });
  }),
  route('POST /sip', 'create SIP', { header: 'unshown', allowPublic: true, body: 'CreateSipRequest' }, async (ctx) => {
    const session = await startCall(ctx, 'sip', (ctx.body as CreateSipRequest).init_agent, ['init_agent']);
    return json(200, { sip: `sip:${session.call_id}@${new URL(ctx.origin).hostname}` });
  }),
  route('POST /chat/completions', 'chat completions', { header: 'unshown', allowPublic: true, body: 'ChatCompletionRequest', prepareBody: withoutUnknownChatFields }, chat),
];

/** Call recordings: not a spec operation, the URLs call records hold. */
export const recordingRoute = route('GET /_emulator/recordings/{file}', 'recording', { header: 'none' }, ({ core, params }) => {
  const callId = (params.file as string).replace(/\.wav$/, '');
  const session = core.store.sessions.get(callId);
  if (!session?.ended || !session.config.call_settings?.enable_recording) return NOT_FOUND();
  return { status: 200, raw: silentWav(), headers: { 'content-type': 'audio/wav' } };
});
