/** `voxform status`: the service, whether it accepts the key (one cheap read), and what the state says. */
import { isApiError, type ApiClient } from '../api/index.js';
import { REGION_BASE_URLS } from '../api/regions.js';
import { nonEmpty } from '../api/trusted-origins.js';
import { isVoxformError } from '../errors.js';
import type { ForcedOpen, LockHolder, StateBackend } from '../state/backend.js';
import type { LastApply } from '../state/types.js';
import { missingStateJson, readCheckedWorkspace, type MissingStateJson } from '../state/missing-state.js';
import type { VersionAndFormats } from './versions.js';

/** Bumped when a field of the JSON report changes meaning or goes away (new fields do not bump it). */
export const STATUS_FORMAT_VERSION = 2;

/** Where the service choice came from, in the order the choice is made (README.md, "Connection"). */
type ServiceSource = '--local' | '--base-url' | 'VOXFORM_BASE_URL' | '--region' | 'VOXFORM_REGION' | 'manifest base_url' | 'manifest region' | 'default';

/**
 * - `private`: accepted for management (plan, apply, export).
 * - `public`: known to the service but refused for management (it only starts sessions).
 * - `invalid`: refused as unknown, wrong or revoked.
 * - `missing`: `VOXFORM_API_KEY` is unset or empty (`problem` says which); nothing was sent.
 * - `unchecked`: the service did not answer (`problem` says why).
 */
export type KeyType = 'private' | 'public' | 'invalid' | 'missing' | 'unchecked';

export interface StatusReport {
  format_version: typeof STATUS_FORMAT_VERSION;
  service: {
    /** The base URL, or `local` for the embedded emulator. */
    id: string;
    base_url: string;
    /** The regional gateway the base URL is, or null for any other URL (a proxy, an emulator). */
    region: 'us' | 'eu' | null;
    source: ServiceSource;
  };
  key: { type: KeyType; problem?: string };
  manifest: { environment: string | null; problem?: string };
  state: {
    /** Where the state is kept: the file's path, or the database URL without its password. */
    file: string;
    backend: 'file' | 'postgres';
    /** Whether the state holds anything: a workspace of any environment or service (false: nothing was applied with it yet); null when it could not be read. */
    exists: boolean | null;
    /** Whether it holds `workspace`; null when the state could not be read. */
    workspace_exists: boolean | null;
    /** When it does not hold `workspace`: the workspaces it holds (another `--env` or service may be meant). */
    other_workspaces?: string[];
    /** The file's serial (every workspace's); in a database, the workspace's (0 when it does not hold it); null when the state could not be read. */
    serial: number | null;
    /** The workspace this folder's plans and applies use: `ENV@SERVICE`. */
    workspace: string;
    /** Why the state file could not be read, when it could not. */
    problem?: string;
  };
  /** `held: null`: the lock could not be read (the state is not reachable), so whether it is held is not known. */
  lock: { held: false } | { held: null } | ({ held: true } & LockHolder);
  /** The last `voxform state unlock --force` of the workspace's lock (the file backend: of the state file's lock); null when none was recorded or the state could not be read. */
  last_forced_open: ForcedOpen | null;
  last_apply: LastApply | null;
  /**
   * Set when the state holds nothing of the workspace though its history records applies of it (the
   * state was lost: docs/state.md): plan counts what is on the service as never applied, and apply refuses.
   */
  missing_state?: MissingStateJson;
  /** This voxform: its version and the formats it reads and writes (a team on mixed versions compares them). */
  voxform: VersionAndFormats;
}

