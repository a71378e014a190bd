/**
 * The normalized desired state the planner works from: what the manifests say after defaults,
 * environments, templates, `${env:…}`, `{file: …}` includes and references are resolved.
 * The manifest as the user wrote it is the generated `Manifest` type; this is the checked form.
 */
import type { DiagnosticCode } from '../error-codes.js';
import type { SourceLocation } from '../errors.js';
import type { EnvironmentPromotion } from './promotion-settings.js';

/** A problem found in the manifests. Collected, not thrown, so one run reports every mistake. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  /** Stable snake_case code: `yaml_syntax`, `unknown_field`, `type_mismatch`, … (every one: DIAGNOSTIC_CODES). */
  code: DiagnosticCode;
  /** One sentence: what is wrong and how to fix it. Never holds a secret value. */
  message: string;
  file: string;
  line: number;
  col: number;
  /** The source lines around the problem with a caret under it, ready to print. */
  frame?: string;
}

interface DesiredResource {
  /** As the CLI shows it: `agent.front-desk`, `phone.+15551230001`, … */
  address: string;
  /** Where the resource is defined (its key in the manifest). */
  source: SourceLocation;
}

export interface DesiredAgent extends DesiredResource {
  kind: 'agent';
  localName: string;
  /** The live agent's id. */
  id: string;
  /** Where that id is written (under `--env`, the overlay's when it gives one): the service not knowing it is reported there. */
  idSource?: SourceLocation | undefined;
  /** Display name (PUT body `name`); undefined when the manifest leaves it to the service. */
  name: string | undefined;
  /**
   * The AgentConfig in the update shape, only the paths the manifest sets; `null` means "clear this
   * field". Read-only: parts from `defaults` are shared between agents.
   */
  config: Record<string, unknown>;
  /** Local names of knowledge files to attach, or undefined when the manifest does not manage them. */
  knowledge: string[] | undefined;
  /**
   * Set on an agent a rollback restores (`knowledge` undefined there: a rollback leaves the attached
   * files as they are): the local names of the files the manifests attach to it, so the state's
   * record of its files stays, re-hashed when the API key changed since it was made.
   */
  keptKnowledge?: string[] | undefined;
  /** Dotted paths (`name`, `config.voice.settings`) never diffed and never sent. */
  ignore: string[];
  /** Dotted paths under `config` whose values are secret (`x-sensitive` or from `${env:…}`): `tools.0.header`. */
  sensitivePaths: readonly string[];
  /**
   * Each value filled from `${env:…}` as written (`Bearer ${env:TOKEN}`), by dotted path from the
   * agent entry: what the deploy ledger records instead of the value. Absent when not from manifests.
   */
  envReferences?: Record<string, string> | undefined;
  /** Where the prompt came from when `prompt: { file: … }` named a file: so a finding in its text can point at its line. */
  promptFile?: PromptFile | undefined;
  /** Set when the agent is made from a template: where a finding in the template's text is reported instead. */
  template?: TemplateOrigin | undefined;
}

/**
 * A templated agent's places in the manifest. The template's own file is not the user's to edit,
 * so a finding located there is reported at the `vars` entry whose value holds the text found,
 * else at the agent's `template:`.
 */
export interface TemplateOrigin {
  /** The template's template.yaml, as locations name it. */
  file: string;
  /** The agent's `template:` value. */
  at: SourceLocation;
  /** The values the manifest's `vars` give, in written order, with where each is written. */
  vars: Array<{ value: string; at: SourceLocation }>;
}

interface PromptFile {
  /** The file as diagnostics show it (relative to the working directory). */
  display: string;
  /** Whether the text is the file's own (no template variables filled in), so a line of the text is a line of the file. */
  verbatim: boolean;
  /** The `file:` value that names it. */
  at: SourceLocation;
}

export interface PhoneImport {
  provider: string;
  country: string;
  region: string;
  /** Secret. */
  api_key: string;
  /** Secret. */
  api_secret: string;
  app_id?: string | null;
}

export interface DesiredPhone extends DesiredResource {
  kind: 'phone';
  /** E.164 number; also the phone's id on the service. */
  number: string;
  /**
   * The agent to bind: its id, and the local name when it is an agent of the manifest; for one
   * outside it, where its id is written (the plan stops there when the service does not know it).
   */
  agent: { id: string; localName: string | undefined; source?: SourceLocation | undefined } | undefined;
  import: PhoneImport | undefined;
  /** Dotted paths from the entry whose values are secret: the schema's fields and values from `${env:…}`. */
  sensitivePaths: readonly string[];
}

export interface DesiredCampaign extends DesiredResource {
  kind: 'campaign';
  localName: string;
  id: string;
  name: string | undefined;
  include_metadata_in_prompt: boolean | undefined;
  /** E.164 number of a phone of the manifest. */
  caller: string | undefined;
  /** Dotted paths from the entry whose values are secret (from `${env:…}`). Never shown in a plan. */
  sensitivePaths: readonly string[];
}

export interface DesiredKnowledgeFile extends DesiredResource {
  kind: 'knowledge';
  localName: string;
  /** Absolute path of the file on disk. */
  path: string;
  /** Name on the service (default: the file's base name). */
  name: string;
  description: string | undefined;
  /** `sha256:<hex>` of the content: an upload happens only when this changes. */
  contentHash: string;
  size: number;
  /** MIME type from the file's extension. */
  mimeType: string;
  /** Dotted paths from the entry whose values are secret (from `${env:…}`). Never shown in a plan. */
  sensitivePaths: readonly string[];
}

