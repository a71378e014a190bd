/**
 * Manifest files → the checked `DesiredState` of an environment, or every problem found, in two steps:
 *
 *   readProject: find files → read + parse (positions kept) → combine fragments → check every
 *     overlay and the promotion settings
 *   resolveEnvironment: apply the --env overlay → per resource: template, defaults, ${env:…},
 *     schema → cross-resource rules → read prompt includes and hash knowledge files → DesiredState
 *
 * A command that needs several environments (validate checks each overlay's policy) reads once and
 * resolves each. `loadManifests` is both steps. Problems are collected as diagnostics; only "there
 * is nothing to load" throws.
 */
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { resolveAgent, type AgentDraft } from './agents.js';
import { desiredAgent, desiredCampaign, desiredCredential, desiredKnowledge, desiredPhone } from './desired-state.js';
import { CheckoutFiles } from '../project-files/checkout-files.js';
import { decodeUtf8 } from '../project-files/decode.js';
import { READ_FAILURE_CODES } from '../project-files/guarded-read.js';
import { describeFound } from '../util/describe-value.js';
import { DiagnosticList } from './diagnostics.js';
import { envPolicyOf } from '../secrets/env-policy.js';
import { WITHHELD } from '../secrets/withhold.js';
import { changesOnlyPlacement, checkEnvironmentOverlays, checkOverlayReferences, environmentsPlacedAlike, checkOverlayTargets, IdsFromEnvironments, selectEnvironment } from './environments.js';
import { combineFragments, RESOURCE_SECTIONS, type CombinedManifest, type Fragment, type Layer } from './fragments.js';
import { resolvePromotions } from './promotion.js';
import { FilledTextBudget } from './filled-text-budget.js';
import { hashKnowledgeFiles, promptBudget, readPrompts, type IncludeContext, type KnowledgeContent, type PromptRequest } from './includes.js';
import type { InterpolationContext } from './interpolate.js';
import { MAX_MANIFEST_BYTES, MAX_MANIFEST_BYTES_PER_LOAD, MAX_PROMPT_BYTES_TOTAL } from '../project-files/limits.js';
import { FileCache, findManifestFiles, type ManifestFile, type ReadOutcome } from '../project-files/manifest-files.js';
import { FALLBACK_MIME_TYPE, mimeTypeFor } from '../util/mime.js';
import { parseYaml, YamlTokenBudget } from './parse-yaml.js';
import { spansOf } from './positions.js';
import { sha256, sha256Hex } from '../util/hash.js';
import { isPlainObject } from '../util/json-object.js';
import { formatSize } from '../util/size.js';
import { checkAcrossResources, type Drafts } from './references.js';
import { resolveCampaign, resolveCredential, resolveKnowledge, resolvePhone, type KnowledgeDraft, type ResourceContext } from './resources.js';
import { resolveServiceSettings } from './service-settings.js';
import { SourceRegistry, type Span } from './source.js';
import { TemplateStore } from './templates.js';
import { defaultTemplatesDir } from '../templates/location.js';
import type { DesiredState, LoadOptions, LoadResult } from './types.js';
import { requireOptions } from '../util/required-options.js';

/** The manifests of `options.paths` loaded for `options.environment`: `readProject`, then `resolveEnvironment`. */
export async function loadManifests(options: LoadOptions): Promise<LoadResult> {
  requireOptions('loadManifests', options, { paths: 'names', cwd: 'text', env: 'object' });
  // Checked before anything is read: a malformed allow-list stops the run.
  envPolicyOf(options.env);
  return resolveEnvironment(await readProject(options), options);
}

/**
 * A project's manifests as read: every file read and parsed once (positions kept), combined, and
 * checked as far as no environment matters (overlays, promotion settings). Each environment is
 * resolved from it (`resolveEnvironment`), as often as a command needs.
 */
export interface ProjectManifests {
  /** The manifest files, absolute, in load order. */
  files: string[];
  /** The digest of each manifest file read, in load order: the first part of the manifest hash. */
  digests: string[];
  /**
   * The files read, kept: each environment's templates are read once, whichever environments name
   * them; its prompt files count against its own budget, as in a load of it alone, and are kept for
   * the others up to one budget in all (past it, read again: see FileCache).
   */
  cache: FileCache;
  sources: SourceRegistry;
  /** What reading and combining found: each environment's diagnostics start from a copy. */
  diagnostics: DiagnosticList;
  combined: CombinedManifest;
  promotions: DesiredState['promotions'];
  /** A file was not read as YAML: rules needing every resource are skipped, and the environments may be short of one. */
  unparsed: boolean;
  fallbackSpan: Span;
  /** The environments defined, sorted; undefined when `unparsed`. */
  environments: string[] | undefined;
  /** Of `environments`, those whose overlays change only where resources live. */
  placementOnlyEnvironments: string[] | undefined;
}

