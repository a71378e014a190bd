/**
 * The one way a command loads the manifests its options name (`-f`, `--env`; `--base-url` trusted for a
 * manifest's `base_url`). Each secret is registered the moment the loader meets it, so no diagnostic shows one.
 * An environment a flag names that the manifests do not define is the flag's mistake, said as one
 * (`invalid_argument`), for every command alike: `--env` before the command runs
 * (`refuseUnknownEnvironment`), and again as the manifests load, as a flag a command names itself
 * (promote's `--to`) is.
 */
import path from 'node:path';
import { isVoxformError, VoxformError } from '../errors.js';
import { readProject, resolveEnvironment, type ProjectManifests } from '../manifest/index.js';
import { envPolicyOf } from '../secrets/env-policy.js';
import { agentDisplayNames, agentsWithOwnId, environmentAgentIds, likelyEnvironment } from '../manifest/environments.js';
import { inEnvironmentsNote } from '../manifest/describe.js';
import type { DesiredState, Diagnostic, LoadResult } from '../manifest/types.js';
import type { ManifestService } from './connection.js';
import type { CommandContext, ReadBeforeRun } from './context.js';
// Loaded with every load of manifests, not on the error it names: an error from a run that has used
// up its open files (EMFILE) could not load a module then, and would lose its own words.
import { noteManifestAgents } from './manifest-agent-missing.js';
import { countProblems } from './diagnostics.js';
import { plural } from '../util/plural.js';
import { BASE_ENVIRONMENT_NAME } from '../state/types.js';

export interface ManifestOptions {
  file?: string[] | undefined;
  env?: string | undefined;
  /**
   * The flag that named `env` (default `--env`; promote's `--to`, `--from`); `false` when no flag did
   * (a saved plan's environment): an unknown one is then the manifests' error.
   */
  envFlag?: string | false | undefined;
  baseUrl?: string | undefined;
  /** An unset variable reads as withheld, not as an error (`LoadOptions.withholdUnsetEnv`). */
  withholdUnsetEnv?: boolean | undefined;
}

/**
 * The manifests the options name, loaded for their environment: resolved from `project` when the
 * command has read it already (validate resolves each overlay from one read), else from
 * `readCommandProject`.
 */
export async function loadCommandManifests(options: ManifestOptions, ctx: CommandContext, project?: ProjectManifests): Promise<LoadResult> {
  const flag = options.envFlag === false ? undefined : (options.envFlag ?? '--env');
  const result = await resolveEnvironment(project ?? (await readCommandProject(options, ctx)), {
    env: ctx.env,
    environment: options.env,
    environmentFlag: flag,
    operatorBaseUrl: options.baseUrl,
    withholdUnsetEnv: options.withholdUnsetEnv,
    onSecret: (secret) => ctx.secrets.add(secret),
  });
  if (flag !== undefined && options.env !== undefined && result.environments && !result.environments.includes(options.env)) {
    throw unknownEnvironment(flag, options.env, result.environments);
  }
  if (flag !== undefined && !result.environments) withholdUnchecked([options.env], ctx);
  noteManifestAgents(ctx.manifestAgents, result.state);
  return result;
}

/**
 * The project the options name, read: the read that checked the command's --env before it ran, when
 * there is one (`refuseUnknownEnvironment`), so that its YAML is parsed once; else read now.
 */
export async function readCommandProject(options: Pick<ManifestOptions, 'file'>, ctx: CommandContext): Promise<ProjectManifests> {
  const checked = ctx.readBeforeRun?.take(options.file ?? []);
  if (checked) return checked;
  // As loadManifests: a malformed allow-list stops the run before anything is read.
  envPolicyOf(ctx.env);
  return readProject({ paths: options.file ?? [], cwd: ctx.cwd, env: ctx.env });
}

/**
 * The command line's `--env` (diff's each one) checked against the manifests' environments before
 * the command runs (run-command.ts): no command goes on without the environment it was told to use, whether
 * it reads the manifests on every path, on some, or only when it can. Without manifests (no -f, no voxform.yaml) there is nothing to check against: the
 * name stands as given, and a command that needs manifests says they are missing, as plan does.
 * Manifests that cannot be read, or not as YAML, leave it to the command's own load to say why.
 * Answers the context the command runs with: the project read here is handed to its first load.
 */
