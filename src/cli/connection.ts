import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { createClient, resolveBaseUrl, type ApiClient, type ClientOptions } from '../api/index.js';
import { normalizeBaseUrl } from '../api/regions.js';
import { nonEmpty, originOf, trustedOrigins, untrustedBaseUrlMessage } from '../api/trusted-origins.js';
import type { RunningEmulator } from '../emulator/index.js';
import { VoxformError } from '../errors.js';
import type { CommandContext, ConnectionOptions } from './context.js';
import { emulatorLlmFromEnv } from './emulator-llm.js';
import { resolveTimeoutMs } from './timeout.js';

/** A client ready to use, and where it points. */
export interface Connection {
  client: ApiClient;
  baseUrl: string;
  /** The key in use (already registered as a secret: every output line is scrubbed of it). */
  apiKey: string;
  /** Whether this is the embedded emulator (`--local`). */
  local: boolean;
}

/** What the manifests ask for: used only when the operator named neither a base URL nor a region. */
export interface ManifestService {
  baseUrl?: string | undefined;
  region?: string | undefined;
}

/** Client settings a command may add (e.g. `--parallelism` as `maxInFlight`). */
export type ConnectionTuning = Pick<ClientOptions, 'maxInFlight' | 'timeoutMs' | 'retries' | 'onRequest' | 'onResponse' | 'onRetry'>;

/**
 * Where a command talks to, in order of precedence:
 * 1. `--local`: the embedded emulator, started in-process on a loopback port with its data in
 *    `.voxform/local.json` (seeded with the default account on first use), closed when the run ends;
 *    its own key is used. Every command of the folder shares that file safely (docs/emulator.md,
 *    "One project database").
 * 2. `--base-url`, else `VOXFORM_BASE_URL`.
 * 3. `--region`, else `VOXFORM_REGION`.
 * 4. The manifest's `base_url` (only on an origin the operator trusts), else its `region`, else `us`.
 * The operator's settings (flags, environment) always beat the manifest's: a manifest is written by
 * whoever opened the pull request, and the key follows the base URL.
 * The key comes from `VOXFORM_API_KEY`; the time-out from `--timeout`, else `VOXFORM_TIMEOUT`.
 * `VOXFORM_DEBUG=1` writes one line per request to stderr, with the key redacted. When the run
 * ends — or is interrupted — requests still in flight are stopped, not waited for.
 */
export async function resolveConnection(
  options: ConnectionOptions & { manifest?: ManifestService; emulatorWebhooks?: LocalWebhooks },
  ctx: CommandContext,
  tuning: ConnectionTuning = {},
): Promise<Connection> {
  if (!options.local) return connectRemote(options, ctx, tuning);
  const emulator = await startLocalEmulator(ctx, { webhooks: options.emulatorWebhooks });
  ctx.secrets.add(emulator.apiKey);
  const client = createClient({ ...clientTuning(options, ctx, tuning), baseUrl: emulator.url, apiKey: emulator.apiKey });
  ctx.onExit(() => client.close({ abort: true }));
  return { client, baseUrl: client.baseUrl, apiKey: emulator.apiKey, local: true };
}

/** `resolveConnection` for a service on the network (not `--local`). */
function connectRemote(options: ConnectionOptions & { manifest?: ManifestService }, ctx: CommandContext, tuning: ConnectionTuning = {}): Connection {
  const baseUrl = chooseBaseUrl(options, ctx.env, options.manifest);
  const apiKey = ctx.env.VOXFORM_API_KEY?.trim() ?? '';
  if (apiKey === '') {
    throw new VoxformError(
      'api_key_missing',
      'No API key: set VOXFORM_API_KEY to your private key (from the service’s dashboard), or use --local for the embedded emulator.',
    );
  }
  ctx.secrets.add(apiKey);
  const client = createClient({ ...clientTuning(options, ctx, tuning), baseUrl, apiKey });
  ctx.onExit(() => client.close({ abort: true }));
  return { client, baseUrl, apiKey, local: false };
}

