/**
 * The JSON REST client the code hosts' APIs are called through (GitHub, GitLab), on the one client
 * of hosts the operator names (util/host-client.ts: time-outs, a cap on what an answer may weigh,
 * no redirect followed). The origin is always the operator's (an environment variable the CI runner
 * sets), the token is always the operator's and registered as a secret before the first request, so
 * no error or log line can show it.
 */
import { parseRetryAfter } from '../api/retry.js';
import { VoxformError } from '../errors.js';
import { shortenRedacted, type Redact } from '../secrets/redact.js';
import { withoutFullStop } from '../util/shorten.js';
import { HostClient, type HostAnswer } from '../util/host-client.js';
import { sleepUnlessAborted } from '../util/sleep.js';
import { parseOutsideJson } from '../util/json-budget.js';

/** How long a host has to answer one request. */
const REQUEST_TIMEOUT_MS = 30_000;
/** The largest answer read: a page of 100 comments of 65,536 characters each, with room. */
const MAX_ANSWER_BYTES = 32 * 1024 * 1024;
/** How much of a host's error message is quoted back. */
const MAX_QUOTED_ERROR = 300;
/** How many times a request refused for a rate limit is sent in all. */
const RATE_LIMIT_ATTEMPTS = 3;
/** The longest wait for a rate limit to pass: a later one is reported with its time, not waited for (the job would sit idle). */
const MAX_RATE_LIMIT_WAIT_MS = 60_000;
/** The wait when a rate limit names none: GitHub asks for at least a minute before a secondary limit's retry. */
const UNNAMED_RATE_LIMIT_WAIT_MS = 60_000;

interface RestAnswer {
  status: number;
  headers: HostAnswer['headers'];
  body: unknown;
}

interface RestClientOptions {
  /** The API's base URL, e.g. `https://api.github.com` or `https://gitlab.example.com/api/v4`. */
  baseUrl: string;
  /** Headers every request carries (the authorization). */
  headers: Record<string, string>;
  /** Which host, for messages: `GitHub`, `GitLab`. */
  host: string;
  redact: Redact;
  /** What to do about a 401, 403 or 404 that is not a rate limit: the token's scopes or permissions (asked only then). */
  permissionHint: () => string;
  /** Waits before a request refused for a rate limit is sent again (tests pass their own). */
  sleep?: (ms: number) => Promise<void>;
  /** The time now in ms, against which a rate limit's reset is read (tests pass their own). */
  now?: () => number;
}

/**
 * A refusal for a rate limit (429, or GitHub's 403 with `x-ratelimit-remaining: 0` or a
 * `retry-after`), with how long it asks to wait: the host did not act, so any request may be sent again.
 */
function rateLimitWait(answer: RestAnswer, now: number): number | undefined {
  const header = (name: string) => {
    const value = answer.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const spent = header('x-ratelimit-remaining')?.trim() === '0';
  const retryAfter = parseRetryAfter(header('retry-after'), now, Number.POSITIVE_INFINITY);
  // A secondary limit may come as a 403 with neither header: its message says so.
  const limited = answer.status === 429 || (answer.status === 403 && (spent || retryAfter !== undefined || /rate limit/i.test(messageOf(answer.body))));
  if (!limited) return undefined;
  if (retryAfter !== undefined) return retryAfter;
  const reset = Number(header('x-ratelimit-reset'));
  if (spent && Number.isFinite(reset) && reset > 0) return Math.max(reset * 1000 - now, 0);
  return UNNAMED_RATE_LIMIT_WAIT_MS;
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
    const now = this.options.now ?? Date.now;
    const sleep = this.options.sleep ?? sleepUnlessAborted;
    for (let attempt = 1; ; attempt++) {
      const answer = await this.send(method, path, body);
      const wait = accept.includes(answer.status) ? undefined : rateLimitWait(answer, now());
      if (wait === undefined) return this.checked(method, path, answer, accept);
      if (attempt >= RATE_LIMIT_ATTEMPTS || wait > MAX_RATE_LIMIT_WAIT_MS) {
        const lifts = new Date(now() + wait).toISOString().replace(/\.\d+Z$/, 'Z');
        const tried = attempt === 1 ? '' : `: voxform sent the request ${attempt} times, waiting as asked between`;
        throw this.refusal(method, path, answer, `This is ${this.options.host}'s API rate limit, not a missing permission${tried}; it lifts at ${lifts}. Run the job again then, or space out the jobs that share this token.`);
      }
      await sleep(wait);
    }
  }

  /** One request, as the host answered it. */
  private async send(method: string, path: string, body: unknown): Promise<RestAnswer> {
    const url = this.urlOf(path);
    try {
      const response = await this.host.request(url, {
        method,
        headers: { accept: 'application/json', 'user-agent': 'voxform', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...this.options.headers },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, headers: response.headers, body: parseJson(response.text) };
    } catch (error) {
      throw new VoxformError('ci_request_failed', `${this.options.host} did not answer ${method} ${url.pathname}: ${withoutFullStop(shortenRedacted((error as Error).message, MAX_QUOTED_ERROR, this.options.redact))}.`, {
        hint: `Check that the job reaches ${url.origin} (the runner's API URL).`,
      });
    }
  }

  /** The answer when it is a success (or `accept` lists its status), else `ci_request_failed`. */
  private checked(method: string, path: string, answer: RestAnswer, accept: number[]): RestAnswer {
    if ((answer.status >= 200 && answer.status < 300) || accept.includes(answer.status)) return answer;
    throw this.refusal(method, path, answer, answer.status === 401 || answer.status === 403 || answer.status === 404 ? this.options.permissionHint() : undefined);
  }

  private refusal(method: string, path: string, answer: RestAnswer, hint: string | undefined): VoxformError {
    const said = withoutFullStop(shortenRedacted(messageOf(answer.body), MAX_QUOTED_ERROR, this.options.redact));
    return new VoxformError('ci_request_failed', `${this.options.host} refused ${method} ${this.urlOf(path).pathname} with ${answer.status}: ${said}.`, { hint });
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

function parseJson(text: string): unknown {
  try {
    return parseOutsideJson(text);
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