export async function refuseUnknownEnvironment(options: { file?: string[] | undefined; env?: string | string[] | undefined }, ctx: CommandContext): Promise<CommandContext> {
  if (options.env === undefined) return ctx;
  let project: ProjectManifests;
  try {
    project = await readProject({ paths: options.file ?? [], cwd: ctx.cwd, env: ctx.env });
  } catch (error) {
    if (isVoxformError(error)) return (withholdUnchecked([options.env].flat(), ctx), ctx);
    throw error;
  }
  const known = project.environments;
  if (!known) withholdUnchecked([options.env].flat(), ctx);
  const unknown = [options.env].flat().find((name) => !known?.includes(name));
  if (known && unknown !== undefined) throw unknownEnvironment('--env', unknown, known);
  return { ...ctx, readBeforeRun: handedOnce(options.file ?? [], project) };
}

/**
 * Environment names typed on the command line that no manifest could be read to check (none found,
 * or none readable as YAML): as likely a secret typed in the wrong place (`--env "$DB_PASSWORD"`) as
 * a name, so the run withholds them as it withholds its secrets, in every output, hint and record.
 * A name the manifests define is checked before anything is printed, and an unknown one refused
 * without repeating it (unknownEnvironment).
 */
function withholdUnchecked(names: ReadonlyArray<string | undefined>, ctx: CommandContext): void {
  for (const name of names) if (name !== BASE_ENVIRONMENT_NAME) ctx.secrets.add(name);
}

/**
 * `project`, read for the files `file` names, for the first load of the same files, and only that one:
 * a command that loads again later (drift's watch) reads the files as they are then.
 */
function handedOnce(file: readonly string[], project: ProjectManifests): ReadBeforeRun {
  let held: ProjectManifests | undefined = project;
  return {
    take(asked) {
      if (!held || asked.length !== file.length || asked.some((name, index) => name !== file[index])) return undefined;
      const taken = held;
      held = undefined;
      return taken;
    },
  };
}

/**
 * The error for `flag` naming an environment the manifests do not define. The name typed is not
 * repeated (usage-errors.ts): a secret typed in the wrong place (`--env "$DB_PASSWORD"`) is not one
 * the manifests read, so no scrub knows it. Names voxform knows are: the likely one, those defined,
 * and the base's own name.
 */
function unknownEnvironment(flag: string, name: string, known: readonly string[]): VoxformError {
  const suggestion = likelyEnvironment(name, known);
  const defined = known.length > 0 ? `The manifests define ${known.map((environment) => `"${environment}"`).join(', ')} (under \`environments:\`).` : 'The manifests define no environment: add them under `environments:` (docs/promotion.md).';
  const base =
    ` "${BASE_ENVIRONMENT_NAME}" is what status and history call the base: the manifests without an overlay, used when no --env is given.` +
    ' To compare the base\'s agents with `voxform diff` or promote into them, give them an entry of their own under `environments:`, such as `production: {}` (docs/promotion.md).';
  const named = name === BASE_ENVIRONMENT_NAME ? `the environment "${BASE_ENVIRONMENT_NAME}", which` : 'an environment';
  return new VoxformError('invalid_argument', `${flag} names ${named} the manifests do not define${suggestion ? `; did you mean "${suggestion}"?` : '.'}`, {
    hint: name === BASE_ENVIRONMENT_NAME ? `${defined}${base}` : defined,
  });
}

/**
 * Whether the manifests' only errors are agents' and campaigns' ids they leave to the environments,
 * which every environment gives (docs/promotion.md's layout): they are used with `--env`, and are
 * no mistake to report without it.
 */
export function idsOnlyInEnvironments(result: LoadResult): boolean {
  const ids = result.idsFromEnvironments?.length ?? 0;
  return ids > 0 && countProblems(result.diagnostics, result.omitted).errors === ids;
}

/** A problem found by several loads, once. */
function diagnosticKey(diagnostic: Diagnostic): string {
  return [diagnostic.severity, diagnostic.code, diagnostic.file, diagnostic.line, diagnostic.col, diagnostic.message].join('\0');
}

/**
 * The manifests' problems as `validate` reports them, and so as every command counts them. Manifests
 * that leave an agent's or campaign's id to the environments, every one of which gives it
 * (`LoadResult.idsFromEnvironments`), are used only with `--env`: without one they are checked as each
 * environment loads them, as `validate --env NAME` does: the problems of every load, each once (the
 * manifests' own warnings among them; their errors are each environment's too, but for the ids), one
 * the manifests alone do not have naming the environments it occurs in (`inEnvironmentsNote`). The
 * state stands for their resources when every environment loads (every one defines the same ones),
 * and `environments` holds each environment's state, for its policy. Otherwise `loaded` as it is.
 * `loaded` is the load for `options`, resolved from `project`.
 */
