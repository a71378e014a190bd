/** What `plan` and `apply` share: the manifests loaded, the service connected, the state's workspace named. */
import path from 'node:path';
import type { DesiredState, Diagnostic } from '../manifest/types.js';
import type { StateBackend } from '../state/backend.js';
import { chosenState, DEFAULT_STATE_FILE, stateSpec } from '../state/choice.js';
import { openStateBackend, stateFileOf } from '../state/open.js';
import type { OwnFiles } from '../project-files/own-files.js';
import { notePerFolderFile } from './per-folder-files.js';
import { envChoices, nextCommand } from './next-command.js';
import { workspaceKey } from '../state/types.js';
import { TrustedSecrets } from '../secrets/trusted.js';
import { readTrustedSecrets } from '../state/trusted-secrets.js';
import { fingerprintKey } from '../util/hash.js';
import { detectDeploySource } from '../history/source.js';
import type { DeploySource } from '../history/types.js';
import { countProblems, formatDiagnostics } from './diagnostics.js';
import { idsOnlyInEnvironments, loadCommandManifests, type ManifestOptions } from './load-manifests.js';
import type { ProjectManifests } from '../manifest/index.js';
import { ListedProblemsError } from './error-text.js';
import type { CommandContext, ConnectionOptions } from './context.js';
import type { Connection, LocalWebhooks, ManifestService } from './connection.js';
import { plural } from '../util/plural.js';

export interface ProjectOptions extends ConnectionOptions {
  file?: string[];
  env?: string;
  /** The flag that named `env` (see `ManifestOptions`). */
  envFlag?: string | false;
  state?: string;
  parallelism?: number;
  /** `--take-over ADDRESS`: resources the plan may take from another environment of the same service. */
  takeOver?: string[];
}

/** How `loadDesiredState` loads, beyond the command's options. */
interface DesiredStateLoad {
  /** What did not happen when the manifests have errors (default: nothing was planned). */
  outcome?: string | undefined;
  /**
   * Where the manifests' warnings go, for a command whose JSON carries them (docs/errors.md: no
   * text frames in JSON); without it they are listed on stderr.
   */
  warnings?: Diagnostic[] | undefined;
  /** The project already read, for a command that resolves two environments of it from one read (diff, promote). */
  project?: ProjectManifests | undefined;
  /**
   * The warnings an earlier load of this run listed (by code and message), for a command that loads
   * two environments (diff, promote): one it said already is not said again, as each variable's
   * `env_value_short` is said once a run. The load adds what it lists.
   */
  listedWarnings?: Set<string> | undefined;
}

/** The manifests as the command's plan starts from; errors stop it, saying what did not happen. */
export async function loadDesiredState(options: ProjectOptions & ManifestOptions, ctx: CommandContext, load: DesiredStateLoad = {}): Promise<DesiredState> {
  const { outcome = 'nothing was planned', warnings } = load;
  const result = await loadCommandManifests(options, ctx, load.project);
  const { errors } = countProblems(result.diagnostics, result.omitted);
  if (errors === 0 && result.state) {
    const listed = load.listedWarnings;
    const fresh = listed === undefined ? result.diagnostics : result.diagnostics.filter((warning) => !listed.has(`${warning.code} ${warning.message}`));
    for (const warning of fresh) listed?.add(`${warning.code} ${warning.message}`);
    if (warnings) warnings.push(...fresh);
    else if (fresh.length > 0) ctx.stderr.write(formatDiagnostics(fresh, { color: ctx.color, omitted: result.omitted }));
    return result.state;
  }
  const listing = result.diagnostics.length > 0 ? formatDiagnostics(result.diagnostics, { color: ctx.color, omitted: result.omitted }) : '';
  // Ids each environment gives: the manifests are used with --env, and this run named none.
  const environments = idsOnlyInEnvironments(result) ? (result.environments ?? []) : [];
  throw new ListedProblemsError('manifest_invalid', { found: `The manifests have ${plural(errors, 'error')}`, outcome }, {
    hint:
      environments.length > 0
        ? `The ids are the environments' own: run again with ${envChoices(environments)} (docs/promotion.md).`
        : // validate takes the manifests and environment only (no service); an environment no flag named (a saved plan's) is not one to type.
          `Fix them and run again (\`${nextCommand('validate', { file: options.file, env: options.envFlag === false ? undefined : options.env })}\` checks without contacting the service).`,
    listedIn: 'diagnostics',
    problems: result.diagnostics,
    listing,
    details: { omitted: result.omitted.errors + result.omitted.warnings },
  });
}

export interface ConnectedProject {
  desired: DesiredState;
  connection: Connection;
  /** Where state, lock and history are kept: closed when the run ends. */
  backend: StateBackend;
  workspaceKey: string;
  /** `--take-over`: see `PlanOptions.takeOver`. */
  takeOver: string[];
}

/** The service the manifests' project talks to, with --parallelism requests in flight. */
export async function connectService(
  options: ProjectOptions,
  manifest: ManifestService,
  ctx: CommandContext,
  how: { emulatorWebhooks?: LocalWebhooks } = {},
): Promise<Connection> {
  // Loaded when needed: the HTTP client is most of start-up, and loading manifests alone does not need it.
  const { resolveConnection } = await import('./connection.js');
  return resolveConnection(
    { baseUrl: options.baseUrl, region: options.region, local: options.local, timeout: options.timeout, manifest: { baseUrl: manifest.baseUrl, region: manifest.region }, emulatorWebhooks: how.emulatorWebhooks, file: options.file },
    ctx,
    { maxInFlight: options.parallelism ?? 8 },
  );
}