/** Finds, reads and parses the manifest files, and combines them (see `ProjectManifests`); throws only when there is nothing to read. */
export async function readProject(options: Pick<LoadOptions, 'paths' | 'cwd' | 'projectRoot' | 'env' | 'templatesDir'>): Promise<ProjectManifests> {
  const cwd = path.resolve(options.cwd);
  const manifestFiles = await findManifestFiles(options.paths, cwd, { projectRoot: options.projectRoot });
  const diagnostics = new DiagnosticList();
  const sources = new SourceRegistry(cwd);
  const digests: string[] = [];
  // The templates are voxform's own (or the folder the caller names), wherever voxform is installed.
  const cache = new FileCache(CheckoutFiles.forRun(options.env, [options.templatesDir ?? defaultTemplatesDir]), MAX_PROMPT_BYTES_TOTAL);
  const { fragments, unparsed, fallbackSpan } = await readManifests(manifestFiles, { cache, sources, diagnostics, onDigest: (digest) => digests.push(digest) });
  const combined = combineFragments(fragments, fallbackSpan, diagnostics);
  for (const check of [checkEnvironmentOverlays, checkOverlayReferences, checkOverlayTargets]) check(combined, diagnostics);
  const promotions = resolvePromotions(combined, diagnostics);
  const environments = unparsed ? undefined : [...combined.environments.keys()].sort();
  return {
    files: manifestFiles.map((entry) => entry.file),
    digests,
    cache,
    sources,
    diagnostics,
    combined,
    promotions,
    unparsed,
    fallbackSpan,
    environments,
    placementOnlyEnvironments: environments?.filter((name) => changesOnlyPlacement(combined.environments.get(name)!.layer)),
  };
}

/**
 * The secrets a load hears (`LoadResult.secrets`), each handed on to `options.onSecret` as it is
 * heard: every value the environment gives a reference, and a value at a secret place of the
 * schema (a header, a key) only with one of those in it. Text the manifest writes there, as a
 * `:-` fallback does, is the pull request's, in git already, and masked where it stands; searched
 * for in output, it would hide whatever words the pull request chose from every output.
 */
function secretsHeard(options: Pick<LoadOptions, 'onSecret' | 'withholdUnsetEnv'>) {
  const secrets = new Set<string>();
  // The secrets the environment gave: every other secret is a secret place's value holding one of them.
  const fromEnvironment = new Set<string>();
  const heard = (value: string): void => {
    // Not a secret: a reference left unresolved (the manifest's own text), or one read as withheld.
    if (value === '' || value.includes('${env:') || (options.withholdUnsetEnv === true && value.includes(WITHHELD)) || secrets.has(value)) return;
    secrets.add(value);
    options.onSecret?.(value);
  };
  return {
    secrets,
    onEnvironmentValue: (value: string): void => {
      heard(value);
      if (secrets.has(value)) fromEnvironment.add(value);
    },
    // A value the environment gave that `heard` refused (empty, an unresolved reference, withheld) makes any text holding it refused too,
    // and a secret place's value heard before holds one the environment gave: so those are the ones to look for. Looking for every
    // secret heard made a manifest's secret places cost the square of their number; the environment, not the manifest, sets how many these are.
    onSecretPlace: (value: string): void => {
      for (const read of fromEnvironment) if (value.includes(read)) return heard(value);
    },
  };
}

/**
 * One environment of a project read (none: the manifests themselves) → the checked `DesiredState`,
 * or every problem found, the reading's own among them. The project read is not changed: any
 * number of environments resolve from one.
 */
