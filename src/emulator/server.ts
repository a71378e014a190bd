/**
 * The HTTP server and the request pipeline:
 *   route → (control routes: straight to the handler) → request log → faults → body, query and
 *   header validation (one 422 listing everything, FastAPI style) → key → handler → answer.
 * Handlers return a `Reply`; only this module writes to sockets.
 */
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { isVoxformError, VoxformError } from '../errors.js';
import { openDataFile } from './data-file-users.js';
import { authenticate } from './auth.js';
import { checkResponseStyle, controlRequestRefusal, controlRoutes, createControl, type ControlHost } from './control.js';
import type { EmulatorCore } from './core.js';
import { FaultInjector, MAX_FAULT_DELAY_MS } from './faults.js';
import { detail, HttpError, json, writeReply, type Reply } from './http.js';
import { BodyCutShort, BodyTooLarge, readBody } from '../util/read-body.js';
import { JsonPastBudgetError, parseOutsideJson } from '../util/json-budget.js';
import { errorMessage, errorStack } from '../secrets/error-message.js';
import { jsonErrorPosition } from '../util/json-error-position.js';
import { notADocument, parseJsonDocument, type ParsedDocument } from '../project-files/document-text.js';
import { RequestLog } from './request-log.js';
import { Router, type Route, type RouteContext } from './router.js';
import { accountRoutes } from './routes/account.js';
import { callLogRoutes } from './routes/call-logs.js';
import { knowledgeRoutes, uploadRoute } from './routes/knowledge.js';
import { recordingRoute, sessionRoutes } from './routes/sessions.js';
import { loadSeedIntoStore, resolveSeed } from './seed.js';
import type { AgentPlayer } from './llm-agent.js';
import { SessionManager } from './sessions.js';
import { EmulatorStore } from './store.js';
import type { EmulatorControl, EmulatorOptions, EmulatorSeed, FaultRule, RequestLogEntry, RunningEmulator, WebhookDelivery } from './types.js';
import { checkBody, readQuery, ValidationFailure, type ValidationDetail } from './validation.js';
import { WebhookSender, webhookPolicy } from './webhooks.js';
import { WEBHOOK_BUDGET_MS } from '../webhooks/budget.js';
import { parseRequestTarget } from '../util/request-target.js';
import { answerConnectAsRequest } from '../util/connect-request.js';
import { describeWriteFailure } from '../util/atomic-write.js';
import { REDACTED } from '../secrets/redact.js';
import { replaceUrlTokens } from '../secrets/url-tokens.js';

const DEFAULT_BODY_LIMIT = 1024 * 1024;
/** How long close() lets requests in flight finish before cutting their connections. */
const CLOSE_GRACE_MS = 2000;

/** The spec's operations, in the spec's order. */
export const specRoutes: Route[] = [
  ...accountRoutes,
  ...callLogRoutes,
  ...sessionRoutes,
  ...knowledgeRoutes,
];

/**
 * Whether a request declares its body JSON: `application/json` or an `application/…+json` type, as a
 * FastAPI service reads one. **Decision:** an undeclared body is refused too (FastAPI would read it
 * as JSON): the interface's transport is `Content-Type: application/json`, and a client that leaves
 * the header out should learn it here.
 */
function declaresJson(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  return type === 'application/json' || (type.startsWith('application/') && type.endsWith('+json'));
}

/** What FastAPI answers for a body it did not read as JSON: the bytes are not the object the operation takes. */
const NOT_READ_AS_JSON: ValidationDetail = { type: 'model_attributes_type', loc: ['body'], msg: 'Input should be a valid dictionary or object to extract fields from' };