export interface DesiredCredential extends DesiredResource {
  kind: 'credential';
  provider: string;
  /** Secret. */
  apiKey: string;
  /** `sha256:<hex>` of provider and key: what the state file keeps instead of the key. */
  fingerprint: string;
}

export interface DesiredState {
  /** The manifest files read, absolute, in load order. */
  files: string[];
  /**
   * Every file the load read, absolute, sorted: the manifests, the templates they use, the prompt and
   * knowledge files they name. What a deploy is made from; absent when not made by the loader.
   */
  sourceFiles?: string[] | undefined;
  /** `sha256:<hex>` over the files' content and every included file: bound into saved plans. */
  manifestHash: string;
  /** The `--env` overlay applied, if any. */
  environment: string | undefined;
  /** The name of every environment overlay the manifests define, chosen or not, sorted. */
  environments: string[];
  /**
   * The other environments the manifests place on the same `base_url` and `region` as this one
   * (`undefined`: the manifests run without --env), as written; with `--local` a reader takes every
   * environment as placed alike (plan/shared-resources.ts `unseenEnvironments`).
   */
  environmentsPlacedAlike?: Array<string | undefined> | undefined;
  region: 'us' | 'eu' | undefined;
  baseUrl: string | undefined;
  /** Keyed by local name (agents, campaigns, knowledge), number (phones) or provider (credentials). */
  agents: Map<string, DesiredAgent>;
  phones: Map<string, DesiredPhone>;
  campaigns: Map<string, DesiredCampaign>;
  knowledge: Map<string, DesiredKnowledgeFile>;
  credentials: Map<string, DesiredCredential>;
  /** Every value from the environment met while loading, and each header or key that holds one, for output redaction. */
  secrets: string[];
  /** Names of the environment variables the manifests read through `${env:…}` (never their values), sorted. */
  environmentVariables: string[];
  /**
   * Loaded with `withholdUnsetEnv`: the variables read as `WITHHELD` (unset, no fallback), sorted;
   * absent when none was. Their places hold no value of the operator's: nothing is known there.
   */
  withheldVariables?: string[] | undefined;
  /** Every environment's promotion settings (`promote_from`, `gates`), by name; absent when not made by the loader. */
  promotions?: Map<string, EnvironmentPromotion> | undefined;
  /** The manifest's `policy:` section as written (spans attached, see positions.ts); undefined when it has none. */
  policy?: unknown;
}

export interface LoadOptions {
  /** Files or folders; empty means `voxform.yaml`, else `agents.yaml`, in `cwd`. */
  paths: string[];
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** The `--env` overlay to apply. */
  environment?: string | undefined;
  /** The option that named `environment` (`--env`), named by the diagnostic of one the manifests do not define. */
  environmentFlag?: string | undefined;
  /**
   * Folder of agent templates (default: the package's `templates/`). The caller's, like the
   * package's: in a CI job its files are read as they are, not held to the commit under review.
   */
  templatesDir?: string;
  /** `--base-url`, if the operator gave it: its origin is trusted for the manifest's `base_url`. */
  operatorBaseUrl?: string | undefined;
  /** The folder every file a manifest names must be inside (default: the manifest's git work tree, else its folder). */
  projectRoot?: string;
  /**
   * Told each secret the moment the load meets it, before anything else can hold it: a caller that
   * may print while the load goes on adds it to its redaction here.
   */
  onSecret?: ((secret: string) => void) | undefined;
  /**
   * A `${env:…}` whose variable is unset (and has no fallback) reads as `WITHHELD` rather than an
   * error (`env_missing`): for `voxform test` without `--with-secrets`, which withholds every value
   * from the environment before anything is sent, so needs none of them (docs/testing.md).
   */
  withholdUnsetEnv?: boolean | undefined;
}

export interface LoadResult {
  /** Present only when there are no error diagnostics. */
  state: DesiredState | undefined;
  /** Errors and warnings, sorted by file (load order) and position; each problem once; at most MAX_DIAGNOSTICS_KEPT. */
  diagnostics: Diagnostic[];
  /**
   * Problems past MAX_DIAGNOSTICS_KEPT, counted, and the files holding them with none kept;
   * `stopped`: the load stopped checking, so there may be more.
   */
  omitted: { errors: number; warnings: number; files: number; stopped: boolean };
  /** The manifest files read, absolute, in load order (also when there are errors). */
  files: string[];
  /**
   * The name of every environment overlay the manifests define, sorted, also when there are errors;
   * absent when a manifest file could not be parsed (the list may then be short of one).
   */
  environments?: string[] | undefined;
  /** Of `environments`, those whose overlays change only where resources live: ids, region, base URL. */
  placementOnlyEnvironments?: string[] | undefined;
  /** Every secret value met while loading, also when there are errors: a caller must still redact them. */
  secrets: string[];
  /**
   * Without an environment: the address of each agent and campaign the manifests leave without an
   * id that every environment gives one (each a `missing_id` error saying to use `--env`).
   */
  idsFromEnvironments?: string[] | undefined;
}