/** The client settings every connection shares: time-out and debug lines, then the command's own. */
function clientTuning(options: ConnectionOptions, ctx: CommandContext, tuning: ConnectionTuning): ConnectionTuning & Pick<ClientOptions, 'debug' | 'redact'> {
  const debug = ctx.env.VOXFORM_DEBUG === '1' ? (line: string) => ctx.stderr.write(`${line}\n`) : undefined;
  // Every secret of the run, as known when an error is made (the manifests register theirs as they load).
  const redact = (text: string) => ctx.secrets.redact(text);
  return { timeoutMs: resolveTimeoutMs(options.timeout, ctx.env), ...tuning, redact, ...(debug ? { debug } : {}) };
}

/**
 * Whether the embedded emulator delivers the webhooks and calls the tools its agents name: `all`
 * (the default), or `none` — `voxform test` before review, where those URLs are the pull request's.
 */
export type LocalWebhooks = 'all' | 'none';

/** Where `--local` keeps the folder's account. */
export const LOCAL_DATA_FILE = path.join('.voxform', 'local.json');

/**
 * The embedded emulator of `--local`: started in-process on a loopback port over the folder's
 * `.voxform/local.json` (seeded with the default account on first use), shared safely with every
 * other `--local` command of the folder, closed when the run ends. Refuses a data file without a
 * usable private key.
 */
export async function startLocalEmulator(ctx: CommandContext, options: { webhooks?: LocalWebhooks | undefined } = {}): Promise<RunningEmulator> {
  const { startEmulator } = await import('../emulator/index.js');
  const dataFile = path.join(ctx.cwd, LOCAL_DATA_FILE);
  await mkdir(path.dirname(dataFile), { recursive: true });
  const llm = emulatorLlmFromEnv({}, ctx.env);
  ctx.secrets.add(llm?.apiKey);
  // Shared: a `chat` and an `apply` run at once in this folder each embed an emulator on this file.
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', dataFile, sharedDataFile: true, webhooks: options.webhooks ?? 'all', ...(llm ? { llm } : {}) });
  ctx.onExit(() => emulator.close());
  if (emulator.apiKey === '') {
    throw new VoxformError('emulator_data_invalid', `${LOCAL_DATA_FILE} holds no private key the embedded emulator accepts.`, {
      hint: 'Delete it to start again from the default account.',
    });
  }
  return emulator;
}

/**
 * The base URL the operator named (steps 2 and 3 above), or undefined when the manifests decide.
 */
function operatorBaseUrl(options: ConnectionOptions, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const named = nonEmpty(options.baseUrl) ?? nonEmpty(env.VOXFORM_BASE_URL);
  if (named !== undefined) return normalizeBaseUrl(named);
  const region = nonEmpty(options.region) ?? nonEmpty(env.VOXFORM_REGION)?.toLowerCase();
  return region === undefined ? undefined : resolveBaseUrl({ region });
}

/**
 * The base URL requests (and the key) go to, by the precedence above. The manifest's `base_url` was
 * checked when it was loaded; it is checked again here, so a desired state built some other way
 * cannot send the key to an origin the operator did not name either.
 */
export function chooseBaseUrl(options: ConnectionOptions, env: Readonly<Record<string, string | undefined>>, manifest: ManifestService = {}): string {
  const chosen = operatorBaseUrl(options, env);
  if (chosen !== undefined) return chosen;
  const manifestBaseUrl = nonEmpty(manifest.baseUrl);
  if (manifestBaseUrl !== undefined) {
    const origin = originOf(manifestBaseUrl);
    if (!trustedOrigins({ env }).has(origin)) {
      const { message, hint } = untrustedBaseUrlMessage(origin);
      throw new VoxformError('base_url_untrusted', `The manifest's ${message}; nothing was sent.`, { hint: `${hint.charAt(0).toUpperCase()}${hint.slice(1)}.` });
    }
    return normalizeBaseUrl(manifestBaseUrl);
  }
  return resolveBaseUrl({ region: nonEmpty(manifest.region) });
}
