/**
 * The chat completions answer: a deterministic reply, streamed as Server-Sent Events in the OpenAI
 * chunk format (a role chunk, one chunk per word, a `finish_reason: "stop"` chunk, then `[DONE]`).
 */
import type { AgentConfigRead, ChatCompletionChunk, ChatMessage } from '../schema/types.gen.js';
import { controlsAsQuestionMarks } from '../util/printable.js';

/** The reply, documented in docs/emulator.md so tests can expect it exactly. */
export function composeReply(agentName: string, config: AgentConfigRead, messages: readonly ChatMessage[]): string {
  // The agent spoke last (a request ending the session): it has nothing to add, so nothing is said or recorded twice.
  if (messages.at(-1)?.role === 'assistant') return '';
  const lastUser = [...messages].reverse().find((m) => m.role === 'user');
  // The name is a label on the reply's first line, as a table shows it: a line break in it would start a line of its own.
  const label = `[${controlsAsQuestionMarks(agentName)}]`;
  if (lastUser) return `${label} You said: ${lastUser.content}`;
  return config.first_message || `${label} Hello!`;
}

/** The events' data, in order: JSON chunks, then the literal `[DONE]`. */
export function replyEvents(reply: string, options: { callId: string; sessionId: string; model: string; created: number }): string[] {
  const base = { id: `chatcmpl-${options.callId}`, object: 'chat.completion.chunk', created: options.created, model: options.model, session_id: options.sessionId };
  const chunk = (delta: { role?: string; content?: string }, finish: string | null): string => {
    const body: ChatCompletionChunk & Record<string, unknown> = { ...base, choices: [{ index: 0, delta, finish_reason: finish }] };
    return JSON.stringify(body);
  };
  const events = [chunk({ role: 'assistant', content: '' }, null)];
  // One chunk per word with its trailing space: joining every delta gives the reply back exactly.
  for (const piece of reply.match(/\s*\S+\s*/g) ?? [reply]) events.push(chunk({ content: piece }, null));
  events.push(chunk({}, 'stop'));
  events.push('[DONE]');
  return events;
}
