/**
 * What is secret, answered in one place, from two sources:
 *   - the fields the schemas mark `x-sensitive` (webhook and tool headers, app credentials, provider
 *     keys of a phone import or a credential);
 *   - the values a manifest fills from `${env:…}`, which the loader records per agent as concrete
 *     config paths (`DesiredAgent.sensitivePaths`) and passes in here.
 * Everything that redacts, masks or withholds a value (plan rendering, planned request bodies,
 * diagnostics, `voxform logs`, the configuration hash) asks this module; none decides on its own.
 */
import { FieldPattern, formatDotted, PatternSet, type FieldPath } from '../util/field-path.js';
import { flaggedPaths } from '../schema/introspect.js';

let configPatterns: readonly string[] | undefined;
let manifestPatterns: readonly string[] | undefined;
let manifestSet: PatternSet | undefined;
let fieldNames: ReadonlySet<string> | undefined;

/** Paths inside an agent's config the schema marks secret: `tools[].header`, `session_data_webhook.headers`, … */
export function sensitiveConfigPatterns(): readonly string[] {
  configPatterns ??= flaggedPaths('AgentConfigUpdate', 'sensitive');
  return configPatterns;
}

/** Manifest paths the schema marks secret (`agents.*.config.tools[].header`, `credentials[].api_key`, …). */
export function sensitiveManifestPatterns(): readonly string[] {
  manifestPatterns ??= flaggedPaths('Manifest', 'sensitive', 'manifest');
  return manifestPatterns;
}

/** Whether a place in a manifest (from its root: `['agents', 'desk', 'config', 'tools', 0, 'header']`) holds a secret by the schema. */
export function isSecretManifestPath(path: FieldPath): boolean {
  manifestSet ??= new PatternSet(sensitiveManifestPatterns());
  return manifestSet.covers(path);
}

const definitionSecrets = new Map<string, PatternSet>();
/**
 * Whether a place in an entry of a manifest definition (`AgentSpec`: `['config', 'tools', 0, 'header']`)
 * holds a secret by the schema.
 */
export function isSchemaSecretPlace(definition: string, path: FieldPath): boolean {
  let set = definitionSecrets.get(definition);
  if (!set) definitionSecrets.set(definition, (set = new PatternSet(flaggedPaths(definition, 'sensitive', 'manifest'))));
  return set.covers(path);
}

/** The names of the fields marked secret anywhere in a manifest (`header`, `headers`, `credentials`, `api_key`, …). */
export function sensitiveFieldNames(): ReadonlySet<string> {
  fieldNames ??= new Set(
    sensitiveManifestPatterns().flatMap((pattern) => {
      const last = FieldPattern.parse(pattern).segments.filter((s) => s.kind === 'literal').pop();
      return last && last.kind === 'literal' ? [last.text] : [];
    }),
  );
  return fieldNames;
}

/** The places (exact paths) that took a value from `${env:…}`, as a set to ask "is this place secret". */
export function envSecretSet(places: readonly FieldPath[]): PatternSet {
  return new PatternSet(places.map((place) => FieldPattern.exact(place)));
}

let secretKeys: ReadonlySet<string> | undefined;
/**
 * Whether a key names a secret wherever it appears in a record read from the service (a call
 * record's `agent_config` snapshot, a function call): the names of the fields the manifest schema
 * marks secret (`header`, `headers`, `credentials`, `api_key`, `api_secret`), and `authorization`.
 * Case-insensitive.
 */
export function isSecretKeyName(key: string): boolean {
  secretKeys ??= new Set([...sensitiveFieldNames(), 'authorization']);
  return secretKeys.has(key.toLowerCase());
}

/** Where the entries of each kind of resource (other than agents) sit in a manifest. */
const ENTRY_PREFIXES = { phone: 'phones.*.', credential: 'credentials[].', campaign: 'campaigns.*.', knowledge: 'knowledge.*.' } as const;
type EntryKind = keyof typeof ENTRY_PREFIXES;

const entryFields = new Map<EntryKind, readonly string[]>();
/** The schema's secret fields of an entry of `kind`, dotted from the entry (`import.api_key` of a phone). */
export function entrySecretFields(kind: EntryKind): readonly string[] {
  let fields = entryFields.get(kind);
  if (!fields) {
    const prefix = ENTRY_PREFIXES[kind];
    fields = sensitiveManifestPatterns().filter((p) => p.startsWith(prefix)).map((p) => p.slice(prefix.length));
    entryFields.set(kind, fields);
  }
  return fields;
}

