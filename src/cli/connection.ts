import path from 'node:path';
import { createClient, resolveBaseUrl, type ApiClient, type ClientOptions } from '../api/index.js';
import { normalizeBaseUrl } from '../api/regions.js';
import { nonEmpty, operatorBaseUrl, originOf, parseTrustedOrigins, serviceVariable, trustedOrigins, untrustedBaseUrlMessage } from '../api/trusted-origins.js';
import type { RunningEmulator } from '../emulator/index.js';
import { isVoxformError, VoxformError } from '../errors.js';
import { isAgentNotFound } from '../api/errors.js';
import { cameWithCheckout } from '../project-files/git.js';
import { makeKeptFolder } from '../project-files/kept-files.js';
import { isFileSystemError } from '../util/atomic-write.js';
import { headerValueFromEnv } from '../util/env-header.js';
import type { LiveSource } from '../secrets/trusted.js';
import { registerUrlTokens } from '../secrets/url-tokens.js';
import { registerModelSecrets } from '../model/chat-model.js';
import type { CommandContext, ConnectionOptions } from './context.js';
import { emulatorLlmFromEnv } from './emulator-llm.js';
import { notePerFolderFile } from './per-folder-files.js';
import { resolveTimeoutMs } from './timeout.js';

/** A client ready to use, and where it points. */
export interface Connection {
  client: ApiClient;
  baseUrl: string;
  /** The key in use (already registered as a secret: every output line is scrubbed of it). */
  apiKey: string;
  /** Whether this is the embedded emulator (`--local`). */
  local: boolean;
  /** How the service is named in state and saved plans: its base URL, or `local` for the embedded emulator. */
  serviceId: string;
  /** Where the live agents it answers with come from: the checkout, for `--local` over a data file holding the commit's bytes. */
  liveSource: LiveSource;
}

/** What the manifests ask for: used only when the operator named neither a base URL nor a region. */
export interface ManifestService {
  baseUrl?: string | undefined;
  region?: string | undefined;
}

/** Client settings a command may add (e.g. `--parallelism` as `maxInFlight`). */
type ConnectionTuning = Pick<ClientOptions, 'maxInFlight' | 'timeoutMs' | 'retries' | 'onRequest' | 'onResponse' | 'onRetry'>;

/**
 * Where a command talks to, in order of precedence: `--local` (the embedded emulator, with its own
 * key); `--base-url`, else `VOXFORM_BASE_URL`; `--region`, else `VOXFORM_REGION`; the manifest's
 * `base_url` (only on an origin the operator trusts), else its `region`, else `us`. The operator's
 * settings beat the manifest's: a pull request writes the manifest, and the key follows the base URL.
 * Requests still in flight when the run ends are stopped, not waited for.
 */
export async function resolveConnection(
  options: ConnectionOptions & { manifest?: ManifestService; emulatorWebhooks?: LocalWebhooks; file?: readonly string[] | undefined },
  ctx: CommandContext,
  tuning: ConnectionTuning = {},
): Promise<Connection> {
  const emulator = options.local ? await startLocalEmulator(ctx, { webhooks: options.emulatorWebhooks, manifests: options.file }) : undefined;
  const { url: baseUrl, apiKey } = emulator ?? remoteService(options, ctx);
  ctx.secrets.add(apiKey);
  const client = createClient({ ...clientTuning(options, ctx, tuning, emulator === undefined), baseUrl, apiKey });
  ctx.onExit(() => client.close({ abort: true }));
  const liveSource = emulator ? await localLiveSource(ctx) : 'service';
  return { client, baseUrl: client.baseUrl, apiKey, local: emulator !== undefined, serviceId: emulator ? 'local' : client.baseUrl, liveSource };
}

/** The base URL and key of a service on the network (not `--local`). */
function remoteService(options: ConnectionOptions & { manifest?: ManifestService }, ctx: CommandContext) {
  const baseUrl = chooseBaseUrl(options, ctx.env, options.manifest);
  return { url: baseUrl, apiKey: serviceApiKey(ctx.env) };
}

/** The key the run sends: `VOXFORM_API_KEY`, or `api_key_missing` when it gives none. */
export function serviceApiKey(env: Readonly<Record<string, string | undefined>>): string {
  const apiKey = headerValueFromEnv(env, 'VOXFORM_API_KEY');
  if (apiKey === undefined) {
    throw new VoxformError('api_key_missing', `No API key: ${noApiKey(env)}.`, {
      hint: 'Set VOXFORM_API_KEY to your private key (from the service’s dashboard), or use --local for the embedded emulator.',
    });
  }
  return apiKey;
}

/**
 * Why VOXFORM_API_KEY gives no key, as a command that needs one refuses to run and `voxform status`
 * reports it. Set but empty is told apart: in CI a secret the job may not have arrives as an empty
 * variable, not a missing one.
 */
