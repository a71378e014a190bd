/**
 * Reading a session's call record back from the call log, for the checks on it (tools called,
 * call status, the transcript). The record is found by the session id the reply stream carried,
 * else by the transcript; the service may take a moment to write it, so a few reads are tried.
 */
import { setTimeout as delay } from 'node:timers/promises';
import type { ApiClient } from '../api/index.js';
import type { GlobalCallHistoryRecord } from '../schema/types.gen.js';
import type { CallRecordView, ToolCall } from './checks.js';
import type { TranscriptMessage } from './types.js';
import { parseOutsideJson } from '../util/json-budget.js';

/** Records of the agent searched for the session, newest first. */
const SEARCH_DEPTH = 300;
/**
 * Records read per page: the session's is most often the newest, and a test's conversations make
 * records of up to about a megabyte each (fifty turns of 10,000 characters, and the replies), so a
 * page of the default hundred could pass the largest answer the client reads.
 */
const PAGE_SIZE = 10;
const READ_ATTEMPTS = 4;
const RETRY_DELAY_MS = 250;

interface FindCallRecordInput {
  client: ApiClient;
  agentId: string;
  sessionId: string | undefined;
  transcript: readonly TranscriptMessage[];
}

export async function findCallRecord(input: FindCallRecordInput): Promise<GlobalCallHistoryRecord | undefined> {
  const wanted = input.transcript.map(({ role, content }) => ({ role, content }));
  for (let attempt = 1; attempt <= READ_ATTEMPTS; attempt++) {
    for await (const record of input.client.iterateCallLogs({ agent_id: input.agentId }, { max: SEARCH_DEPTH, pageSize: PAGE_SIZE })) {
      if (input.sessionId !== undefined ? record.session_id === input.sessionId : sameTranscript(record.chat, wanted)) {
        if (record.call_status !== 'in-progress') return record;
      }
    }
    if (attempt < READ_ATTEMPTS) await delay(RETRY_DELAY_MS * attempt);
  }
  return undefined;
}

/** Whether the record's chat begins with the conversation (ending a session may add a last reply). */
function sameTranscript(chat: unknown, wanted: readonly TranscriptMessage[]): boolean {
  return JSON.stringify(parseChat(chat).slice(0, wanted.length)) === JSON.stringify(wanted);
}

/** The record's `chat` (a JSON string of messages) as user and assistant lines. */
export function parseChat(chat: unknown): TranscriptMessage[] {
  let parsed: unknown = chat;
  if (typeof chat === 'string') {
    try {
      parsed = parseOutsideJson(chat);
    } catch {
      return [];
    }
  }
  if (!Array.isArray(parsed)) return [];
  return parsed.flatMap((message: unknown) => {
    const { role, content } = (message ?? {}) as { role?: unknown; content?: unknown };
    if ((role !== 'user' && role !== 'assistant') || typeof content !== 'string') return [];
    return [{ role, content }];
  });
}

export function viewOfRecord(record: GlobalCallHistoryRecord): CallRecordView {
  const calls = Array.isArray(record.function_calls) ? record.function_calls : [];
  const toolCalls: ToolCall[] = calls.flatMap((call) => (typeof call?.name === 'string' ? [{ name: call.name, params: parseParams(call.params) }] : []));
  return { callStatus: record.call_status, toolCalls, transcript: parseChat(record.chat) };
}

/** Parameters as an object: some records carry them as a JSON string. */
function parseParams(params: unknown): unknown {
  if (typeof params !== 'string') return params;
  try {
    return parseOutsideJson(params);
  } catch {
    return params;
  }
}
