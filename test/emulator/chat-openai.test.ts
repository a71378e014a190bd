import OpenAI from 'openai';
import type { ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PUBLIC_KEY, type RunningEmulator } from '../../src/emulator/index.js';
import { FRONT_DESK, startTestEmulator, streamedText, type Client } from './helpers.js';

let emulator: RunningEmulator;
let client: Client;

beforeAll(async () => {
  ({ emulator, client } = await startTestEmulator());
});
afterAll(() => emulator.close());
beforeEach(() => emulator.control.reset());

/** The service's fields ride along with OpenAI's: the SDK sends whatever the params object holds. */
type AgentChatParams = ChatCompletionCreateParamsStreaming & { agent: { agent_id: string; metadata?: Record<string, unknown> }; end_of_session?: boolean };

/**
 * The `openai` npm client pointed at the emulator. The service wants the raw key in
 * `authorization` (no `Bearer `), so it goes in as a default header, which the SDK sends in place
 * of its own.
 */
function openaiFor(key: string): OpenAI {
  return new OpenAI({ baseURL: emulator.url, apiKey: key, defaultHeaders: { authorization: key }, maxRetries: 0 });
}

async function streamReply(openai: OpenAI, params: AgentChatParams): Promise<{ text: string; sessionIds: Set<string> }> {
  const stream = await openai.chat.completions.create(params);
  let text = '';
  const sessionIds = new Set<string>();
  for await (const chunk of stream) {
    text += chunk.choices[0]?.delta?.content ?? '';
    sessionIds.add((chunk as unknown as { session_id: string }).session_id);
  }
  return { text, sessionIds };
}

describe('POST /chat/completions with the openai npm client (streaming)', () => {
  it('accepts the body the SDK sends (model, stream, temperature) and streams the reply', async () => {
    const openai = openaiFor(emulator.apiKey);
    const first = await streamReply(openai, {
      model: 'gpt-4o-mini',
      stream: true,
      temperature: 0.2,
      messages: [{ role: 'user', content: 'What time do you open?' }],
      agent: { agent_id: FRONT_DESK },
    });
    expect(first.text).toBe('[Front desk] You said: What time do you open?');
    expect(first.sessionIds.size).toBe(1);

    // The conversation goes on in the same session, and ends when the client says so.
    const second = await streamReply(openai, {
      model: 'gpt-4o-mini',
      stream: true,
      messages: [
        { role: 'user', content: 'What time do you open?' },
        { role: 'assistant', content: first.text },
        { role: 'user', content: 'Thanks', name: 'caller' },
      ],
      agent: { agent_id: FRONT_DESK },
      end_of_session: true,
    });
    expect(second.text).toBe('[Front desk] You said: Thanks');
    expect(second.sessionIds).toEqual(first.sessionIds);
    const chats = emulator.control.state().sessions.filter((s) => s.kind === 'chat');
    expect(chats).toHaveLength(1);
    expect(chats[0]?.ended).toBe(true);
  });

  it('works with the public key, as a browser or app would call it', async () => {
    const reply = await streamReply(openaiFor(DEFAULT_PUBLIC_KEY), { model: 'any', stream: true, messages: [{ role: 'user', content: 'Hi' }], agent: { agent_id: FRONT_DESK } });
    expect(reply.text).toBe('[Front desk] You said: Hi');
  });

  it('a request without the service’s own `agent` is still a 422 the SDK reports', async () => {
    const openai = openaiFor(emulator.apiKey);
    const refused = openai.chat.completions.create({ model: 'gpt-4o-mini', stream: true, messages: [{ role: 'user', content: 'Hi' }] });
    // (The SDK reads OpenAI's `error` member; the FastAPI body carries `detail`, so only the status shows.)
    await expect(refused).rejects.toBeInstanceOf(OpenAI.UnprocessableEntityError);
  });
});

describe('unknown fields of a chat request (Decision: ignored at the top level, checked inside `agent`)', () => {
  it('unknown top-level fields are ignored', async () => {
    const answer = await client.post('/chat/completions', {
      model: 'gpt-4o',
      stream: false,
      stream_options: { include_usage: true },
      n: 1,
      agent: { agent_id: FRONT_DESK },
      messages: [{ role: 'user', content: 'Hello' }],
    });
    expect(answer.status).toBe(200);
    expect(streamedText(answer.text)).toBe('[Front desk] You said: Hello');
  });

  it('unknown fields inside `agent` (the service’s own shape) are still refused', async () => {
    const answer = await client.post('/chat/completions', { agent: { agent_id: FRONT_DESK, agent_name: 'x' }, messages: [] });
    expect(answer.status).toBe(422);
    expect(answer.body).toEqual({ detail: [{ type: 'extra_forbidden', loc: ['body', 'agent', 'agent_name'], msg: 'Extra inputs are not permitted' }] });
  });

  it('the known fields are validated as before', async () => {
    const answer = await client.post('/chat/completions', { model: 'gpt-4o', agent: { agent_id: FRONT_DESK }, messages: 'hello', end_of_session: 'yes' });
    expect(answer.status).toBe(422);
    expect(answer.body.detail.map((d: { loc: unknown[] }) => d.loc)).toEqual([
      ['body', 'messages'],
      ['body', 'end_of_session'],
    ]);
  });
});
