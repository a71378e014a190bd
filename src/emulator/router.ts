/**
 * The route table's types and path matching. Each route declares what the server checks before its
 * handler runs, so handlers hold only the behaviour of their operation.
 */
import type { IncomingMessage } from 'node:http';
import type { HeaderDeclaration } from './auth.js';
import type { EmulatorCore } from './core.js';
import { json, type Reply } from './http.js';
import type { RequestLogEntry, StoredKey } from './types.js';

export interface RouteContext {
  core: EmulatorCore;
  /** Path parameters, percent-decoded (`%2B15551230001` → `+15551230001`). */
  params: Record<string, string>;
  /** The query, typed and validated against the route's query definition. */
  query: Record<string, unknown>;
  /** The JSON body, validated against the route's body definition (after `prepareBody`). */
  body: unknown;
  /** The JSON body as parsed, before `prepareBody`. */
  parsed: unknown;
  rawBody: Buffer;
  /** The key that authorized the request (undefined on routes without auth). */
  key: StoredKey | undefined;
  req: IncomingMessage;
  /** The request log entry, for webhook deliveries this request causes. */
  entry: RequestLogEntry | undefined;
  /** Scheme, host and port the client used, for URLs handed back to it. */
  origin: string;
}

export interface Route {
  method: 'GET' | 'PUT' | 'POST' | 'DELETE';
  /** With `{name}` placeholders, e.g. `/agents/{agent_id}`. */
  path: string;
  /** The operation's name in the spec, for the request log and errors. */
  operation: string;
  /** How the spec declares `authorization`; `none` for the emulator's own upload target. */
  header: HeaderDeclaration | 'none';
  /** Whether a public key authorizes this operation. */
  allowPublic?: boolean;
  /** The service schema definition of the JSON body. */
  body?: string;
  /** Adjusts the parsed body before validation (e.g. PUT /agents drops top-level nulls). */
  prepareBody?: (body: unknown) => unknown;
  /** The service schema definition of the query. */
  query?: string;
  /** The body is not JSON (the multipart upload): handed over raw. */
  rawBody?: boolean;
  /** A control route under /_emulator/: no faults, not in the request log, guarded by `controlRequestRefusal`. */
  control?: boolean;
  /** The content types a control route's body may have (default: JSON alone). */
  bodyTypes?: readonly string[];
  /** Largest body accepted, bytes (default 1 MiB). */
  bodyLimit?: number;
  handler(ctx: RouteContext): Reply | Promise<Reply>;
}

/** What a route declares besides its endpoint, its operation and its handler. */
type RouteOptions = Omit<Route, 'method' | 'path' | 'operation' | 'handler'>;

/** A route written as the spec lists its operation: `route('GET /phones', 'list phones', { header: 'required' }, handler)`. */
export function route(endpoint: `${Route['method']} /${string}`, operation: string, options: RouteOptions, handler: Route['handler']): Route {
  const [method, path] = endpoint.split(' ') as [Route['method'], string];
  return { method, path, operation, ...options, handler };
}

interface CompiledRoute {
  route: Route;
  /** Literal segments, or a parameter name in braces. */
  segments: string[];
}

type RouteMatch =
  | { kind: 'found'; route: Route; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allowed: string[] }
  | { kind: 'not_found' };

export class Router {
  private readonly compiled: CompiledRoute[];

  constructor(routes: Route[]) {
    this.compiled = routes.map((route) => ({ route, segments: route.path.split('/').slice(1) }));
  }

  /** `segments` are the request path's raw (still encoded) segments. */
  match(method: string, segments: string[]): RouteMatch {
    const allowed: string[] = [];
    for (const { route, segments: pattern } of this.compiled) {
      if (pattern.length !== segments.length) continue;
      const params = matchSegments(pattern, segments);
      if (!params) continue;
      if (route.method === method) return { kind: 'found', route, params };
      allowed.push(route.method);
    }
    return allowed.length > 0 ? { kind: 'method_not_allowed', allowed } : { kind: 'not_found' };
  }
}

function matchSegments(pattern: string[], segments: string[]): Record<string, string> | undefined {
  const params: Record<string, string> = {};
  for (let i = 0; i < pattern.length; i++) {
    const want = pattern[i] as string;
    const got = segments[i] as string;
    if (want.startsWith('{')) {
      if (got === '') return undefined;
      let value: string;
      try {
        value = decodeURIComponent(got);
      } catch {
        return undefined;
      }
      params[want.slice(1, -1)] = value;
    } else if (want !== got) {
      return undefined;
    }
  }
  return params;
}

/** What an action endpoint answers once its change is on disk: the spec's `{success: true}`, or `"ok"` when the emulator is told to answer like some deployments do. */
export async function actionDone(core: Pick<EmulatorCore, 'store' | 'responseStyle'>): Promise<Reply> {
  await core.store.commit();
  return json(200, core.responseStyle.actions === 'ok' ? 'ok' : { success: true });
}
