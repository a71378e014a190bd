/**
 * A local stand-in for the parts of GitHub's and GitLab's REST APIs `voxform ci run` uses, on
 * loopback: pull-request comments and labels (GitHub, at the root), merge-request notes and labels
 * (GitLab, under /api/v4), who a token is (GitHub's GraphQL `viewer` at /graphql), and which review merged a commit. Pages are served as the
 * hosts serve them (`per_page`, `page`), a comment is edited only by its author, and every request is
 * recorded, so tests see what was sent and that nothing else was touched.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeComment {
  id: number;
  review: number;
  author: string;
  body: string;
  /** How many times it was edited. */
  edits: number;
}

export interface FakeRequest {
  method: string;
  path: string;
  /** The token the request carried (GitHub's bearer, GitLab's private token). */
  token: string | undefined;
  body: unknown;
}

export interface FakeCodeHost {
  url: string;
  comments: FakeComment[];
  labels: Map<number, Set<string>>;
  requests: FakeRequest[];
  /**
   * token → login; a token mapped to `undefined` is GitHub's Actions token, writing as
   * github-actions[bot]. A login ending in `[bot]` is an installation token's (the Actions token's, a
   * GitHub App's): REST's GET /user refuses it, GraphQL's `viewer` names it.
   */
  tokens: Map<string, string | undefined>;
  /** token → what GET /user (GitLab) or the GraphQL `viewer` query (GitHub) answers instead of naming the token's user (200): a host or proxy whose answer names no one. */
  userAnswers: Map<string, unknown>;
  /** commit → the review that merged it. */
  merged: Map<string, number>;
  /** Tokens that may read but not write (a fork's pull request on GitHub): every write is refused with 403. */
  readOnly: Set<string>;
  /**
   * Answers given, in order, to the next requests instead of serving them (a rate limit, say); each
   * is used once. One naming a `route` (`METHOD /path`) waits for the next request to that route.
   */
  refusals: Array<{ status: number; headers?: Record<string, string>; body: unknown; route?: string }>;
  /** A comment someone wrote (not through voxform). */
  addComment(review: number, author: string, body: string): FakeComment;
  labelsOf(review: number): string[];
  close(): Promise<void>;
}

const ACTIONS_BOT = 'github-actions[bot]';

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(body === undefined ? '' : JSON.stringify(body));
}

function page<T>(items: T[], url: URL): T[] {
  const size = Number(url.searchParams.get('per_page') ?? '30');
  const number = Number(url.searchParams.get('page') ?? '1');
  return items.slice((number - 1) * size, number * size);
}