/** Which service a run would use, and why (mirrors `chooseBaseUrl` of src/cli/connection.ts). */
export function serviceSourceOf(
  options: { local?: boolean | undefined; baseUrl?: string | undefined; region?: string | undefined },
  env: Readonly<Record<string, string | undefined>>,
  manifest: { baseUrl?: string | undefined; region?: string | undefined },
): ServiceSource {
  if (options.local) return '--local';
  if (nonEmpty(options.baseUrl) !== undefined) return '--base-url';
  if (nonEmpty(env.VOXFORM_BASE_URL) !== undefined) return 'VOXFORM_BASE_URL';
  if (nonEmpty(options.region) !== undefined) return '--region';
  if (nonEmpty(env.VOXFORM_REGION) !== undefined) return 'VOXFORM_REGION';
  if (nonEmpty(manifest.baseUrl) !== undefined) return 'manifest base_url';
  if (nonEmpty(manifest.region) !== undefined) return 'manifest region';
  return 'default';
}

/** The region whose gateway `baseUrl` is, or null. */
export function regionOf(baseUrl: string): 'us' | 'eu' | null {
  for (const [region, url] of Object.entries(REGION_BASE_URLS)) if (url === baseUrl) return region as 'us' | 'eu';
  return null;
}

/**
 * The key's type from one read that needs a private key: 200 private, 403 public, 401 (or a 422 on the
 * header) invalid; any other failure leaves it unchecked, with the client's (redacted) sentence.
 */
export async function probeKey(client: ApiClient): Promise<StatusReport['key']> {
  try {
    await client.listPhones();
    return { type: 'private' };
  } catch (error) {
    if (isApiError(error) && error.status === 403) return { type: 'public', problem: 'a public key only starts sessions; plan and apply need a private key' };
    const refusedHeader = isApiError(error) && error.status === 422 && error.issues.some((issue) => issue.loc[0] === 'header');
    if (refusedHeader || (isApiError(error) && error.status === 401)) return { type: 'invalid', problem: 'the service does not know this key (wrong, revoked, or of another region)' };
    if (isVoxformError(error)) return { type: 'unchecked', problem: error.message };
    throw error;
  }
}

/** The state backend's part of the report: serial, the workspace's last apply, and the lock holder. */
export async function readStateStatus(
  backend: StateBackend,
  workspace: string,
): Promise<Pick<StatusReport, 'lock' | 'last_forced_open' | 'last_apply' | 'missing_state'> & { state: Omit<StatusReport['state'], 'file' | 'workspace' | 'backend'> }> {
  const holder = await backend.readLock(workspace).catch(() => null);
  const lock: StatusReport['lock'] = holder === null ? { held: null } : holder ? { held: true, ...holder } : { held: false };
  const last_forced_open = (await backend.readLastForcedOpen(workspace).catch(() => undefined)) ?? null;
  try {
    const stored = await readCheckedWorkspace(backend, workspace);
    if (stored.exists) return { lock, last_forced_open, state: { exists: true, workspace_exists: true, serial: stored.serial }, last_apply: stored.workspace.lastApply ?? null };
    const others = (await backend.listWorkspaces()).map((summary) => summary.key).filter((key) => key !== workspace);
    // A file written once keeps its serial when `state rm` took its last workspace: it is there, and empty.
    const exists = others.length > 0 || (backend.kind === 'file' && stored.serial > 0);
    const state = { exists, workspace_exists: false, ...(others.length > 0 ? { other_workspaces: others.sort() } : {}), serial: stored.serial };
    const missing = stored.missingState ? { missing_state: missingStateJson(stored.missingState) } : {};
    return { lock, last_forced_open, state, last_apply: null, ...missing };
  } catch (error) {
    if (!isVoxformError(error)) throw error;
    // Nothing is known of a state that could not be read: not "there, and empty".
    return { lock, last_forced_open, state: { exists: null, workspace_exists: null, serial: null, problem: error.message }, last_apply: null };
  }
}

/** Whether plan and apply could run: a private key the service accepted, and a readable state that did not lose the workspace (apply refuses then). */
export function isReady(report: StatusReport): boolean {
  return report.key.type === 'private' && report.state.problem === undefined && report.missing_state === undefined;
}