/** The JSON body, or undefined with its problem added (a 422 on a spec route); a 400 on a control route. */
function parseJsonBody(route: Route, rawBody: Buffer, problems: ValidationDetail[]): unknown {
  const text = rawBody.toString('utf8');
  try {
    return parseOutsideJson(text);
  } catch (error) {
    if (error instanceof JsonPastBudgetError) {
      if (route.control) throw new HttpError(400, `the body ${error.phrase}`);
      problems.push({ type: 'json_invalid', loc: ['body', error.at], msg: `JSON decode error: the body ${error.phrase}` });
      return undefined;
    }
    if (route.control) throw new HttpError(400, `the body ${notADocument(parseJsonDocument(text) as Extract<ParsedDocument, { ok: false }>)}`);
    problems.push({ type: 'json_invalid', loc: ['body', jsonErrorPosition(text) ?? 0], msg: 'JSON decode error' });
    return undefined;
  }
}

const OPTION_FORMS_HINT = 'Use the forms `voxform emulator --help` shows.';

/** The initial fault rule from the `latencyMs`/`failRate` options (the CLI's --latency and --fail-rate). */
function optionFaultRules(options: EmulatorOptions): FaultRule[] {
  const rule: FaultRule = { path: '**' };
  const { latencyMs, failRate } = options;
  if (Array.isArray(latencyMs)) {
    const [min, max] = latencyMs;
    if (!(min >= 0 && max >= min && max <= MAX_FAULT_DELAY_MS)) throw new VoxformError('emulator_options_invalid', `Latency ${min}-${max} is not a range of milliseconds (MIN-MAX, 0 ≤ MIN ≤ MAX ≤ ${MAX_FAULT_DELAY_MS}).`, { hint: OPTION_FORMS_HINT });
    rule.latencyMs = min;
    if (max > min) rule.jitterMs = max - min;
  } else if (latencyMs !== undefined) {
    if (!(latencyMs >= 0 && latencyMs <= MAX_FAULT_DELAY_MS)) throw new VoxformError('emulator_options_invalid', `Latency ${latencyMs} is not a number of milliseconds from 0 to ${MAX_FAULT_DELAY_MS}.`, { hint: OPTION_FORMS_HINT });
    if (latencyMs > 0) rule.latencyMs = latencyMs;
  }
  if (failRate !== undefined) {
    if (!(failRate >= 0 && failRate <= 1)) throw new VoxformError('emulator_options_invalid', `Fail rate ${failRate} is not a fraction between 0 and 1.`, { hint: OPTION_FORMS_HINT });
    if (failRate > 0) {
      rule.errorRate = failRate;
      rule.errorStatus = 503;
    }
  }
  return Object.keys(rule).length > 1 ? [rule] : [];
}

/** Where the emulator's lines go: nowhere when quiet (the library's default), else to `log` or stderr. */
function lineLog(options: EmulatorOptions): ((line: string) => void) | undefined {
  return options.quiet === false ? (options.log ?? ((line) => void process.stderr.write(`${line}\n`))) : undefined;
}

class Emulator implements ControlHost {
  readonly core: EmulatorCore;
  readonly router: Router;
  readonly control: EmulatorControl;
  private readonly server: http.Server;
  private baseUrl = '';
  /** The port, and the host it was told (for the control routes' Host check). */
  private listening = { port: 0, host: '' };
  private readonly inFlight = new Set<Promise<void>>();
  private closing: Promise<void> | undefined;
  private readonly initialFaults: FaultRule[];
  private readonly log: ((line: string) => void) | undefined;

  constructor(
    private readonly options: EmulatorOptions,
    private readonly initialSeed: EmulatorSeed,
    store: EmulatorStore,
    /** Plays the agents in sessions with a model (`options.llm`); undefined: the scripted replies. */
    agentPlayer: AgentPlayer | undefined,
  ) {
    this.log = lineLog(options);
    const requestLog = new RequestLog(options.requestLogLimit ?? 2000, this.log ? (d) => this.logDelivery(d) : undefined);
    const webhooks = new WebhookSender(options.webhookTimeoutMs ?? WEBHOOK_BUDGET_MS, webhookPolicy(options.webhooks));
    const faults = new FaultInjector(options.faultSeed);
    this.initialFaults = optionFaultRules(options);
    faults.set({ rules: this.initialFaults });
    this.core = {
      store,
      sessions: new SessionManager(store, webhooks, requestLog, agentPlayer),
      webhooks,
      faults,
      requestLog,
      putMode: options.putMode ?? 'merge',
      responseStyle: checkResponseStyle(options.responseStyle ?? {}),
      uploadSecret: randomBytes(32).toString('hex'),
    };
    this.core.sessions.reindex();
    store.onReload = () => this.core.sessions.reindex();
    this.control = createControl(this);
    this.router = new Router([...specRoutes, uploadRoute, recordingRoute, ...controlRoutes(this, this.control)]);
    this.server = http.createServer((req, res) => {
      const done = this.handle(req, res).catch((error: unknown) => this.crashed(res, error));
      this.inFlight.add(done);
      void done.finally(() => this.inFlight.delete(done));
    });
    answerConnectAsRequest(this.server);
  }

