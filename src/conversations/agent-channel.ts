/**
 * How a conversation reaches the agent: a chat turn, and the call record once the session ended.
 * The service's channel sends them; a recording's channel (src/conversations/recordings/) records them on the way
 * or answers them from the file. The conversation does not know which it talks to.
 */
import type { ApiClient } from '../api/index.js';
import type { ChatCompletionRequest } from '../schema/types.gen.js';
import { findCallRecord, viewOfRecord } from './call-record.js';
import type { CallRecordView } from './checks.js';
import type { TranscriptMessage } from './types.js';

export interface AgentTurn {
  reply: string;
  /** The session the service matched the request to; undefined from a recording (its call record is recorded too). */
  sessionId: string | undefined;
  finishReason: string | null | undefined;
}

interface CallRecordQuery {
  agentId: string;
  sessionId: string | undefined;
  transcript: readonly TranscriptMessage[];
}

export interface AgentChannel {
  send(request: ChatCompletionRequest): Promise<AgentTurn>;
  /** The session's record as the checks see it (tools called, status); undefined when not in the call log. */
  callRecord(query: CallRecordQuery): Promise<Pick<CallRecordView, 'callStatus' | 'toolCalls'> | undefined>;
}

export function serviceChannel(client: ApiClient): AgentChannel {
  return {
    async send(request) {
      const stream = client.chatCompletions(request);
      const reply = await stream.collect();
      return { reply, sessionId: stream.sessionId, finishReason: stream.finishReason };
    },
    async callRecord(query) {
      const record = await findCallRecord({ client, ...query });
      if (!record) return undefined;
      const { callStatus, toolCalls } = viewOfRecord(record);
      return { callStatus, toolCalls };
    },
  };
}
