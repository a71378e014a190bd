/**
 * The control surface: test-only operations under /_emulator/, and the same in-process as
 * `EmulatorControl`. No key guards them, so `controlRequestRefusal` keeps web pages out.
 */
import { isIP } from 'node:net';
import type { IncomingMessage } from 'node:http';
import type { ChatMessage } from '../schema/types.gen.js';
import type { EmulatorCore } from './core.js';
import { detail, HttpError, json, NOT_FOUND } from './http.js';
import { route, type Route } from './router.js';
import { isPlainObject } from '../util/json-object.js';
import { checkSeed } from './seed.js';
import { notADocument, parseJsonDocument, parseYamlDocument } from '../project-files/document-text.js';
import { addTraffic, checkTrafficOptions, TrafficAgentsAmbiguousError, TrafficAgentsUnknownError, TrafficProfileError } from './traffic/index.js';
import { END_CALL_STATUSES, type EmulatorControl, type EmulatorSeed, type EndCallOptions, type EndCallStatus, type FaultRule, type FaultSettings, type PutMode, type ResponseStyle } from './types.js';

/** What the control surface needs from the running emulator. */
export interface ControlHost {
  core: EmulatorCore;
  /** The base URL, for URLs made outside a request (recordings of calls ended in-process). */
  url(): string;
  reset(): Promise<void>;
  loadSeed(seed: EmulatorSeed): Promise<void>;
}

function checkPutMode(mode: unknown): PutMode {
  if (mode !== 'merge' && mode !== 'replace') throw new HttpError(400, 'mode must be "merge" or "replace"');
  return mode;
}

/** A complete response style from a partial one; throws HttpError 400 on unknown values. */
export function checkResponseStyle(style: unknown): Required<ResponseStyle> {
  if (style === null || typeof style !== 'object' || Array.isArray(style)) throw new HttpError(400, 'the response style must be {actions?, createFile?}');
  const { actions = 'success', createFile = 'string', ...rest } = style as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw new HttpError(400, `unknown field ${Object.keys(rest)[0]} (expected actions, createFile)`);
  if (actions !== 'success' && actions !== 'ok') throw new HttpError(400, 'actions must be "success" or "ok"');
  if (createFile !== 'string' && createFile !== 'object') throw new HttpError(400, 'createFile must be "string" or "object"');
  return { actions, createFile };
}

function checkEndOptions(body: Record<string, unknown>): { status: EndCallStatus; options: EndCallOptions } {
  const { status, error_message, duration, messages, ...rest } = body;
  if (Object.keys(rest).length > 0) throw new HttpError(400, `unknown field ${Object.keys(rest)[0]} (expected status, error_message, duration, messages)`);
  if (!END_CALL_STATUSES.includes(status as EndCallStatus)) throw new HttpError(400, `status must be one of ${END_CALL_STATUSES.join(', ')}`);
  if (error_message !== undefined && error_message !== null && typeof error_message !== 'string') throw new HttpError(400, 'error_message must be a string or null');
  if (duration !== undefined && (!Number.isInteger(duration) || (duration as number) < 0)) throw new HttpError(400, 'duration must be a whole number of seconds, 0 or more');
  if (messages !== undefined && !(Array.isArray(messages) && messages.every((m) => m && typeof m.role === 'string' && typeof m.content === 'string'))) {
    throw new HttpError(400, 'messages must be a list of {role, content}');
  }
  const options: EndCallOptions = {};
  if (error_message !== undefined) options.error_message = error_message as string | null;
  if (duration !== undefined) options.duration = duration as number;
  if (messages !== undefined) options.messages = messages as ChatMessage[];
  return { status: status as EndCallStatus, options };
}

/** The body types a control route takes by default; a seed may also be YAML. */
const CONTROL_BODY_TYPES: readonly string[] = ['application/json'];
const SEED_BODY_TYPES: readonly string[] = ['application/json', 'application/yaml', 'application/x-yaml', 'text/yaml', 'text/x-yaml'];