  url(): string {
    return this.baseUrl;
  }

  async listen(port: number, host: string): Promise<void> {
    this.server.listen(port, host);
    try {
      await once(this.server, 'listening');
    } catch (caught) {
      const error = caught as NodeJS.ErrnoException;
      if (error.code === 'EADDRINUSE') {
        throw new VoxformError('emulator_port_in_use', `Port ${port} on ${host} is already in use.`, { hint: 'Stop what is using it, or pick another port with --port (0 picks a free one).' });
      }
      throw new VoxformError('emulator_listen_failed', `The emulator cannot listen on ${host}:${port}: ${error.message}.`, {
        hint: 'Pick another --host (an address of this machine, such as 127.0.0.1, or 0.0.0.0 for every one) or --port (0 picks a free one).',
      });
    }
    const address = this.server.address() as AddressInfo;
    const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
    this.baseUrl = `http://${shownHost}:${address.port}`;
    this.listening = { port: address.port, host };
  }

  async reset(): Promise<void> {
    await this.loadSeed(this.initialSeed);
    this.core.requestLog.clear();
    this.core.faults.set({ rules: this.initialFaults });
    this.core.putMode = this.options.putMode ?? 'merge';
    this.core.responseStyle = checkResponseStyle(this.options.responseStyle ?? {});
  }

  async loadSeed(seed: EmulatorSeed): Promise<void> {
    loadSeedIntoStore(this.core.store, seed);
    this.core.sessions.reindex();
    await this.core.store.commit();
  }

