/**
 * Calling a tool's webhook for the `--llm` agent, in the emulator's own format (docs/emulator.md):
 * the arguments as a GET query or a JSON body, `session_id` and metadata as the tool asks. The
 * answer (capped) or the failure goes back to the model as the tool's result.
 */
import type { ToolCommon } from '../schema/types.gen.js';
import { isLoopback } from '../util/loopback.js';
import type { WebhookPolicy } from './webhooks.js';
import { toolMockAnswer } from '../util/tool-mocks.js';

/** Most of a tool's answer handed to the model. */
const MAX_TOOL_ANSWER = 16 * 1024;
const DEFAULT_TOOL_TIMEOUT_MS = 5000;

interface ToolCallInput {
  tool: ToolCommon;
  args: Record<string, unknown>;
  sessionId: string;
  metadata: Record<string, unknown>;
  policy: WebhookPolicy;
}

/** Calls the tool; resolves to the text the model is given as the tool's result. */
export async function callToolWebhook(input: ToolCallInput): Promise<string> {
  const { tool } = input;
  if (!tool.webhook) return 'error: this tool has no webhook';
  let url: URL;
  try {
    url = new URL(tool.webhook);
  } catch {
    return 'error: the tool webhook is not a valid URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `error: unsupported scheme ${url.protocol}`;
  // A conversation test's mocked tool (mock_tools:): its fixed answer, with nothing called.
  const mocked = toolMockAnswer(url);
  if (mocked !== undefined) return mocked.slice(0, MAX_TOOL_ANSWER);
  if (input.policy === 'none') return 'error: the emulator does not call webhooks (webhooks: none)';
  if (input.policy === 'loopback' && !isLoopback(url.hostname)) return 'error: the emulator only calls loopback webhooks';

  const payload: Record<string, unknown> = { ...input.args };
  if (!tool.exclude_session_id) payload.session_id = input.sessionId;
  if (tool.include_metadata) payload.metadata = input.metadata;
  const method = (tool.method ?? 'POST').toUpperCase();
  const headers: Record<string, string> = { 'user-agent': 'voxform-emulator', accept: 'application/json', ...(tool.header ?? {}) } as Record<string, string>;
  let body: string | undefined;
  if (method === 'GET') {
    for (const [key, value] of Object.entries(payload)) url.searchParams.append(key, typeof value === 'string' ? value : JSON.stringify(value));
  } else {
    body = JSON.stringify(payload);
    headers['content-type'] = 'application/json';
  }
  const timeout = tool.timeout && tool.timeout > 0 ? tool.timeout : DEFAULT_TOOL_TIMEOUT_MS;
  try {
    // Loaded here: the library is large, and only a model calling a tool needs it.
    const { request } = await import('undici');
    const answer = await request(url, { method: method as 'GET', headers, body, headersTimeout: timeout, bodyTimeout: timeout });
    const text = await readCapped(answer.body);
    if (answer.statusCode < 200 || answer.statusCode >= 300) return `error: the tool answered ${answer.statusCode}: ${text.slice(0, 500)}`;
    return text === '' ? 'ok' : text;
  } catch (error) {
    return `error: the tool could not be reached (${(error as Error).message})`;
  }
}

async function readCapped(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > MAX_TOOL_ANSWER) {
      body.destroy();
      break;
    }
  }
  return Buffer.concat(chunks).toString('utf8').slice(0, MAX_TOOL_ANSWER);
}