export async function startFakeCodeHost(): Promise<FakeCodeHost> {
  const host: Omit<FakeCodeHost, 'url' | 'close'> = {
    comments: [],
    labels: new Map(),
    requests: [],
    tokens: new Map(),
    userAnswers: new Map(),
    merged: new Map(),
    refusals: [],
    readOnly: new Set(),
    addComment(review, author, body) {
      const comment = { id: 1000 + host.comments.length, review, author, body, edits: 0 };
      host.comments.push(comment);
      return comment;
    },
    labelsOf: (review) => [...(host.labels.get(review) ?? [])].sort(),
  };
  const labelSet = (review: number) => host.labels.get(review) ?? host.labels.set(review, new Set()).get(review)!;

  const handle = (req: IncomingMessage, res: ServerResponse, raw: string) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const gitlab = url.pathname.startsWith('/api/v4/');
    const token = gitlab ? (req.headers['private-token'] as string | undefined) : /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      return send(res, 400, { message: 'Problems parsing JSON' });
    }
    host.requests.push({ method: req.method ?? '', path: `${url.pathname}${url.search}`, token, body });
    const refused = host.refusals.findIndex((refusal) => refusal.route === undefined || refusal.route === `${req.method} ${url.pathname}`);
    const refusal = refused === -1 ? undefined : host.refusals.splice(refused, 1)[0];
    if (refusal) return send(res, refusal.status, refusal.body, refusal.headers);
    if (token === undefined || !host.tokens.has(token)) return send(res, 401, { message: 'Bad credentials' });
    const login = host.tokens.get(token);
    const author = login ?? ACTIONS_BOT;
    const route = `${req.method} ${url.pathname}`;
    const text = (body as { body?: unknown } | undefined)?.body;
    let match: RegExpExecArray | null;

    if (route === 'GET /user' || route === 'GET /api/v4/user') {
      if (gitlab && host.userAnswers.has(token)) return send(res, 200, host.userAnswers.get(token));
      if (author.endsWith('[bot]')) return send(res, 403, { message: 'Resource not accessible by integration' });
      return send(res, 200, gitlab ? { username: author } : { login: author });
    }
    if (host.readOnly.has(token) && req.method !== 'GET' && route !== 'POST /graphql') return send(res, 403, { message: 'Resource not accessible by integration' });
    if (route === 'POST /graphql') {
      if (!/^query \{ viewer \{ login \} \}$/.test(String((body as { query?: unknown } | undefined)?.query))) return send(res, 200, { errors: [{ message: 'this fake answers only the viewer query' }] });
      if (host.userAnswers.has(token)) return send(res, 200, host.userAnswers.get(token));
      return send(res, 200, { data: { viewer: { login: author } } });
    }
    if ((match = /^GET \/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(route))) {
      const items = host.comments.filter((c) => c.review === Number(match![1]));
      return send(res, 200, page(items, url).map((c) => ({ id: c.id, body: c.body, user: { login: c.author } })));
    }
    if ((match = /^GET \/api\/v4\/projects\/\d+\/merge_requests\/(\d+)\/notes$/.exec(route))) {
      const items = host.comments.filter((c) => c.review === Number(match![1]));
      return send(res, 200, page(items, url).map((c) => ({ id: c.id, body: c.body, system: false, author: { username: c.author } })));
    }
    if ((match = /^POST \/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/comments$/.exec(route)) || (match = /^POST \/api\/v4\/projects\/\d+\/merge_requests\/(\d+)\/notes$/.exec(route))) {
      if (typeof text !== 'string') return send(res, 422, { message: 'body is missing' });
      if (!gitlab && text.length > 65_536) return send(res, 422, { message: 'Body is too long (maximum is 65536 characters)' });
      const comment = host.addComment(Number(match[1]), author, text);
      return send(res, 201, { id: comment.id });
    }
    if ((match = /^PATCH \/repos\/[^/]+\/[^/]+\/issues\/comments\/(\d+)$/.exec(route)) || (match = /^PUT \/api\/v4\/projects\/\d+\/merge_requests\/\d+\/notes\/(\d+)$/.exec(route))) {
      const comment = host.comments.find((c) => c.id === Number(match![1]));
      if (!comment) return send(res, 404, { message: 'Not Found' });
      if (comment.author !== author) return send(res, 403, { message: 'You can only edit your own comments' });
      if (typeof text !== 'string') return send(res, 422, { message: 'body is missing' });
      if (!gitlab && text.length > 65_536) return send(res, 422, { message: 'Body is too long (maximum is 65536 characters)' });
      comment.body = text;
      comment.edits++;
      return send(res, 200, { id: comment.id });
    }
    if ((match = /^POST \/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/labels$/.exec(route))) {
      const labels = (body as { labels?: unknown }).labels;
      if (!Array.isArray(labels)) return send(res, 422, { message: 'labels is missing' });
      for (const label of labels) labelSet(Number(match[1])).add(String(label));
      return send(res, 200, [...labelSet(Number(match[1]))].map((name) => ({ name })));
    }
    if ((match = /^DELETE \/repos\/[^/]+\/[^/]+\/issues\/(\d+)\/labels\/([^/]+)$/.exec(route))) {
      const removed = labelSet(Number(match[1])).delete(decodeURIComponent(match[2]!));
      return removed ? send(res, 200, []) : send(res, 404, { message: 'Label does not exist' });
    }
    if ((match = /^PUT \/api\/v4\/projects\/\d+\/merge_requests\/(\d+)$/.exec(route))) {
      const { add_labels: add, remove_labels: remove } = body as { add_labels?: string; remove_labels?: string };
      for (const label of (add ?? '').split(',').filter(Boolean)) labelSet(Number(match[1])).add(label);
      for (const label of (remove ?? '').split(',').filter(Boolean)) labelSet(Number(match[1])).delete(label);
      return send(res, 200, { iid: Number(match[1]), labels: [...labelSet(Number(match[1]))] });
    }
    if ((match = /^GET \/repos\/[^/]+\/[^/]+\/commits\/([0-9a-f]+)\/pulls$/.exec(route))) {
      const number = host.merged.get(match[1]!);
      return send(res, 200, number === undefined ? [] : [{ number: number + 1, merged_at: null }, { number, merged_at: '2026-11-28T10:00:00Z' }]);
    }
    if ((match = /^GET \/api\/v4\/projects\/\d+\/repository\/commits\/([0-9a-f]+)\/merge_requests$/.exec(route))) {
      const iid = host.merged.get(match[1]!);
      return send(res, 200, iid === undefined ? [] : [{ iid: iid + 1, state: 'opened' }, { iid, state: 'merged' }]);
    }
    return send(res, 404, { message: 'Not Found' });
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => handle(req, res, Buffer.concat(chunks).toString('utf8')));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    ...host,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  } as FakeCodeHost;
}