  close(): Promise<void> {
    this.closing ??= (async () => {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      this.server.closeIdleConnections();
      // Let answers in flight go out (and their changes reach the disk), but not forever.
      const grace = new Promise<void>((resolve) => setTimeout(resolve, CLOSE_GRACE_MS).unref());
      await Promise.race([Promise.allSettled([...this.inFlight]), grace]);
      this.core.webhooks.abortAll();
      this.server.closeAllConnections();
      await closed;
      await this.core.store.flush();
    })();
    return this.closing;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const started = performance.now();
    const method = req.method ?? 'GET';
    const target = parseRequestTarget(req.url);
    if (!target.ok) {
      req.resume();
      writeReply(res, detail(400, target.message));
      return;
    }
    const { path: rawPath, decodedPath: path, search } = target;
    const match = this.router.match(method, rawPath.split('/').slice(1));

    if (match.kind === 'found' && match.route.control) {
      const refusal = controlRequestRefusal(req, this.listening, match.route.bodyTypes);
      if (refusal) {
        req.resume();
        writeReply(res, detail(refusal.status, refusal.message));
        return;
      }
      const reply = await this.run(match.route, match.params, req, search, undefined);
      writeReply(res, reply);
      return;
    }

    const entry = this.core.requestLog.begin(req, path, search);
    const finish = (status: number) => {
      entry.status = status;
      entry.duration_ms = Math.round((performance.now() - started) * 100) / 100;
      if (this.log) this.logRequest(entry);
    };

    const fault = this.core.faults.decide(method, path);
    // Latency counts from the request's arrival: the answer, not the handling, waits for it.
    const answerAt = fault && fault.delayMs > 0 ? started + fault.delayMs : undefined;
    if (fault) {
      entry.faults.push(...fault.labels);
      if (fault.drop === 'before') {
        await waitUntil(answerAt, res);
        req.socket.destroy();
        finish(0);
        return;
      }
      if (fault.status !== undefined) {
        req.resume();
        const headers: Record<string, string> = fault.retryAfterSeconds === undefined ? {} : { 'retry-after': String(fault.retryAfterSeconds) };
        const message = fault.status === 429 ? 'Too Many Requests' : fault.status === 500 ? 'Internal Server Error' : 'Service Unavailable';
        await waitUntil(answerAt, res);
        writeReply(res, json(fault.status, { detail: message }, headers));
        finish(fault.status);
        return;
      }
    }

    let reply: Reply;
    if (match.kind === 'not_found') {
      req.resume();
      reply = detail(404, 'Not Found');
    } else if (match.kind === 'method_not_allowed') {
      req.resume();
      reply = json(405, { detail: 'Method Not Allowed' }, { allow: match.allowed.join(', ') });
    } else {
      reply = await this.run(match.route, match.params, req, search, entry);
    }
    if (reply.status >= 500 && reply.json && typeof reply.json === 'object') entry.error = String((reply.json as { detail?: unknown }).detail);
    if (answerAt !== undefined) {
      // Serialized before the wait, so that writing it after takes no time of its own.
      if (reply.json !== undefined && reply.jsonText === undefined) reply = { ...reply, jsonText: JSON.stringify(reply.json) };
      await waitUntil(answerAt, res);
    }
    if (fault?.drop === 'after') {
      // The request took effect; its answer is lost with the connection.
      req.socket.destroy();
      finish(0);
      return;
    }
    writeReply(res, reply);
    finish(reply.status);
  }

  /** Reads, validates and authorizes a request for a route, then runs its handler; every outcome is a Reply. */
  private async run(route: Route, params: Record<string, string>, req: IncomingMessage, search: string, entry: RequestLogEntry | undefined): Promise<Reply> {
    try {
      const limit = route.bodyLimit ?? DEFAULT_BODY_LIMIT;
      let rawBody: Buffer;
      try {
        rawBody = await readBody(req, limit);
      } catch (error) {
        if (error instanceof BodyTooLarge) return detail(413, `Request body too large (at most ${limit} bytes)`);
        if (error instanceof BodyCutShort) return detail(400, 'The request body was cut short');
        throw error;
      }
      const request = this.checkRequest(route, req, search, rawBody);
      if (request.problems.length > 0) return json(422, { detail: request.problems });
      const ctx: RouteContext = { core: this.core, params, query: request.query, body: request.body, parsed: request.parsed, rawBody, key: undefined, req, entry, origin: this.originOf(req) };
      // Only GETs leave the account as it is; every other request may change it.
      return await this.core.store.access(route.method !== 'GET', async () => {
        if (route.header !== 'none') {
          const outcome = authenticate(this.core.store, req.headers.authorization, route.allowPublic ?? false);
          if (!outcome.ok) return detail(outcome.status, outcome.detail);
          ctx.key = outcome.key;
        }
        return route.handler(ctx);
      });
    } catch (error) {
      return this.failure(route, error);
    }
  }

