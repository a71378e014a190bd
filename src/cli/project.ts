/**
 * What `plan` and `apply` share before they differ: the manifests loaded (diagnostics printed, every
 * secret registered for redaction), the service connected, and the state backend's workspace named.
 */
import path from 'node:path';
import { VoxformError } from '../errors.js';
import type { DesiredState } from '../manifest/types.js';
import type { AcquireOptions, HeldLock, StateBackend } from '../state/backend.js';
import { openStateBackend } from '../state/open.js';
import { workspaceKey } from '../state/types.js';
import { TrustedSecrets } from '../secrets/trusted.js';
import { fingerprintKey } from '../util/hash.js';
import { detectDeploySource } from '../history/source.js';
import type { DeploySource } from '../history/types.js';
import { WireThread } from '../api/wire-thread-link.js';
import { countProblems, formatDiagnostics } from './diagnostics.js';
import { loadCommandManifests, type EarlyReads } from './load-manifests.js';
import type { CommandContext } from './context.js';
import type { Connection, LocalWebhooks, ManifestService } from './connection.js';
import { ReadAhead } from '../plan/read-ahead.js';
import type { LiveReader } from '../plan/read-live.js';

export interface ProjectOptions {
  file?: string[];
  env?: string;
  baseUrl?: string;
  region?: string;
  local?: boolean;
  timeout?: string;
  state?: string;
  parallelism?: number;
}

export async function loadDesiredState(options: ProjectOptions, ctx: CommandContext, early: EarlyReads = {}): Promise<DesiredState> {
  const result = await loadCommandManifests(options, ctx, early);
  const { errors } = countProblems(result.diagnostics, result.omitted);
  if (result.diagnostics.length > 0) ctx.stderr.write(formatDiagnostics(result.diagnostics, { color: ctx.color, omitted: result.omitted }));
  if (errors > 0 || !result.state) {
    throw new VoxformError('manifest_invalid', `The manifests have ${errors.toLocaleString('en-US')} error${errors === 1 ? '' : 's'} (listed above); nothing was planned.`, {
      hint: 'Fix them and run again (`voxform validate` checks without contacting the service).',
    });
  }
  return result.state;
}

export interface ConnectedProject {
  desired: DesiredState;
  connection: Connection;
  /** How the service is named in state and saved plans: its base URL, or `local` for the embedded emulator. */
  serviceId: string;
  /** Where state, lock and history are kept: closed when the run ends. */
  backend: StateBackend;
  workspaceKey: string;
  /** Where a plan reads the live state: the reads started while the manifests loaded (`readAhead`), then the client. */
  reader: LiveReader;
  /** The workspace's lock, when `lockFirst` took it so the reads could start early (released at exit). */
  lock: HeldLock | undefined;
}

/** The service of a read started before the manifests name theirs: the operator's (flags or environment), which beats it. */
const OPERATOR_NAMED = { baseUrl: undefined, region: undefined } as const;

/** The connection module, loaded when needed: the HTTP client is most of start-up, and loading manifests alone does not need it. */
function loadConnectionModule(): Promise<typeof import('./connection.js')> {
  return import('./connection.js');
}

/**
 * The connection settings of a project command: the operator's flags, the manifests' service,
 * `--parallelism`, and whether the wire gets a thread of its own (`plan`, `apply` and `rollback`,
 * whose hundreds of requests must not wait for their loading and comparing; a command of a few
 * requests would only pay for the thread's start-up).
 */
function connectionRequest(options: ProjectOptions, manifest: ManifestService, wireThread: boolean, emulatorWebhooks?: LocalWebhooks) {
  return [
    { baseUrl: options.baseUrl, region: options.region, local: options.local, timeout: options.timeout, manifest: { baseUrl: manifest.baseUrl, region: manifest.region }, emulatorWebhooks },
    // Requests in flight follow --parallelism, so commands load the service as the user asked.
    { maxInFlight: options.parallelism ?? 8, wireThread },
  ] as const;
}

/**
 * The service the manifests' project talks to. The manifest's base_url and region count only where
 * the operator set neither (connection.ts): every command that loads manifests connects through here.
 */
export async function connectService(
  options: ProjectOptions,
  manifest: ManifestService,
  ctx: CommandContext,
  how: { wireThread?: boolean; emulatorWebhooks?: LocalWebhooks } = {},
): Promise<Connection> {
  const { resolveConnection } = await loadConnectionModule();
  const [connection, tuning] = connectionRequest(options, manifest, how.wireThread ?? false, how.emulatorWebhooks);
  return resolveConnection(connection, ctx, tuning);
}

/**
 * The manifests loaded and the service connected. With `readAhead`, the service is connected the
 * moment the loader knows which one the manifests name, and the agents they name are read from then
 * on, while the rest of the loading goes on: the plan takes those answers from `reader`.
 *
 * With `lockFirst` as well (an apply, which may read only under the workspace's lock), the reads
 * start early only where the operator named the service (flags or environment): its workspace is
 * then known before any manifest is read, the lock is taken before the manifests are read, and the
 * reads start as soon as the agents are known. Otherwise nothing is read here, and apply takes the
 * lock itself.
 */