export function noApiKey(env: Readonly<Record<string, string | undefined>>): string {
  if (env.VOXFORM_API_KEY === undefined) return 'VOXFORM_API_KEY is not set';
  return 'VOXFORM_API_KEY is set but empty (a CI secret the job cannot read arrives empty: a pull request from a fork gets none, nor does a job whose secret is not defined)';
}

/**
 * The client settings every connection shares: time-out, debug lines, the creates a stop must report
 * and, from a service (`deployed`), the secrets of its answers; then the command's own.
 */
function clientTuning(options: ConnectionOptions, ctx: CommandContext, tuning: ConnectionTuning, deployed: boolean): ConnectionTuning & Pick<ClientOptions, 'debug' | 'redact' | 'onAnswer' | 'onWriteSent'> {
  const debug = ctx.env.VOXFORM_DEBUG === '1' ? (line: string) => ctx.stderr.write(`${line}\n`) : undefined;
  // Every secret of the run, as known when an error is made (the manifests register theirs as they load).
  const redact = (text: string) => ctx.secrets.redact(text);
  // A live webhook or tool URL carries its token in user info or a query value: every command hides it.
  // Not `--local`'s: the embedded emulator serves the folder's own file, which a pull request may write,
  // and no deployed secret is in it.
  const onAnswer = deployed ? (answer: unknown) => registerUrlTokens(answer, (token) => ctx.secrets.add(token)) : undefined;
  // A create cut short by Ctrl-C may have been done: the stop says so, whichever command sent it.
  const onWriteSent = (ifInterrupted: () => VoxformError) => ctx.writeSent(ifInterrupted);
  return { timeoutMs: resolveTimeoutMs(options.timeout, ctx.env), ...tuning, redact, onWriteSent, ...(onAnswer ? { onAnswer } : {}), ...(debug ? { debug } : {}) };
}

/** Whether the embedded emulator calls its agents' webhooks and tools: `none` for `voxform test` before review. */
export type LocalWebhooks = 'all' | 'none';

/** Where `--local` keeps the folder's account. */
export const LOCAL_DATA_FILE = path.join('.voxform', 'local.json');

/** The data file of `--local` for the run's folder. */
function localDataFile(ctx: CommandContext): string {
  return path.join(ctx.cwd, LOCAL_DATA_FILE);
}

/** Where the agents `--local` serves come from: the checkout when its data file holds the commit's bytes (a pull request may have written them). */
export async function localLiveSource(ctx: CommandContext): Promise<LiveSource> {
  return (await cameWithCheckout(localDataFile(ctx), ctx.env)) ? 'checkout' : 'service';
}

/**
 * The hint of an agent the embedded emulator does not have: its account is its own, made from the
 * default seed, not the user's, so the id is likely right. A seed holding the agents (and a private
 * key, which the embedded emulator needs) makes the folder's account from them.
 */
const LOCAL_AGENT_MISSING_HINT =
  `The embedded emulator (--local) is an account of its own, made from the default seed, and does not have this agent. To give it your agents, delete ${LOCAL_DATA_FILE}, run \`voxform emulator --data ${LOCAL_DATA_FILE} --seed FILE\` once and stop it: FILE lists the agents with their ids, and a private key (docs/emulator.md, Seeds). Or leave out --local to use the service.`;

/**
 * `error` of a run with --local, with LOCAL_AGENT_MISSING_HINT where it is about an agent the
 * embedded emulator does not have (a read of it not found, or a plan whose agents it lacks): every
 * command's, by one rule (run-command.ts). Any other error is returned as it is.
 */
export function withLocalAgentHint(error: unknown): unknown {
  if (isAgentNotFound(error)) return error.withHint(LOCAL_AGENT_MISSING_HINT);
  const lacksAgents = isVoxformError(error) && Array.isArray(error.details) && error.details.some((problem: { code?: unknown }) => problem?.code === 'agent_not_on_service');
  return lacksAgents ? error.withHint(LOCAL_AGENT_MISSING_HINT) : error;
}

/**
 * The embedded emulator of `--local`: in-process on a loopback port over the folder's `.voxform/local.json`
 * (the default account on first use), closed when the run ends. `manifests`: the paths named with
 * `-f`, whose folder may hold the project's account.
 */
export function startLocalEmulator(ctx: CommandContext, options: { webhooks?: LocalWebhooks | undefined; manifests?: readonly string[] | undefined } = {}): Promise<RunningEmulator> {
  // One per run and webhook setting: a command that needs its key before it connects (`apply PLAN`) connects through the same one.
  const webhooks = options.webhooks ?? 'all';
  let ofRun = localEmulators.get(ctx);
  if (!ofRun) localEmulators.set(ctx, (ofRun = new Map()));
  let started = ofRun.get(webhooks);
  if (!started) ofRun.set(webhooks, (started = embedLocalEmulator(ctx, webhooks, options.manifests ?? [])));
  return started;
}

