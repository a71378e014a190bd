/**
 * Requests to a host the operator names (the code host's API at GITHUB_API_URL or CI_API_V4_URL,
 * the receiver of `drift --notify URL`): one undici Agent whose time-out bounds connecting, waiting
 * for the answer's headers and each pause in its body, and which refuses an answer heavier than its
 * cap. No redirect is followed (a 3xx is an answer like any other), so nothing is sent on to a host
 * the operator did not name. What goes wrong is thrown as undici's error, for the caller to word.
 */
import { Agent } from 'undici';

export interface HostAnswer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export class HostClient {
  private readonly agent: Agent;

  /** `connectTimeoutMs`: connecting apart, when an answer may take longer than a host takes to be reached (default `timeoutMs`). */
  constructor(limits: { timeoutMs: number; connectTimeoutMs?: number; maxAnswerBytes: number }) {
    this.agent = new Agent({
      connectTimeout: limits.connectTimeoutMs ?? limits.timeoutMs,
      headersTimeout: limits.timeoutMs,
      bodyTimeout: limits.timeoutMs,
      maxResponseSize: limits.maxAnswerBytes,
    });
  }

  async request(url: URL, request: { method: string; headers: Record<string, string>; body?: string | undefined; signal?: AbortSignal | undefined }): Promise<HostAnswer> {
    const response = await this.agent.request({ origin: url.origin, path: `${url.pathname}${url.search}`, method: request.method as 'GET', headers: request.headers, body: request.body, signal: request.signal });
    return { status: response.statusCode, headers: response.headers, text: await response.body.text() };
  }

  async close(): Promise<void> {
    await this.agent.close();
  }
}

/** Whether `error` is one of the timers a HostClient sets (connecting, the headers, the body) running out. */
export function isHostTimeout(error: unknown): boolean {
  const code = (error as { code?: unknown } | null | undefined)?.code;
  return code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT';
}
