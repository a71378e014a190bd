/** What the service sends its two webhooks, built in one place for the emulator and `voxform webhook send`. */
import type { CallHistoryRecord, EndOfCallPayload, PrefetchWebhookQuery } from '../schema/types.gen.js';
import { setOwn } from '../util/json-object.js';

/** What a call record must hold to make an end-of-call payload (the emulator's records always do). */
export type EndedCallRecord = CallHistoryRecord & { error_message?: string | null | undefined };

/** Metadata as query text: strings as they are, `null` as empty, other values as JSON. */
export function flattenMetadata(metadata: Readonly<Record<string, unknown>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(metadata)) {
    if (value === undefined) continue;
    // A key named __proto__ is metadata like any other: an own key, never the object's prototype.
    setOwn(out, key, typeof value === 'string' ? value : value === null ? '' : JSON.stringify(value));
  }
  return out;
}

interface PrefetchSession {
  session_id: string;
  agent_id: string;
  /** The caller's number; empty or absent for a chat. */
  from?: string | undefined;
  to?: string | undefined;
  metadata?: Readonly<Record<string, unknown>> | undefined;
}

/**
 * The query of the prefetch GET: every metadata key flattened in, then the spec's own parameters,
 * which win over metadata keys of the same name (`from` and `to` only when the session has them).
 */
export function prefetchQuery(session: PrefetchSession): PrefetchWebhookQuery & Record<string, string> {
  const query: Record<string, string> = { ...flattenMetadata(session.metadata ?? {}) };
  query.session_id = session.session_id;
  query.agent_id = session.agent_id;
  if (session.from) query.from = session.from;
  else delete query.from;
  if (session.to) query.to = session.to;
  else delete query.to;
  return query as PrefetchWebhookQuery & Record<string, string>;
}

/**
 * The end-of-call POST body of an ended call's record. `duration` and `chars_used` are whole
 * numbers in the payload, so a record's fractional values are rounded; the rest is copied as it is.
 */
export function endOfCallPayload(record: EndedCallRecord): EndOfCallPayload {
  const voip = record.voip ?? {};
  return {
    chat: record.chat ?? '[]',
    function_calls: (record.function_calls ?? []) as EndOfCallPayload['function_calls'],
    ts: record.ts ?? 0,
    duration: Math.round(record.duration ?? 0),
    agent_config: record.agent_config ?? {},
    agent_id: record.agent_id ?? '',
    call_id: record.call_id ?? '',
    chars_used: Math.round(record.chars_used ?? 0),
    session_id: record.session_id ?? '',
    cost_breakdown: record.cost_breakdown ?? [],
    voip: { provider: voip.provider, from: voip.from, to: voip.to } as EndOfCallPayload['voip'],
    recording: (record.recording ?? { recording_url: '' }) as EndOfCallPayload['recording'],
    metadata: record.metadata ?? {},
    call_status: record.call_status as EndOfCallPayload['call_status'],
    error_message: record.error_message ?? null,
  };
}