export async function resolveEnvironment(project: ProjectManifests, options: Omit<LoadOptions, 'paths' | 'cwd' | 'projectRoot'>): Promise<LoadResult> {
  const policy = envPolicyOf(options.env);
  const { files, sources, combined, unparsed, fallbackSpan } = project;
  const diagnostics = project.diagnostics.copy();
  // Asked of the project's reads, so that this environment's own files are known (its `sourceFiles`)
  // and its prompt files charged to its own budget, kept by another environment or not.
  const cache = project.cache.share();
  const { secrets, onEnvironmentValue, onSecretPlace } = secretsHeard(options);
  const environmentVariables = new Set<string>();
  // Digests of every file read, by role, each list in a deterministic order; hashed together at the end.
  const digests = { manifests: project.digests, templates: [] as string[], prompts: [] as string[], knowledge: [] as string[] };

  const layer = selectEnvironment(combined, options.environment, options.environmentFlag, diagnostics, project.environments !== undefined);
  const environmentsKnown = project.environments ? { environments: [...project.environments], placementOnlyEnvironments: [...(project.placementOnlyEnvironments ?? [])] } : {};
  const { baseUrl, region } = resolveServiceSettings(layer, { diagnostics, env: options.env, operatorBaseUrl: options.operatorBaseUrl });

  const templates = new TemplateStore(options.templatesDir ?? defaultTemplatesDir, cache, sources, diagnostics, (bytes) => digests.templates.push(sha256Hex(bytes)));
  const templateNames = Object.values(layer.sections.agents).flatMap((entry) => (isPlainObject(entry) && typeof entry.template === 'string' ? [entry.template] : []));
  if (templateNames.length > 0) await templates.load(templateNames);

  const onEnvName = (name: string): void => void environmentVariables.add(name);
  const withheldVariables = new Set<string>();
  // One budget for every text this load fills in: templates, their prompts and \${env:…} alike.
  const filledText = new FilledTextBudget(diagnostics);
  const interpolation: InterpolationContext = { env: options.env, diagnostics, onSecret: onEnvironmentValue, policy, onEnvName, unsetAsWithheld: options.withholdUnsetEnv === true, onWithheld: (name) => void withheldVariables.add(name), filledText };
  const idsFromEnvironments = options.environment === undefined ? new IdsFromEnvironments(combined) : undefined;
  const resourceContext: ResourceContext = { diagnostics, interpolation, onSecret: onSecretPlace, idsFromEnvironments };
  const defaults = layer.settings.defaults?.value;
  const overlayAgents = options.environment === undefined ? undefined : combined.environments.get(options.environment)?.layer.sections.agents;
  const agentContext = { ...resourceContext, templates, defaultsConfig: isPlainObject(defaults) ? defaults.config : undefined, filledText, overlayAgents };

  const drafts = resolveResources(layer, fallbackSpan, diagnostics, { agentContext, resourceContext });
  // Every way out, once the resources are resolved: only a load with errors has ids it misses (missing_id).
  const result = (state: DesiredState | undefined): LoadResult => {
    const ids = idsFromEnvironments?.addresses ?? [];
    return { state, diagnostics: diagnostics.toList(), omitted: { ...diagnostics.omitted }, files: [...files], ...environmentsKnown, ...(ids.length > 0 ? { idsFromEnvironments: [...ids] } : {}), secrets: [...secrets] };
  };

  if (diagnostics.full) {
    // A thousand problems found: the rest of the checks (and reading every named file) would only be counted.
    diagnostics.stop();
    return result(undefined);
  }
  checkAcrossResources(drafts, diagnostics, unparsed);

  const agentList = [...drafts.agents.values()];
  const knowledgeList = [...drafts.knowledge.values()];
  const { promptTextOf, knowledgeContents } = await readNamedFiles(agentList, knowledgeList, { files: cache, sources, diagnostics, promptBudget: promptBudget(), filledText, folders: new Map() }, digests);

  if (diagnostics.hasErrors) return result(undefined);

  const localNamesById = new Map(agentList.map((draft) => [draft.id as string, draft.localName]));
  const state: DesiredState = {
    files: [...files],
    sourceFiles: [...new Set([...files, ...cache.files(), ...knowledgeList.map((draft) => draft.request.file)])].sort(),
    manifestHash: sha256([...digests.manifests, ...digests.templates, ...digests.prompts, ...digests.knowledge].join('\n')),
    environment: options.environment,
    environments: [...combined.environments.keys()].sort(),
    environmentsPlacedAlike: environmentsPlacedAlike(combined, options.environment),
    region,
    baseUrl,
    agents: new Map(agentList.map((draft) => [draft.localName, desiredAgent(draft, draft.prompt ? promptTextOf.get(draft.prompt) : undefined, draft.prompt ? sources.display(draft.prompt.file) : undefined)])),
    phones: new Map([...drafts.phones.values()].map((draft) => [draft.number, desiredPhone(draft, drafts.agents, localNamesById)])),
    campaigns: new Map([...drafts.campaigns.values()].map((draft) => [draft.localName, desiredCampaign(draft)])),
    knowledge: new Map(knowledgeList.map((draft, index) => [draft.localName, desiredKnowledge(draft, knowledgeContents[index] as KnowledgeContent)])),
    credentials: new Map(drafts.credentials.map((draft) => [draft.provider, desiredCredential(draft)])),
    secrets: [...secrets],
    environmentVariables: [...environmentVariables].sort(),
    ...(withheldVariables.size > 0 ? { withheldVariables: [...withheldVariables].sort() } : {}),
    promotions: project.promotions,
    ...(layer.settings.policy ? { policy: layer.settings.policy.value } : {}),
  };
  return result(state);
}