  /** Header, query and body checked together, FastAPI style: every problem in one list. */
  private checkRequest(route: Route, req: IncomingMessage, search: string, rawBody: Buffer): { problems: ValidationDetail[]; query: Record<string, unknown>; parsed: unknown; body: unknown } {
    const problems: ValidationDetail[] = [];
    if (route.header === 'required' && req.headers.authorization === undefined) problems.push({ type: 'missing', loc: ['header', 'authorization'], msg: 'Field required' });

    let query: Record<string, unknown> = {};
    if (route.query) {
      const read = readQuery(route.query, new URLSearchParams(search));
      query = read.value;
      problems.push(...read.detail);
    } else if (route.control) {
      query = Object.fromEntries(new URLSearchParams(search));
    } else if (route.header !== 'none' && search !== '') {
      // A spec operation without a query definition takes no parameter: each one is refused, as
      // the closed query definitions refuse an unknown one (the URLs the emulator hands out,
      // declared `none`, are not spec operations). Most requests have no query string to read.
      for (const name of new Set(new URLSearchParams(search).keys())) problems.push({ type: 'extra_forbidden', loc: ['query', name], msg: 'Extra inputs are not permitted' });
    }

    if (route.body && rawBody.length > 0 && !declaresJson(req.headers['content-type'])) {
      problems.push(NOT_READ_AS_JSON);
      return { problems, query, parsed: undefined, body: undefined };
    }
    const parsed = route.rawBody || rawBody.length === 0 ? undefined : parseJsonBody(route, rawBody, problems);
    let body: unknown = parsed;
    if (route.body && parsed === undefined && !problems.some((p) => p.type === 'json_invalid')) {
      problems.push({ type: 'missing', loc: ['body'], msg: 'Field required' });
    } else if (route.body && parsed !== undefined) {
      body = route.prepareBody ? route.prepareBody(parsed) : parsed;
      problems.push(...checkBody(route.body, body));
    }
    return { problems, query, parsed, body };
  }

  /** Scheme, host and port the client used, for URLs handed back; our own when the Host makes no URL. */
  private originOf(req: IncomingMessage): string {
    const host = req.headers.host;
    if (host && /^[A-Za-z0-9.\-_~:[\]%]+$/.test(host) && URL.canParse(`http://${host}`)) return `http://${host}`;
    return this.baseUrl;
  }

  private failure(route: Route, error: unknown): Reply {
    if (error instanceof ValidationFailure) return json(422, { detail: error.detail });
    if (error instanceof HttpError) return json(error.status, { detail: error.message }, error.headers);
    if (error instanceof VoxformError) return detail(400, error.message);
    const message = errorMessage(error);
    this.log?.(`emulator: ${route.method} ${route.path} failed: ${errorStack(error)}`);
    return detail(500, `Internal Server Error: ${message}`);
  }

  private crashed(res: ServerResponse, error: unknown): void {
    this.log?.(`emulator: a request failed: ${errorStack(error)}`);
    if (!res.headersSent) writeReply(res, detail(500, 'Internal Server Error'));
    else res.destroy();
  }

  private logRequest(entry: RequestLogEntry): void {
    const faults = entry.faults.length > 0 ? `  [${entry.faults.join(', ')}]` : '';
    const status = entry.status === 0 ? 'dropped' : String(entry.status);
    this.log?.(`${entry.method} ${entry.path}${entry.query ? `?${entry.query}` : ''} → ${status} (${entry.duration_ms} ms)${faults}`);
  }

  /** A delivery's line: its URL's tokens (user info, query values) shown as `(sensitive)`, as every command shows them. */
  private logDelivery(delivery: WebhookDelivery): void {
    const outcome = delivery.ok ? `${delivery.status}` : `failed: ${delivery.error}`;
    this.log?.(`  webhook ${delivery.hook} ${delivery.method} ${replaceUrlTokens(delivery.url, REDACTED)} → ${outcome} (${delivery.duration_ms} ms)`);
  }
}

/**
 * The library's port and PUT-mode options, checked before anything is created or read: a value
 * Node or the store would take otherwise fails as a raw error, or is served without a word.
 */
function checkStartOptions(options: EmulatorOptions): void {
  const refuse = (what: string, hint: string) => {
    throw new VoxformError('emulator_options_invalid', `${what}; the emulator was not started.`, { hint });
  };
  const { port, putMode } = options;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) refuse(`The port option ${String(port)} is not a port number from 0 to 65535`, 'Pass a port from 1 to 65535, or 0 (the default) for a free one.');
  if (putMode !== undefined && putMode !== 'merge' && putMode !== 'replace') refuse(`The putMode option ${JSON.stringify(putMode) ?? String(putMode)} is not 'merge' or 'replace'`, "Pass putMode: 'merge' (the default) or 'replace' (docs/emulator.md).");
}

