/**
 * A small deterministic OpenAI-compatible model on loopback (`POST …/chat/completions`, JSON
 * answers, tool calls included), for the judge, the simulated caller and the emulator's `--llm`
 * agent in the project's own tests. No test reaches a real model.
 *
 * The default behaviour, by the role the request is for (told apart by its system message):
 * - judge: "pass" when every "double-quoted phrase" of the rubric occurs in the text (ignoring
 *   case), else "fail"; the reason names the phrase;
 * - caller: first says its persona, then `goal_reached: true` with "Thank you, goodbye.";
 * - agent: with tools, a user message holding a date (YYYY-MM-DD) calls the first tool with
 *   `{date}`; after a tool result it answers "Done: <result>"; otherwise it answers with the first
 *   line of its prompt, " | ", and the last user message — so a prompt edit changes its replies.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeRequest {
  model?: string;
  messages: Array<{ role: string; content?: string | null; tool_calls?: unknown[]; tool_call_id?: string }>;
  tools?: Array<{ type: string; function: { name: string } }>;
  response_format?: { type: string };
}

export type FakeAnswer = { content: string } | { toolCalls: Array<{ name: string; arguments: Record<string, unknown> }> };

export interface FakeModel {
  /** Base URL to give as VOXFORM_JUDGE_URL or --llm (ends in /v1). */
  url: string;
  requests: FakeRequest[];
  /** Authorization headers seen (to check that a key was sent, and where). */
  authorizations: string[];
  close(): Promise<void>;
}

export function defaultAnswer(request: FakeRequest): FakeAnswer {
  const system = request.messages.find((m) => m.role === 'system')?.content ?? '';
  if (system.includes('strict judge')) return { content: JSON.stringify(judgeVerdict(request.messages.at(-1)?.content ?? '')) };
  if (system.includes('You play a caller')) {
    const spoken = request.messages.filter((m) => m.role === 'assistant').length;
    const persona = /Who you are: (.*)/.exec(system)?.[1] ?? 'A caller.';
    return { content: JSON.stringify(spoken === 0 ? { message: persona, goal_reached: false } : { message: 'Thank you, goodbye.', goal_reached: true }) };
  }
  const last = request.messages.at(-1);
  if (last?.role === 'tool') return { content: `Done: ${last.content ?? ''}` };
  const lastUser = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
  const date = /\d{4}-\d{2}-\d{2}/.exec(lastUser)?.[0];
  const tool = request.tools?.[0]?.function.name;
  if (tool && date) return { toolCalls: [{ name: tool, arguments: { date } }] };
  return { content: `${system.split('\n')[0]} | ${lastUser}` };
}

function judgeVerdict(user: string): { verdict: string; reason: string } {
  const rubric = /^Rubric:\n([\s\S]*?)\n\nThe [^\n]*:\n/.exec(user)?.[1] ?? '';
  const subject = user.slice(user.indexOf(':\n', user.indexOf('\n\nThe ')) + 2).toLowerCase();
  for (const [, phrase] of rubric.matchAll(/"([^"]+)"/g)) {
    if (!subject.includes((phrase as string).toLowerCase())) return { verdict: 'fail', reason: `the text does not mention "${phrase}"` };
  }
  return { verdict: 'pass', reason: 'the text meets the rubric' };
}

/** `answer` may hold a request (a slow model): its promise resolves when the answer is to be sent, or never. */
export async function startFakeModel(answer: (request: FakeRequest) => FakeAnswer | Promise<FakeAnswer> = defaultAnswer): Promise<FakeModel> {
  const requests: FakeRequest[] = [];
  const authorizations: string[] = [];
  let counter = 0;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      if (req.method !== 'POST' || !req.url?.endsWith('/chat/completions')) {
        res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'not found' } }));
        return;
      }
      const request = JSON.parse(Buffer.concat(chunks).toString('utf8')) as FakeRequest;
      requests.push(request);
      authorizations.push(String(req.headers.authorization ?? ''));
      const reply = await answer(request);
      const id = ++counter;
      const message =
        'content' in reply
          ? { role: 'assistant', content: reply.content }
          : {
              role: 'assistant',
              content: null,
              tool_calls: reply.toolCalls.map((call, i) => ({ id: `call_${id}_${i}`, type: 'function', function: { name: call.name, arguments: JSON.stringify(call.arguments) } })),
            };
      const body = {
        id: `chatcmpl-fake-${id}`,
        object: 'chat.completion',
        created: 1_700_000_000,
        model: request.model ?? 'fake',
        choices: [{ index: 0, message, finish_reason: 'content' in reply ? 'stop' : 'tool_calls' }],
        usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
      };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    authorizations,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