/** The prompts and knowledge files the resolved resources point at, read concurrently; digests recorded by role. */
async function readNamedFiles(
  agents: readonly AgentDraft[],
  knowledge: readonly KnowledgeDraft[],
  context: Omit<IncludeContext, 'onDigest'>,
  digests: { prompts: string[]; knowledge: string[] },
): Promise<{ promptTextOf: Map<PromptRequest, string>; knowledgeContents: Array<KnowledgeContent | undefined> }> {
  const promptRequests = agents.flatMap((agent) => (agent.prompt ? [agent.prompt] : []));
  const [promptTexts, knowledgeContents] = await Promise.all([
    readPrompts(promptRequests, { ...context, onDigest: (digest) => digests.prompts.push(digest) }),
    hashKnowledgeFiles(
      knowledge.map((k) => k.request),
      { ...context, onDigest: (digest) => digests.knowledge.push(digest) },
    ),
  ]);
  knowledge.forEach((draft, index) => checkKnowledgeContent(draft, knowledgeContents[index], context.diagnostics));
  return { promptTextOf: new Map(promptRequests.map((request, index) => [request, promptTexts[index] as string])), knowledgeContents };
}

/**
 * Reads and parses every manifest file, each YAML document a fragment; a file's bytes are let go
 * once decoded (its text stays, for code frames). `unparsed`: a file was not read as YAML.
 */
async function readManifests(
  files: readonly ManifestFile[],
  ctx: { cache: FileCache; sources: SourceRegistry; diagnostics: DiagnosticList; onDigest(digest: string): void },
): Promise<{ fragments: Fragment[]; unparsed: boolean; fallbackSpan: Span }> {
  const { sources, diagnostics } = ctx;
  const fragments: Fragment[] = [];
  let unparsed = false;
  let firstSpan: Span | undefined;
  const budget = new YamlTokenBudget();
  const bytesBudget = { remaining: MAX_MANIFEST_BYTES_PER_LOAD, limit: MAX_MANIFEST_BYTES_PER_LOAD, noun: 'manifest files' };
  // Asked for all at once, so that they are read in a few slices, not one each; the budget is still
  // charged in load order, before each file is read.
  const outcomes: Array<ReadOutcome | undefined> = await Promise.all(files.map(({ file, root }) => ctx.cache.readOnce(file, { root, maxBytes: MAX_MANIFEST_BYTES, budget: bytesBudget })));
  for (const [index, { file, root }] of files.entries()) {
    const outcome = outcomes[index] as ReadOutcome;
    outcomes[index] = undefined;
    if (!outcome.ok && (outcome.reason === 'outside' || outcome.reason === 'kept_folder' || outcome.reason === 'not_regular' || outcome.reason === 'too_large' || outcome.reason === 'uncommitted')) {
      // Found in the project (a folder, or the default name) but refused by the guards: no text of it to show.
      const source = sources.forText(file, '', root);
      firstSpan ??= { source, start: 0, end: 0 };
      const code = READ_FAILURE_CODES[outcome.reason];
      unparsed = true;
      if (outcome.pastBudget) {
        const limit = formatSize(MAX_MANIFEST_BYTES_PER_LOAD);
        const message = `manifest ${source.display} would take the manifest files read past ${limit} together, the most voxform reads in one run, so it was not read and no file after it was loaded; load fewer or smaller manifest files`;
        diagnostics.error(code, message, { source, start: 0, end: 0 });
        break;
      }
      // Resources may be spread over files freely: a manifest too large is split, the one fix that helps.
      const fix = outcome.reason === 'too_large' ? `; split it into several files in a folder, which \`-f FOLDER\` reads as one manifest` : '';
      diagnostics.error(code, `manifest ${source.display} ${outcome.message}${fix}`, { source, start: 0, end: 0 });
      continue;
    }
    if (!outcome.ok) {
      throw new VoxformError('manifest_unreadable', `${sources.display(file)} ${outcome.message}.`, { hint: 'Check the path and its permissions; keep manifests inside the project.' });
    }
    ctx.onDigest(sha256Hex(outcome.bytes));
    const { text, problem } = decodeUtf8(outcome.bytes);
    if (problem !== undefined) {
      const source = sources.forText(file, text, root);
      firstSpan ??= { source, start: 0, end: 0 };
      diagnostics.error('file_not_utf8', `${source.display} ${problem.message}`, { source, start: problem.at, end: problem.at + 1 });
      unparsed = true;
      continue;
    }
    const source = sources.forYaml(file, text, root);
    const fileStart: Span = { source, start: 0, end: 0 };
    firstSpan ??= fileStart;
    const parsed = await parseYaml(source, diagnostics, { budget });
    unparsed ||= parsed.syntaxErrors;
    if (budget.exceeded) break;
    const documents = parsed.documents.filter((doc) => doc.value !== null);
    if (documents.length === 0 && !parsed.syntaxErrors) {
      diagnostics.warning('empty_file', `${source.display} is empty: it defines nothing`, fileStart);
      continue;
    }
    for (const doc of documents) {
      if (!isPlainObject(doc.value)) {
        diagnostics.error('not_a_mapping', `a manifest document must be a mapping of sections (version, agents, phones, …), found ${describeFound(doc.value, 'value')}`, doc.span);
        continue;
      }
      fragments.push({ value: doc.value, span: doc.span });
    }
  }
  // findManifestFiles never answers an empty list, so there is a first file to point at.
  return { fragments, unparsed, fallbackSpan: firstSpan as Span };
}