/** The secret places of an entry: the schema's fields, then the given `${env:…}` paths (dotted from the entry). */
export function entrySecretPaths(kind: EntryKind, envPaths: readonly string[]): readonly string[] {
  const fields = entrySecretFields(kind);
  // The same list for every entry whose `${env:…}` paths add nothing to it (most entries), so it is
  // compiled once (`secretPatternSet`) rather than once per entry.
  if (envPaths.every((envPath) => fields.includes(envPath))) return fields;
  return [...new Set([...fields, ...envPaths])];
}

/** The secret fields of a phone entry, dotted from the entry: `import.api_key`, `import.api_secret`. */
export function phoneSecretFields(): readonly string[] {
  return entrySecretFields('phone');
}

/** The secret fields of a credential entry: `api_key`. */
export function credentialSecretFields(): readonly string[] {
  return entrySecretFields('credential');
}

let agentSchemaPatterns: readonly string[] | undefined;
/**
 * Every secret pattern of an agent's fields, as its plan change lists them (`sensitive_paths`):
 * the schema's (`config.tools[].header`, …), then the config paths filled from `${env:…}`.
 */
export function agentSecretPatterns(envConfigPaths: readonly string[]): readonly string[] {
  agentSchemaPatterns ??= sensitiveConfigPatterns().map((p) => `config.${p}`);
  // The same list for every agent without `${env:…}` paths, so it is compiled once (`secretPatternSet`).
  if (envConfigPaths.length === 0) return agentSchemaPatterns;
  return [...agentSchemaPatterns, ...envConfigPaths.map((p) => `config.${p}`)];
}

/** Every sensitive path pattern of an agent's fields: the schema's, those filled from `${env:…}`, `name` if it is. */
export function agentSensitivePatterns(agent: { readonly sensitivePaths: readonly string[]; readonly envReferences?: Record<string, string> | undefined }): readonly string[] {
  const patterns = agentSecretPatterns(agent.sensitivePaths);
  return agent.envReferences?.name === undefined ? patterns : [...patterns, 'name'];
}

const compiledLists = new WeakMap<readonly string[], PatternSet>();
const compiledPatterns = new Map<string, PatternSet>();

/**
 * The compiled form of a list of secret patterns (a change's `sensitivePaths`, say), compiled once
 * per list of patterns: renderers ask for the same change's list field after field (found by the
 * list itself), and agents alike in their secret places (most of a project's) each hold a list of
 * their own with the same patterns (found by its patterns).
 */
export function secretPatternSet(patterns: readonly string[]): PatternSet {
  let set = compiledLists.get(patterns);
  if (!set) {
    const key = JSON.stringify(patterns);
    set = compiledPatterns.get(key) ?? new PatternSet(patterns);
    compiledPatterns.set(key, set);
    compiledLists.set(patterns, set);
  }
  return set;
}

/** The secrets inside an agent config (relative to the config): the schema's, and the given `${env:…}` paths. */
export function configSecretSet(envConfigPaths: readonly string[] = []): PatternSet {
  return envConfigPaths.length === 0 ? secretPatternSet(sensitiveConfigPatterns()) : new PatternSet([...sensitiveConfigPatterns(), ...envConfigPaths]);
}

/**
 * The concrete places in an agent config holding schema-marked secrets, dotted (`session_data_webhook.headers`,
 * `tools.0.header`), in pattern order; `onSecret` hears every string found under them.
 */
export function configSecretPlaces(config: Record<string, unknown>, onSecret: (value: string) => void = () => undefined): string[] {
  const found: string[] = [];
  // Parsed once, with the set (every agent of a manifest is asked).
  for (const pattern of secretPatternSet(sensitiveConfigPatterns()).patterns) {
    for (const place of pattern.placesIn(config)) {
      found.push(formatDotted(place.path));
      collectStrings(place.value, onSecret);
    }
  }
  return found;
}

function collectStrings(value: unknown, onString: (value: string) => void): void {
  if (typeof value === 'string') onString(value);
  else if (Array.isArray(value)) for (const item of value) collectStrings(item, onString);
  else if (value !== null && typeof value === 'object') for (const item of Object.values(value)) collectStrings(item, onString);
}