export async function connectProject(
  options: ProjectOptions,
  ctx: CommandContext,
  how: { readAhead?: boolean; lockFirst?: AcquireOptions } = {},
): Promise<ConnectedProject> {
  // The client's wire thread boots on another core while the manifests load (src/api/wire-thread.ts).
  WireThread.prestart();
  // Opened first, so a database backend connects while the manifests load.
  const opening = openOperatorBackend(options, ctx).then((opened) => (opened.prewarm?.(), opened));
  opening.catch(() => undefined);
  // Loaded before the manifests, so a connection can be made the moment they name the service
  // (it is needed after them anyway: loading it first costs nothing).
  const { connectRemote, operatorBaseUrl } = await loadConnectionModule();
  const locking = how.readAhead && how.lockFirst ? lockAhead(options, ctx, opening, operatorBaseUrl(options, ctx.env), how.lockFirst) : undefined;
  // Held before the manifests are read, not beside it: the lock's few file or database steps each
  // need the event loop, which parsing and resolving a large manifest hold for hundreds of
  // milliseconds, and the reads wait for the lock (5,000 agents: 0.4 s). A lock held by another run
  // stops this one here, before anything is loaded.
  if (locking) await locking;
  let early: Connection | undefined;
  let readAhead: ReadAhead | undefined;
  // The manifests' secrets are not all known yet (each is registered as the loader meets it), so
  // nothing of these reads is printed before the load has ended: ReadAhead holds each answer and
  // each failure until the plan takes it, and a request's own lines (VOXFORM_DEBUG) show the
  // method, the service's URL and an id written as plain text, with the key redacted.
  // Only where connecting waits for nothing (not `--local`, whose emulator starts asynchronously),
  // and only if it succeeds: otherwise the connection is made, and fails, after loading as ever.
  // Started inside the loader's synchronous work: the lock (if any) is held already.
  let refused = false;
  const readerFor = (service: ManifestService): ReadAhead | undefined => {
    if (readAhead || refused || options.local || (how.lockFirst && !locking)) return readAhead;
    try {
      const [connection, tuning] = connectionRequest(options, service, true);
      early = connectRemote(connection, ctx, tuning);
    } catch {
      refused = true;
      return undefined;
    }
    readAhead = new ReadAhead(early.client);
    return readAhead;
  };
  const reads: EarlyReads = {
    onReadTargets: (targets) => readerFor(targets.service)?.start(targets),
    // The ids the parser meets start reading at once only where the operator named the service:
    // the manifests cannot move it then, so the connection made now is the one the targets name.
    // (Where they decide it, their settings are known only with the targets.)
    onAgentIdParsed: operatorBaseUrl(options, ctx.env) === undefined ? undefined : (id) => readerFor(OPERATOR_NAMED)?.start({ agentIds: [id], phones: false, service: OPERATOR_NAMED }),
  };
  const desired = await loadDesiredState(options, ctx, how.readAhead ? reads : {});
  // The loader named the same service early as in `desired` (both come from the same settings).
  const connection = early ?? (await connectService(options, desired, ctx, { wireThread: true }));
  const serviceId = connection.local ? 'local' : connection.baseUrl;
  const backend = await opening;
  const lock = await locking;
  const key = workspaceKey(desired.environment, serviceId);
  return { desired, connection, serviceId, backend, workspaceKey: key, reader: readAhead ?? connection.client, lock };
}

/**
 * The workspace's lock, taken before the manifests are read, where the operator named the service
 * (`baseUrl`; `--env` names the rest of the workspace); undefined otherwise. Released at exit.
 */
function lockAhead(
  options: ProjectOptions,
  ctx: CommandContext,
  opening: Promise<StateBackend>,
  baseUrl: string | undefined,
  lockOptions: AcquireOptions,
): Promise<HeldLock> | undefined {
  if (options.local || baseUrl === undefined) return undefined;
  // Ctrl-C while another run holds the lock ends the wait, and the exit waits for the wait to end,
  // so that nothing of this run's attempt (the file lock's staging folder) is left behind.
  const stopWaiting = new AbortController();
  const locking = opening.then((backend) => backend.acquireLock(workspaceKey(options.env, baseUrl), { ...lockOptions, signal: stopWaiting.signal }));
  ctx.onExit(async () => {
    stopWaiting.abort();
    await locking.catch(() => undefined);
  });
  locking.then((lock) => ctx.onExit(() => lock.release()), () => undefined);
  return locking;
}

/** The state backend of `--state` or `VOXFORM_STATE` (its password registered for redaction), closed at exit. */
export async function openOperatorBackend(options: { state?: string | undefined }, ctx: CommandContext): Promise<StateBackend> {
  const backend = await openStateBackend({ state: options.state, env: ctx.env, cwd: ctx.cwd, registerSecret: (value) => ctx.secrets.add(value) });
  ctx.onExit(() => backend.close());
  return backend;
}

/** Manifest files as the user would name them (relative to the working directory). */
function displayFiles(desired: DesiredState, cwd: string): string[] {
  return desired.files.map((file) => path.relative(cwd, file) || file);
}

/** What the library's `plan` and `apply` both take about the project: one place builds it for both commands. */
export function planInputs(project: ConnectedProject, ctx: CommandContext) {
  return {
    desired: project.desired,
    client: project.connection.client,
    backend: project.backend,
    serviceId: project.serviceId,
    fingerprintKey: fingerprintKey(project.connection.apiKey),
    files: displayFiles(project.desired, ctx.cwd),
    // What `${env:…}` put on the service stays secret whatever the manifests and the state file now say.
    secrets: new TrustedSecrets(ctx.env, ctx.secrets),
  };
}

/** Where this run's change comes from: the CI's commit, else git's, in the folder of the first manifest. */
export function deploySourceOf(desired: DesiredState, ctx: CommandContext, options: { workTree?: boolean } = {}): Promise<DeploySource> {
  const first = desired.files[0];
  return detectDeploySource({ env: ctx.env, cwd: first ? path.dirname(first) : ctx.cwd, ...options });
}