/** Each resource of the selected layer resolved and checked on its own; stops once the diagnostics are full. */
function resolveResources(
  layer: Layer,
  fallbackSpan: Span,
  diagnostics: DiagnosticList,
  { agentContext, resourceContext }: { agentContext: Parameters<typeof resolveAgent>[3]; resourceContext: ResourceContext },
): Drafts {
  const drafts: Drafts = {
    agents: new Map(),
    phones: new Map(),
    campaigns: new Map(),
    knowledge: new Map(),
    knowledgeNames: new Set(Object.keys(layer.sections.knowledge)),
    agentNames: new Set(Object.keys(layer.sections.agents)),
    phoneNumbers: new Set(Object.keys(layer.sections.phones)),
    credentials: [],
  };
  const resolveSection = <D>(section: (typeof RESOURCE_SECTIONS)[number], into: Map<string, D>, resolve: (name: string, entry: unknown, keySpan: Span) => D | undefined): void => {
    const resources = layer.sections[section];
    const entries = spansOf(resources)?.entries;
    for (const name of Object.keys(resources)) {
      if (diagnostics.full) return;
      const entry = entries?.get(name);
      const resource = resources[name];
      // A resource that is not an object is reported (its type) and resolved no further: where its value is.
      const span = isPlainObject(resource) ? (entry?.key ?? entry?.value) : (entry?.value ?? entry?.key);
      const draft = resolve(name, resource, span ?? fallbackSpan);
      if (draft) into.set(name, draft);
    }
  };
  resolveSection('agents', drafts.agents, (name, entry, keySpan) => resolveAgent(name, entry, keySpan, agentContext));
  resolveSection('phones', drafts.phones, (number, entry, keySpan) => resolvePhone(number, entry, keySpan, resourceContext));
  resolveSection('campaigns', drafts.campaigns, (name, entry, keySpan) => resolveCampaign(name, entry, keySpan, resourceContext));
  resolveSection('knowledge', drafts.knowledge, (name, entry, keySpan) => resolveKnowledge(name, entry, keySpan, resourceContext));
  layer.credentials.forEach((entry, index) => {
    if (diagnostics.full) return;
    const span = spansOf(layer.credentials)?.entries.get(index)?.value ?? fallbackSpan;
    const draft = resolveCredential(index, entry, span, resourceContext);
    if (draft) drafts.credentials.push(draft);
  });
  return drafts;
}

function checkKnowledgeContent(draft: KnowledgeDraft, content: { size: number } | undefined, diagnostics: DiagnosticList): void {
  if (!content) return;
  const span = draft.request.span;
  if (content.size === 0) diagnostics.warning('empty_file', `knowledge file "${draft.request.written}" is empty`, span);
  if (mimeTypeFor(draft.request.file) === FALLBACK_MIME_TYPE) {
    diagnostics.warning(
      'knowledge_type_unknown',
      `knowledge file "${draft.request.written}" has a type voxform does not know by its extension; it will be uploaded as ${FALLBACK_MIME_TYPE}`,
      span,
    );
  }
}