/** The host name of a Host header (`[::1]:4010` → `::1`) and its port (undefined when none is written). */
function splitHost(host: string): { name: string; port: string | undefined } | undefined {
  const match = /^(\[[0-9A-Fa-f:.]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(host);
  if (!match) return undefined;
  return { name: (match[1] as string).replace(/^\[|\]$/g, '').toLowerCase(), port: match[2] };
}

/**
 * Why a request to a control route is refused, or undefined. They answer only what a browser cannot
 * be made to send on a web page's behalf:
 * - **Host** must name this emulator by an address, `localhost` or its `--host`, with its port:
 *   DNS rebinding points a page's own name at 127.0.0.1 (403);
 * - an **Origin**, when there is one, must be the emulator's own (403);
 * - a **body** must be declared JSON (a seed: JSON or YAML): a page may send `text/plain` and the
 *   form types across sites without asking first (415).
 */
export function controlRequestRefusal(req: IncomingMessage, server: { port: number; host: string }, bodyTypes: readonly string[] = CONTROL_BODY_TYPES): HttpError | undefined {
  const host = req.headers.host ?? '';
  const named = splitHost(host);
  const listenHost = server.host.replace(/^\[|\]$/g, '').toLowerCase();
  const known = named !== undefined && (named.name === 'localhost' || isIP(named.name) !== 0 || named.name === listenHost);
  if (!named || !known || Number(named.port ?? 80) !== server.port) {
    return new HttpError(403, `The control routes answer only requests addressed to this emulator (Host localhost:${server.port} or 127.0.0.1:${server.port}), not to ${JSON.stringify(host)}.`);
  }
  const origin = req.headers.origin;
  if (origin !== undefined && origin.toLowerCase() !== `http://${host.toLowerCase()}`) {
    return new HttpError(403, 'The control routes do not answer requests a web page sends from another origin.');
  }
  const length = req.headers['content-length'];
  const hasBody = req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
  const type = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (hasBody && !bodyTypes.includes(type)) {
    return new HttpError(415, `A control request's body must be ${bodyTypes.length > 1 ? 'JSON or YAML' : 'JSON'} (content-type ${bodyTypes[0]}), not ${type === '' ? 'undeclared' : type}.`);
  }
  return undefined;
}

export function createControl(host: ControlHost): EmulatorControl {
  const { core } = host;
  return {
    // Through the store, which serializes them with other processes' when the data file is shared.
    reset: () => core.store.access(true, () => host.reset()),
    seed: async (seed) => {
      checkSeed(seed, 'object');
      await core.store.access(true, () => host.loadSeed(seed));
    },
    setPutMode: (mode) => {
      core.putMode = checkPutMode(mode);
    },
    getPutMode: () => core.putMode,
    setResponseStyle: (style) => {
      core.responseStyle = checkResponseStyle(style);
    },
    getResponseStyle: () => ({ ...core.responseStyle }),
    setFaults: (rules: FaultRule[], options = {}) => core.faults.set({ rules, ...(options.seed === undefined ? {} : { seed: options.seed }) }),
    clearFaults: () => core.faults.clear(),
    getFaults: () => core.faults.get(),
    requestLog: () => core.requestLog.list(),
    clearRequestLog: () => core.requestLog.clear(),
    webhookDeliveries: () => core.requestLog.deliveries(),
    endCall: async (callId, status, options = {}) => {
      const { record, delivery } = await core.store.access(true, async () => {
        const session = core.store.sessions.get(callId);
        if (!session) throw new HttpError(404, `No call ${callId}`);
        const { status: checked, options: checkedOptions } = checkEndOptions({ status, ...options });
        const ended = core.sessions.end(session, checked, checkedOptions, undefined, host.url());
        await core.store.commit();
        return { record: structuredClone(ended.record), delivery: ended.delivery };
      });
      return { record, webhook: await delivery };
    },
    // One change of the account: a shared data file is reloaded first (the agents' latest configs) and written once.
    traffic: (options = {}) =>
      core.store.access(true, async () => {
        const summary = await addTraffic(core.store, checkTrafficOptions(options));
        await core.store.commit();
        return summary;
      }),
    state: () => core.store.snapshot(),
    flush: () => core.store.flush(),
  };
}

const asObject = (body: unknown): Record<string, unknown> => {
  if (!isPlainObject(body)) throw new HttpError(400, 'the body must be a JSON object');
  return body;
};

/** GET /_emulator: what runs here and how much the account holds. */
function describeEmulator(core: EmulatorCore): Record<string, unknown> {
  return {
    emulator: 'voxform',
    put_mode: core.putMode,
    faults: core.faults.get(),
    data_file: core.store.dataFile ?? null,
    counts: {
      agents: core.store.agents.size,
      phones: core.store.phones.size,
      campaigns: core.store.campaigns.size,
      call_logs: core.store.callLog.size,
      keys: core.store.keys.size,
    },
  };
}

/** POST /_emulator/seed: a seed in YAML (by its content type) or JSON, checked, then loaded. */
function seedHandler(host: ControlHost): Route['handler'] {
  return async ({ rawBody, req }) => {
    const text = rawBody.toString('utf8');
    const isYaml = /yaml/i.test(req.headers['content-type'] ?? '');
    const parsed = isYaml ? await parseYamlDocument(text) : parseJsonDocument(text);
    if (!parsed.ok) throw new HttpError(400, `the seed ${notADocument(parsed)}`);
    const seed = parsed.value;
    try {
      checkSeed(seed, 'in the request body');
    } catch (error) {
      throw new HttpError(400, (error as Error).message);
    }
    await host.loadSeed(seed);
    return json(200, { success: true });
  };
}

/** What every control route declares: no key, and the control pipeline. */
const CONTROL = { header: 'none', control: true } as const;

/** The HTTP control routes: no faults, not logged. */
export function controlRoutes(host: ControlHost, control: EmulatorControl): Route[] {
  const { core } = host;
  return [
    route('GET /_emulator', 'control: info', CONTROL, () => json(200, describeEmulator(core))),
    route('POST /_emulator/reset', 'control: reset', CONTROL, async () => {
      await control.reset();
      return json(200, { success: true });
    }),
    route('POST /_emulator/seed', 'control: seed', { ...CONTROL, rawBody: true, bodyLimit: 64 * 1024 * 1024, bodyTypes: SEED_BODY_TYPES }, seedHandler(host)),
    route('GET /_emulator/state', 'control: state', CONTROL, () => json(200, control.state())),
    route('GET /_emulator/requests', 'control: request log', CONTROL, ({ query }) => {
      const since = Number(query.since ?? 0);
      return json(200, { requests: core.requestLog.list(Number.isFinite(since) ? since : 0), webhooks: core.requestLog.deliveries() });
    }),
    route('DELETE /_emulator/requests', 'control: clear request log', CONTROL, () => {
      control.clearRequestLog();
      return json(200, { success: true });
    }),
    route('GET /_emulator/webhooks', 'control: webhook deliveries', CONTROL, () => json(200, { deliveries: control.webhookDeliveries() })),
    route('POST /_emulator/calls/{call_id}/end', 'control: end call', CONTROL, async ({ params, body }) => {
      const session = core.store.sessions.get(params.call_id as string);
      if (!session) return NOT_FOUND();
      const { status, options } = checkEndOptions(asObject(body));
      const result = await control.endCall(session.call_id, status, options);
      return json(200, result);
    }),
    route('POST /_emulator/traffic', 'control: synthetic traffic', CONTROL, async ({ body }) => {
      try {
        return json(200, await control.traffic(body === undefined ? {} : asObject(body)));
      } catch (error) {
        if (!(error instanceof TrafficProfileError)) throw error;
        const refused = `Invalid traffic request: ${error.problems.join('; ')}`;
        // Unknown agents come with the account's agents, for the client to suggest or list one; a shared name with its agents' ids.
        if (error instanceof TrafficAgentsUnknownError) return json(400, { detail: refused, unknown_agents: error.unknown, agents: error.agents });
        if (error instanceof TrafficAgentsAmbiguousError) return json(400, { detail: refused, ambiguous_agents: error.ambiguous });
        return detail(400, refused);
      }
    }),
    route('GET /_emulator/put-mode', 'control: PUT semantics', CONTROL, () => json(200, { mode: core.putMode })),
    route('PUT /_emulator/put-mode', 'control: PUT semantics', CONTROL, ({ body }) => {
      control.setPutMode(asObject(body).mode as PutMode);
      return json(200, { mode: core.putMode });
    }),
    route('GET /_emulator/response-style', 'control: response style', CONTROL, () => json(200, core.responseStyle)),
    route('PUT /_emulator/response-style', 'control: response style', CONTROL, ({ body }) => {
      control.setResponseStyle(asObject(body) as ResponseStyle);
      return json(200, core.responseStyle);
    }),
    route('GET /_emulator/faults', 'control: faults', CONTROL, () => json(200, core.faults.get())),
    route('PUT /_emulator/faults', 'control: faults', CONTROL, ({ body }) => {
      // The settings are checked there; refused ones are a VoxformError, answered 400 with their message.
      core.faults.set(body as FaultSettings);
      return json(200, core.faults.get());
    }),
    route('DELETE /_emulator/faults', 'control: faults', CONTROL, () => {
      control.clearFaults();
      return json(200, { rules: [] });
    }),
  ];
}
