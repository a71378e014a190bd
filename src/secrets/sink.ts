/**
 * Where a configuration under test may make the service call. `voxform test --against desired`
 * runs before review, and the service (or emulator) calls the webhooks and tools its config names,
 * sending the end-of-call payload with the whole config, metadata and transcript. So a URL the pull
 * request introduces (one the live agent does not already call) is replaced by `SINK_URL` for the
 * run, unless the operator passes `--with-secrets`: the run reaches only hosts the reviewed, live
 * configuration names. URLs the live agent has keep working, so tests of reviewed tools still run.
 */
import { formatDotted, valueAtPath, type FieldPath } from '../util/field-path.js';
import { isPlainObject } from '../util/json-object.js';

/**
 * A URL no service can deliver to: the `.invalid` top-level domain is reserved never to resolve
 * (RFC 6761), on any network, so no loopback listener, DNS record or proxy can receive what is sent
 * there. A loopback address voxform served would be the service's own loopback, not voxform's.
 */
export const SINK_URL = 'https://sink.voxform.invalid/';

/** The schemes of URLs a service calls. */
const CALLABLE_SCHEMES = new Set(['http:', 'https:', 'ws:', 'wss:']);

/**
 * Whether a URL parser, as a service reads a webhook with one, takes the text for a URL it can call:
 * so a leading space, a tab inside it or `https:/host` does not slip past the sink.
 */
function isCallableUrl(text: string): boolean {
  return URL.canParse(text) && CALLABLE_SCHEMES.has(new URL(text).protocol);
}

interface SinkedConfig<T> {
  config: T;
  /** The dotted places whose URL was replaced by `SINK_URL` (`session_data_webhook.url`, `tools.0.webhook`). */
  replaced: string[];
}

/**
 * A copy of `sent` — the config as it leaves voxform, its secrets already withheld — where every URL
 * is `SINK_URL` unless `resolved` (the same config before withholding, as apply would send it) holds,
 * at the same place, a URL the live config holds, and `sent` still names that URL's origin; `sent`
 * is left as it is. It must be the last step: withholding rebuilds a `${env:…}` value from the
 * manifest's text, which would undo a sink put in before it.
 */
export function sinkNewTargets<T extends object>(sent: T, resolved: unknown, liveConfig: Record<string, unknown>): SinkedConfig<T> {
  const known = new Set<string>();
  walk(liveConfig, [], (text) => {
    if (isCallableUrl(text)) known.add(text);
    return text;
  });
  const replaced: string[] = [];
  const out = walk(sent, [], (text, at) => {
    if (!isCallableUrl(text)) return text;
    const before = valueAtPath(resolved, at);
    if (typeof before === 'string' && known.has(before) && sameOrigin(text, before)) return text;
    replaced.push(formatDotted(at));
    return SINK_URL;
  }) as T;
  return { config: out, replaced };
}

/** Whether two URLs name the same scheme, host and port: withholding may rewrite a host written with `${env:…}`. */
function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

function walk(value: unknown, at: FieldPath, onString: (text: string, at: FieldPath) => string): unknown {
  if (typeof value === 'string') return onString(value, at);
  if (Array.isArray(value)) return value.map((item, index) => walk(item, [...at, index], onString));
  if (!isPlainObject(value)) return value;
  // fromEntries defines own keys: a `__proto__` key stays data.
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, walk(child, [...at, key], onString)]));
}