/** Starts an emulator; resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<RunningEmulator> {
  const webhooks = webhookPolicy(options.webhooks); // before anything is created or read
  checkStartOptions(options);
  const initialSeed = await resolveSeed(options.seed);
  const dataFile = options.dataFile;
  const leave = dataFile === undefined ? async () => undefined : await openDataFile(dataFile, options.sharedDataFile === true ? 'shares' : 'owns').catch((error: unknown) => Promise.reject(isVoxformError(error) ? error : dataFileUnwritable(dataFile, error)));
  try {
    return await startOnDataFile(options, initialSeed, webhooks, leave);
  } catch (error) {
    await leave();
    throw error;
  }
}

/** `startEmulator` once the data file, if any, is this emulator's to use: `leave` gives it up when it closes. */
async function startOnDataFile(options: EmulatorOptions, initialSeed: EmulatorSeed, webhooks: ReturnType<typeof webhookPolicy>, leave: () => Promise<void>): Promise<RunningEmulator> {
  const store = new EmulatorStore(options.dataFile, {
    shared: options.sharedDataFile === true,
    // The lock could not be kept fresh (the process stalled for seconds): another process may have
    // taken it over. Say so; the next batch locks again.
    onLockLost: (error) => lineLog(options)?.(`emulator: lost the data file lock: ${error.message}`),
  });
  let created = false;
  if (!store.shared) {
    created = !(await store.loadDataFile());
    if (created) loadSeedIntoStore(store, initialSeed);
  }
  // The model's client is slow to load: only for an emulator told to use one (never `--local`).
  const agentPlayer = options.llm ? new (await import('./llm-agent.js')).LlmAgent(options.llm, webhooks) : undefined;
  const emulator = new Emulator(options, initialSeed, store, agentPlayer);
  if (store.shared) {
    await store.access(false, () => undefined); // loads the file, without waiting for the lock
    // A new file is seeded under the lock, so two commands started at once seed it only once.
    if (!store.shared.exists) {
      await store.access(true, async () => {
        if (!store.shared?.exists) await emulator.loadSeed(initialSeed);
      });
    }
  }
  // A new data file is written before the emulator listens: one that cannot be written is refused
  // at the start, rather than served with a 500 for every change.
  if (created && options.dataFile) await store.commit().catch((error: unknown) => Promise.reject(dataFileUnwritable(options.dataFile as string, error)));
  await emulator.listen(options.port ?? 0, options.host ?? '127.0.0.1');
  return {
    url: emulator.url(),
    apiKey: usablePrivateKey(store),
    close: () => emulator.close().finally(leave),
    control: emulator.control,
  };
}

/** A data file the file system refused to write (or its folder to make): the emulator does not start. */
export function dataFileUnwritable(file: string, error: unknown): VoxformError {
  return new VoxformError('emulator_data_unwritable', `The emulator cannot write its data file ${file}: ${describeWriteFailure(error)}. It did not start.`, {
    hint: 'Point --data at a file in a folder that exists and that you may write, or leave --data out to keep the data in memory.',
  });
}

/** The seed's raw private key, only if the account accepts it as one (a data file may say anything). */
function usablePrivateKey(store: EmulatorStore): string {
  const key = store.seedPrivateKey;
  if (!key) return '';
  return authenticate(store, key, false).ok ? key : '';
}

/**
 * Resolves at `at` (a `performance.now()` time), at once if that has passed. Rounded down: Node
 * fires a timer a fraction of a millisecond late, so the answer leaves centred on `at`.
 */
function waitUntil(at: number | undefined, res: ServerResponse): Promise<void> | undefined {
  if (at === undefined) return undefined;
  const remaining = Math.floor(at - performance.now());
  if (remaining < 1 || res.destroyed) return undefined;
  // A caller that has gone away gets no answer: holding one for it would only make `close` wait.
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      res.off('close', done);
      resolve();
    };
    const timer = setTimeout(done, remaining);
    res.once('close', done);
  });
}