export async function loadAsValidateChecks(
  loaded: LoadResult,
  { project, options }: { project: ProjectManifests; options: Pick<ManifestOptions, 'file' | 'env' | 'withholdUnsetEnv'> },
  ctx: CommandContext,
): Promise<{ result: LoadResult; environments?: Map<string, DesiredState> }> {
  if (options.env !== undefined || (loaded.idsFromEnvironments?.length ?? 0) === 0) return { result: loaded };
  // A problem the manifests themselves have is theirs; one only environments bring names them, as a policy finding does.
  const own = new Set(loaded.diagnostics.map(diagnosticKey));
  const found = new Map(loaded.diagnostics.filter((d) => d.severity === 'warning').map((d) => [diagnosticKey(d), { diagnostic: d, environments: [] as string[] }]));
  const omitted = { ...loaded.omitted };
  const environments = new Map<string, DesiredState>();
  let everyOneLoads = true;
  for (const environment of loaded.environments ?? []) {
    const result = await loadCommandManifests({ file: options.file, env: environment, withholdUnsetEnv: options.withholdUnsetEnv }, ctx, project);
    for (const diagnostic of result.diagnostics) {
      const key = diagnosticKey(diagnostic);
      const entry = found.get(key) ?? { diagnostic, environments: [] };
      if (!own.has(key)) entry.environments.push(environment);
      found.set(key, entry);
    }
    omitted.errors = Math.max(omitted.errors, result.omitted.errors);
    omitted.warnings = Math.max(omitted.warnings, result.omitted.warnings);
    omitted.files = Math.max(omitted.files, result.omitted.files);
    omitted.stopped ||= result.omitted.stopped;
    if (result.state) environments.set(environment, result.state);
    else everyOneLoads = false;
  }
  const diagnostics = [...found.values()].map(({ diagnostic, environments: where }) => (where.length === 0 ? diagnostic : { ...diagnostic, message: `${diagnostic.message}${inEnvironmentsNote(where)}` }));
  // As a load lists them: by file, in the order the files were met, then by position.
  const fileOrder = new Map<string, number>();
  for (const { file } of diagnostics) if (!fileOrder.has(file)) fileOrder.set(file, fileOrder.size);
  const ordered = [...diagnostics].sort((a, b) => (fileOrder.get(a.file) as number) - (fileOrder.get(b.file) as number) || a.line - b.line || a.col - b.col);
  const [state] = environments.values();
  return { result: { ...loaded, diagnostics: ordered, omitted, state: everyOneLoads ? state : undefined }, environments };
}

/**
 * The manifests the options name, for a command that also works without them: no manifest in the folder gives
 * none; manifests with errors give none either, with a warning ending in what the command does without them
 * (`unused`). Manifests whose only errors are ids each environment gives (`idsOnlyInEnvironments`) are
 * not wrong: used without `--env` they give no state, and no warning, but their `policy` section, which
 * no environment can change. A path named with `-f` that is not there is the operator's mistake: `manifest_not_found`, as everywhere.
 */
export async function loadManifestsIfAny(
  options: ManifestOptions,
  ctx: CommandContext,
  unused: string,
): Promise<Pick<LoadResult, 'state' | 'files'> & { idsInEnvironments?: boolean; policy?: unknown; environmentAgents: Map<string, Map<string, string>>; agentsWithOwnId?: Set<string>; agentDisplayNames: Map<string, string>; unreadAgents?: Set<string> }> {
  let result: LoadResult;
  let project: ProjectManifests;
  try {
    project = await readCommandProject(options, ctx);
    result = await loadCommandManifests(options, ctx, project);
  } catch (error) {
    if (isVoxformError(error) && error.code === 'manifest_not_found' && (options.file ?? []).length === 0) return { state: undefined, files: [], environmentAgents: new Map(), agentDisplayNames: new Map() };
    throw error;
  }
  const environmentAgents = environmentAgentIds(project.combined);
  const displayNames = agentDisplayNames(project.combined);
  if (!result.state && idsOnlyInEnvironments(result)) {
    // An environment cannot carry `policy` (docs/manifest.md): the manifests' section holds for each one.
    const policy = project.combined.settings.policy?.value;
    return { state: undefined, files: result.files, idsInEnvironments: true, environmentAgents, agentDisplayNames: displayNames, ...(policy === undefined ? {} : { policy }) };
  }
  if (!result.state) {
    // Counted as `validate` counts them, which the warning sends the reader to; a variable this load withholds is no error of its own.
    const checked = (await loadAsValidateChecks(result, { project, options }, ctx)).result;
    const { errors } = countProblems(checked.diagnostics, checked.omitted);
    ctx.stderr.write(`warning: the manifests have ${plural(errors, 'error')} (\`voxform validate\` lists them): ${unused}.\n`);
    // Their agents' names are still theirs: one only environments give an id is for --env to pick, when none is given; any other is not unknown, but unread.
    const unreadAgents = new Set(Object.keys(project.combined.sections.agents));
    return { state: undefined, files: result.files, environmentAgents: options.env === undefined ? environmentAgents : new Map(), agentsWithOwnId: agentsWithOwnId(project.combined), agentDisplayNames: displayNames, unreadAgents };
  }
  return { state: result.state, files: result.files, environmentAgents, agentDisplayNames: displayNames };
}

