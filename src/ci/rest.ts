/**
 * The JSON REST client the code hosts' APIs are called through (GitHub, GitLab), on the one client
 * of hosts the operator names (util/host-client.ts: time-outs, a cap on what an answer may weigh,
 * no redirect followed). The origin is always the operator's (an environment variable the CI runner
 * sets), the token is always the operator's and registered as a secret before the first request, so
 * no error or log line can show it.
 */
import { VoxformError } from '../errors.js';
import { shortenRedacted, type Redact } from '../secrets/redact.js';
import { HostClient, type HostAnswer } from '../util/host-client.js';

/** How long a host has to answer one request. */
const REQUEST_TIMEOUT_MS = 30_000;
/** The largest answer read: a page of 100 comments of 65,536 characters each, with room. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** How much of a host's error message is quoted back. */
const MAX_QUOTED_ERROR = 300;

export interface RestAnswer {
  status: number;
  headers: HostAnswer['headers'];
  body: unknown;
}

export interface RestClientOptions {
  /** The API's base URL, e.g. `https://api.github.com` or `https://gitlab.example.com/api/v4`. */
  baseUrl: string;
  /** Headers every request carries (the authorization). */
  headers: Record<string, string>;
  /** Which host, for messages: `GitHub`, `GitLab`. */
  host: string;
  redact: Redact;
}

/** A JSON client of one host's API. */
export class RestClient {
  private readonly host = new HostClient({ timeoutMs: REQUEST_TIMEOUT_MS, maxAnswerBytes: MAX_ANSWER_BYTES });
  private readonly base: URL;

  constructor(private readonly options: RestClientOptions) {
    this.base = new URL(options.baseUrl.endsWith('/') ? options.baseUrl : `${options.baseUrl}/`);
  }

  /** The answer to `method path` (relative to the base URL); a status outside 2xx is `ci_request_failed`, unless `accept` lists it. */
  async call(method: string, path: string, body?: unknown, accept: number[] = []): Promise<RestAnswer> {
    const url = this.urlOf(path);
    let answer: RestAnswer;
    try {
      const response = await this.host.request(url, {
        method,
        headers: { accept: 'application/json', 'user-agent': 'voxform', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...this.options.headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      answer = { status: response.status, headers: response.headers, body: parseJson(response.text) };
    } catch (error) {
      throw new VoxformError('ci_request_failed', `${this.options.host} did not answer ${method} ${url.pathname}: ${shortenRedacted((error as Error).message, MAX_QUOTED_ERROR, this.options.redact)}.`, {
        hint: `Check that the job reaches ${url.origin} (the runner's API URL).`,
      });
    }
    if ((answer.status >= 200 && answer.status < 300) || accept.includes(answer.status)) return answer;
    throw new VoxformError('ci_request_failed', `${this.options.host} refused ${method} ${url.pathname} with ${answer.status}: ${shortenRedacted(messageOf(answer.body), MAX_QUOTED_ERROR, this.options.redact)}.`, {
      hint: answer.status === 401 || answer.status === 403 || answer.status === 404 ? permissionHint(this.options.host) : undefined,
    });
  }

  /**
   * The token's user: `name`, from the answer `answered` describes when it names no one (GitHub's
   * GraphQL `viewer { login }`, GitLab's `GET user` `username`). An answer naming no one is refused before anything is posted:
   * voxform edits only the comments this user wrote, so without it every run would add one more comment.
   */
  userOf(name: unknown, answered: string, hint: string): string {
    if (typeof name === 'string' && name !== '') return name;
    throw new VoxformError('ci_request_failed', `${this.options.host} answered ${answered}, so voxform cannot tell its own comments from others'; nothing was posted.`, { hint });
  }

  /** The path `path` (relative to the base URL) is requested at, for messages. */
  pathOf(path: string): string {
    return this.urlOf(path).pathname;
  }

  /** A path relative to the base URL, or an absolute URL of the operator's (GitHub's GraphQL). */
  private urlOf(path: string): URL {
    return new URL(path.replace(/^\//, ''), this.base);
  }

  async close(): Promise<void> {
    await this.host.close();
  }
}

function permissionHint(host: string): string {
  return host === 'GitHub'
    ? 'Give the job `permissions: { pull-requests: write }` (and `issues: write` for labels), or a token that has them.'
    : 'Set GITLAB_TOKEN to a project or personal access token with the `api` scope and at least the Reporter role.';
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** The host's own words for a refusal: GitHub's `message`, GitLab's `message` or `error`. */
function messageOf(body: unknown): string {
  if (typeof body === 'string') return body || 'no message';
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    for (const key of ['message', 'error']) if (record[key] !== undefined) return typeof record[key] === 'string' ? record[key] : JSON.stringify(record[key]);
  }
  return 'no message';
}