/**
 * The first steps of every command that plans, in this order: the operator's state backend opened (its
 * password registered before anything is printed), every manifest loaded and checked, then the service
 * connected: no request is made before the manifests have loaded in full (docs/security.md, §1).
 * `load`: as `loadDesiredState` takes it.
 */
export async function connectProject(options: ProjectOptions & ManifestOptions, ctx: CommandContext, load: DesiredStateLoad = {}): Promise<ConnectedProject> {
  const backend = await openOperatorBackend(options, ctx, { note: 'later' });
  const desired = await loadDesiredState(options, ctx, load);
  await notePerFolderState(options, ctx);
  const connection = await connectService(options, desired, ctx);
  return { desired, connection, backend, workspaceKey: workspaceKey(desired.environment, connection.serviceId), takeOver: options.takeOver ?? [] };
}

/**
 * The state backend of `--state` or `VOXFORM_STATE` (its password registered for redaction), closed at exit.
 * `note: 'later'`: the caller gives notePerFolderState once its manifests have loaded, so that a run
 * that stops on them is not told where a state it never reaches would be.
 */
export async function openOperatorBackend(options: StateChoiceOptions, ctx: CommandContext, how: { note: 'now' | 'later' } = { note: 'now' }): Promise<StateBackend> {
  if (how.note === 'now') await notePerFolderState(options, ctx);
  const backend = await openStateBackend({ state: options.state, env: ctx.env, cwd: ctx.cwd, registerSecret: (value) => ctx.secrets.add(value) });
  ctx.onExit(() => backend.close());
  return backend;
}

/**
 * The trusted secrets (src/secrets/trusted.ts) of a workspace of the connected service, from the
 * operator's state backend as `plan` reads them: for a command that reads live agents or calls
 * without planning (`test`, `test capture`, `chat`, `logs`), which tells each agent it reads to
 * `noteLiveAgent` before it prints, writes or sends anything.
 */
export async function operatorTrustedSecrets(
  options: StateChoiceOptions,
  ctx: CommandContext,
  workspace: { environment: string | undefined } & Pick<Connection, 'serviceId' | 'liveSource'>,
  how: { note: 'now' | 'later' } = { note: 'now' },
): Promise<TrustedSecrets> {
  const backend = await openOperatorBackend(options, ctx, how);
  return readTrustedSecrets(backend, workspaceKey(workspace.environment, workspace.serviceId), ctx.env, ctx.secrets, workspace.liveSource);
}

/** What chooses the state: `--state`, and the manifests named with `-f`, whose folder may hold another. */
interface StateChoiceOptions {
  state?: string | undefined;
  file?: readonly string[] | undefined;
}

/**
 * Says so when the default state is used while the manifests' folder holds another, or while an
 * enclosing folder of the project's git work tree holds one and this folder none: the one place the
 * default is chosen, so every command says it alike.
 */
export async function notePerFolderState(options: StateChoiceOptions, ctx: CommandContext): Promise<void> {
  if (chosenState({ state: options.state, env: ctx.env }) !== undefined) return;
  await notePerFolderFile(ctx, DEFAULT_STATE_FILE, 'voxform keeps the state and its deploy history per folder', (theirs) => `, or with --state ${theirs}`, options.file ?? []);
}

/** Manifest files as the user would name them (relative to the working directory). */
export function displayFiles(desired: DesiredState, cwd: string): string[] {
  return desired.files.map((file) => path.relative(cwd, file) || file);
}

/** What the library's `plan` and `apply` both take about the project. */
export function planInputs(project: ConnectedProject, ctx: CommandContext) {
  return {
    desired: project.desired,
    client: project.connection.client,
    backend: project.backend,
    serviceId: project.connection.serviceId,
    fingerprintKey: fingerprintKey(project.connection.apiKey),
    files: displayFiles(project.desired, ctx.cwd),
    // What `${env:…}` put on the service stays secret whatever the manifests and the state file now say.
    secrets: new TrustedSecrets(ctx.env, ctx.secrets, project.connection.liveSource),
    takeOver: project.takeOver,
  };
}

/**
 * Where this run's change comes from: the CI's commit, else git's, in the folder of the first manifest,
 * and the pull request `ci run` found for it. Every command that records a deploy takes its source
 * here, so each records the CI's job and pull request alike. The deploy's files are asked about:
 * `files` when it is made from more than `desired`'s (a promotion: both environments'); none with
 * `workTree: false` (what is deployed is not the work tree's).
 */
export function deploySourceOf(desired: DesiredState, ctx: CommandContext, options: { workTree?: boolean; files?: readonly string[] } = {}): Promise<DeploySource> {
  const files = options.workTree === false ? undefined : (options.files ?? deployedFiles(desired));
  return detectDeploySource({ env: ctx.env, cwd: gitAskedIn(desired, ctx), files, review: ctx.review });
}

/** The folder git is asked about the manifests in: the first manifest's (its repository is the project's). */
export function gitAskedIn(desired: DesiredState, ctx: CommandContext): string {
  const first = desired.files[0];
  return first ? path.dirname(first) : ctx.cwd;
}

/** What a file the user names for output must not be (ownFileProblem): the run's state, as chosen, and `inputs`, the files it reads. */
export function ownFilesOf(options: { state?: string | undefined }, ctx: CommandContext, inputs?: readonly string[]): OwnFiles {
  return { cwd: ctx.cwd, stateFile: stateFileOf(stateSpec({ state: options.state, env: ctx.env }), ctx.cwd), ...(inputs ? { inputs } : {}) };
}

/** The files a deploy of `desired` is made from, absolute: what the loader read, else the manifests. */
export function deployedFiles(desired: DesiredState): string[] {
  return desired.sourceFiles ?? desired.files;
}