const localEmulators = new WeakMap<CommandContext, Map<LocalWebhooks, Promise<RunningEmulator>>>();

async function embedLocalEmulator(ctx: CommandContext, webhooks: LocalWebhooks, manifests: readonly string[]): Promise<RunningEmulator> {
  const { startEmulator, dataFileUnwritable } = await import('../emulator/index.js');
  const dataFile = localDataFile(ctx);
  await notePerFolderFile(ctx, LOCAL_DATA_FILE, '--local keeps one account per folder, as the state', undefined, manifests);
  // A folder that cannot be made (a `.voxform` file in its place) is the data file's failure, said as the emulator says it.
  await makeKeptFolder(path.dirname(dataFile)).catch((error: unknown) => {
    throw withLocalDataFileHint(isFileSystemError(error) ? dataFileUnwritable(dataFile, error) : error);
  });
  const llm = emulatorLlmFromEnv({}, ctx.env);
  if (llm) registerModelSecrets(llm, (secret) => ctx.secrets.add(secret));
  // Shared: a `chat` and an `apply` run at once in this folder each embed an emulator on this file.
  const emulator = await startEmulator({ port: 0, host: '127.0.0.1', dataFile, sharedDataFile: true, webhooks, ...(llm ? { llm } : {}) }).catch((error: unknown) => {
    throw withLocalDataFileHint(error);
  });
  ctx.onExit(() => emulator.close());
  if (emulator.apiKey === '') {
    throw new VoxformError('emulator_data_invalid', `${LOCAL_DATA_FILE} holds no private key the embedded emulator accepts.`, {
      hint: 'Delete it to start again from the default account.',
    });
  }
  return emulator;
}

/**
 * The emulator's hints for a data file it cannot read or write name `--data`, its own option: `--local`
 * has none, and its file is the folder's, perhaps committed.
 */
function withLocalDataFileHint(error: unknown): unknown {
  if (!isVoxformError(error)) return error;
  const hint = LOCAL_DATA_FILE_HINTS[error.code];
  return hint === undefined ? error : error.withHint(hint);
}

const RESTORE_LOCAL_DATA_FILE = `Restore ${LOCAL_DATA_FILE} from git (\`git checkout -- ${LOCAL_DATA_FILE}\`) if it was committed, or delete it to start again from the default seed.`;

const LOCAL_DATA_FILE_HINTS: Readonly<Record<string, string>> = {
  emulator_data_invalid: RESTORE_LOCAL_DATA_FILE,
  emulator_data_unreadable: RESTORE_LOCAL_DATA_FILE,
  emulator_data_unwritable: `--local keeps its account in ${LOCAL_DATA_FILE}: make ${path.dirname(LOCAL_DATA_FILE)} in this folder a folder you may write (move away a file of that name, \`git rm ${path.dirname(LOCAL_DATA_FILE)}\` if it is committed), or run voxform from another folder.`,
};

/** The base URL or region the operator named, or undefined when the manifests decide. */
export function operatorService(options: ConnectionOptions, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const named = operatorBaseUrl(options.baseUrl, env);
  if (named !== undefined) return named;
  const region = nonEmpty(options.region) ?? serviceVariable(env, 'VOXFORM_REGION', 'region_invalid')?.toLowerCase();
  return region === undefined ? undefined : resolveBaseUrl({ region });
}

/**
 * The base URL requests (and the key) go to. The manifest's `base_url`, checked when loaded, is checked
 * again: a desired state built some other way cannot send the key to an untrusted origin either.
 */
export function chooseBaseUrl(options: ConnectionOptions, env: Readonly<Record<string, string | undefined>>, manifest: ManifestService = {}): string {
  // Checked whether a manifest needs it or not, so that an operator's typo is found on the first run.
  parseTrustedOrigins(env.VOXFORM_TRUSTED_ORIGINS);
  const chosen = operatorService(options, env);
  if (chosen !== undefined) return chosen;
  const manifestBaseUrl = nonEmpty(manifest.baseUrl);
  if (manifestBaseUrl !== undefined) {
    const origin = originOf(manifestBaseUrl, "The manifest's base_url");
    if (!trustedOrigins({ env }).has(origin)) {
      const { message, hint } = untrustedBaseUrlMessage(origin);
      throw new VoxformError('base_url_untrusted', `The manifest's ${message}; nothing was sent.`, { hint: `${hint.charAt(0).toUpperCase()}${hint.slice(1)}.` });
    }
    return normalizeBaseUrl(manifestBaseUrl, "The manifest's base_url");
  }
  return resolveBaseUrl({ region: nonEmpty(manifest.region) });
}