/** What the commands that read without planning take from the manifests. */
export interface ManifestProject {
  /** Agent ids by local name. */
  names: Map<string, string>;
  phones: Set<string>;
  /** Campaign ids by local name. */
  campaigns: Map<string, string>;
  /** Knowledge files by local name, each file relative to the working directory. */
  knowledge: Map<string, string>;
  service: ManifestService;
  /** Every file the load read (absolute): the manifests and the files they name. */
  inputs: string[];
  /** The manifests were read without --env, and their agents' ids are the environments' own (`idsOnlyInEnvironments`). */
  idsInEnvironments?: boolean;
  /** Each environment of the manifests (in their order) with its agents' ids by local name; none when the manifests gave no names. */
  environmentAgents: Map<string, Map<string, string>>;
  /** The manifests' agents' local names by the display name their entries write (`agentDisplayNames`). */
  agentDisplayNames: Map<string, string>;
  /** The manifest files read, as the user would name them (relative to the working directory). */
  manifests: string[];
  /** The manifests' agent names, when they have errors: names of the manifests whose ids are not known. */
  unreadAgents?: Set<string>;
  /** With `unreadAgents`, those whose entries write an id of their own: not names only the environments give one. */
  agentsWithOwnId?: Set<string>;
}

/**
 * The environments a run without `--env` should choose from: those of manifests that give their
 * agents' ids only in their environments, whose applies are recorded under them, not under the
 * default workspace. None when `--env` was given or the manifests name ids of their own.
 */
export function environmentsToChoose(project: Pick<ManifestProject, 'environmentAgents' | 'idsInEnvironments'>, options: { env?: string | undefined }): string[] {
  const environments = [...project.environmentAgents.keys()];
  return options.env === undefined && project.idsInEnvironments === true ? environments : [];
}

/**
 * The manifests' agent ids by local name, their phone numbers, campaigns, knowledge files, and their service, for the commands that read from the service
 * without planning. No manifest, or manifests with errors (with a warning), give neither; a mistake in the
 * operator's own settings (VOXFORM_ENV_ALLOW) stops the run, as it does `apply`.
 * An unset `${env:…}` is no error here: it reads as withheld, as `voxform test` reads it. Nothing
 * taken from the load can hold one, for no id, phone number, file path or service setting may come
 * from the environment (`env_forbidden`); so reading the logs of one agent never needs every agent's secrets.
 */
export async function manifestProject(options: ManifestOptions, ctx: CommandContext): Promise<ManifestProject> {
  const loaded = await loadManifestsIfAny({ ...options, withholdUnsetEnv: true }, ctx, 'their agent names and service are not used');
  const manifests = loaded.files.map((file) => path.relative(ctx.cwd, file) || file);
  const { environmentAgents, agentDisplayNames: displayNames, unreadAgents, agentsWithOwnId: withOwnId } = loaded;
  if (!loaded.state) return { ...emptyProject(loaded.files), environmentAgents, agentDisplayNames: displayNames, manifests, ...(loaded.idsInEnvironments ? { idsInEnvironments: true } : {}), ...(unreadAgents ? { unreadAgents } : {}), ...(withOwnId ? { agentsWithOwnId: withOwnId } : {}) };
  const { agents, phones, campaigns, knowledge, baseUrl, region } = loaded.state;
  return {
    environmentAgents,
    agentDisplayNames: displayNames,
    manifests,
    names: new Map([...agents.values()].map((agent) => [agent.localName, agent.id])),
    phones: new Set(phones.keys()),
    campaigns: new Map([...campaigns.values()].map((campaign) => [campaign.localName, campaign.id])),
    knowledge: new Map([...knowledge.values()].map((file) => [file.localName, path.relative(ctx.cwd, file.path) || file.path])),
    service: { baseUrl, region },
    inputs: loaded.state.sourceFiles ?? loaded.files,
  };
}

function emptyProject(inputs: string[]): Omit<ManifestProject, 'environmentAgents' | 'agentDisplayNames' | 'manifests'> {
  return { names: new Map(), phones: new Set(), campaigns: new Map(), knowledge: new Map(), service: {}, inputs };
}
