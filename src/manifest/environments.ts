/**
 * `--env NAME`: the overlay `environments.NAME` deep-merged over everything else. An overlay only
 * changes resources the manifest defines (a typo would otherwise create a half-defined resource).
 * Credentials merge by provider.
 */
import { didYouMean } from '../util/did-you-mean.js';
import { SECTION_NOUN } from './describe.js';
import type { DiagnosticList } from './diagnostics.js';
import { forbiddenEnvPlaces } from '../secrets/env-policy.js';
import { reportForbiddenReferences } from './interpolate.js';
import { deepMerge } from './merge.js';
import { attachSpans, shallowCopy, spanAt, spansOf, type EntrySpans, type PathPart } from './positions.js';
import { isPlainObject, setOwn } from '../util/json-object.js';
import { RESOURCE_SECTIONS, SECTION_DEFINITION, type CombinedManifest, type Layer } from './fragments.js';
import { checkAgainstSchema } from './schema-issues.js';
import { refuseSettingReferences } from './service-settings.js';
import type { Span } from './source.js';
import { wordList } from '../util/plural.js';

/**
 * Without `--env`, the agents and campaigns the manifests leave without an id that every
 * environment gives one (the layout of docs/promotion.md): not a resource to adopt by hand, but
 * manifests to use with `--env`. Each one asked about is noted by its address.
 */
export class IdsFromEnvironments {
  /** The address (`agent.front-desk`) of each resource whose id only the environments give. */
  readonly addresses: string[] = [];
  private readonly names: string[];

  constructor(private readonly combined: CombinedManifest) {
    // In the order the manifests define them, as the user wrote them.
    this.names = [...combined.environments.keys()];
  }

  /** The missing id's message when every environment gives `name` an id; undefined when one does not. */
  missingId(section: 'agents' | 'campaigns', name: string): string | undefined {
    if (this.names.length === 0) return undefined;
    const givesId = (environment: string) => {
      const layer = this.combined.environments.get(environment)?.layer;
      return layer !== undefined && stringField(layer.sections[section], name, 'id') !== undefined;
    };
    if (!this.names.every(givesId)) return undefined;
    const noun = SECTION_NOUN[section];
    this.addresses.push(`${noun}.${name}`);
    return idOnlyInEnvironments(noun, name, this.names);
  }
}

/** The text `field` of the entry `name` of `section` as written (`id:`, `name:`), when it holds a non-empty one. */
function stringField(section: Record<string, unknown>, name: string, field: 'id' | 'name'): string | undefined {
  const entry = Object.hasOwn(section, name) ? section[name] : undefined;
  const value = isPlainObject(entry) ? entry[field] : undefined;
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** What a resource left without an id that `environments` each give one is told: run with --env. */
export function idOnlyInEnvironments(noun: 'agent' | 'campaign', name: string, environments: readonly string[]): string {
  const which = environments.length === 1 ? `the environment ${environments[0]} gives` : `the environments ${wordList(environments, 'and')} give`;
  return `${noun} "${name}" has no id in the manifests themselves; ${which} it one: run with --env NAME`;
}

/**
 * Each environment's agents' ids by local name, as its overlay over the manifests gives them, in the
 * order the manifests define the environments. Read from the entries as written, with no load: an id
 * never comes from a variable (env-policy.ts). An agent given no id is left out. (Phones need no such
 * map: an overlay changes only what the manifests define, so every environment has the same numbers.)
 */
export function environmentAgentIds(combined: CombinedManifest): Map<string, Map<string, string>> {
  const environments = new Map<string, Map<string, string>>();
  for (const [environment, { layer }] of combined.environments) {
    const agents = new Map<string, string>();
    for (const name of Object.keys(combined.sections.agents)) {
      const id = stringField(layer.sections.agents, name, 'id') ?? stringField(combined.sections.agents, name, 'id');
      if (id !== undefined) agents.set(name, id);
    }
    environments.set(environment, agents);
  }
  return environments;
}

/** The agents whose entry in the manifests themselves writes an id: an environment may give another, but never the only one. */
export function agentsWithOwnId(combined: CombinedManifest): Set<string> {
  return new Set(Object.keys(combined.sections.agents).filter((name) => stringField(combined.sections.agents, name, 'id') !== undefined));
}

/**
 * The local name of each agent by the display name its entries write (`name:`, in the manifests or
 * an environment's overlay), read as environmentAgentIds reads ids: `Front desk` stands for
 * `front-desk` where an agent is asked for by name. A display name two agents write is left out.
 */
export function agentDisplayNames(combined: CombinedManifest): Map<string, string> {
  const layers = [combined, ...[...combined.environments.values()].map(({ layer }) => layer)];
  const byDisplayName = new Map<string, string | undefined>();
  for (const name of Object.keys(combined.sections.agents)) {
    for (const layer of layers) {
      const displayName = stringField(layer.sections.agents, name, 'name');
      if (displayName === undefined) continue;
      const earlier = byDisplayName.get(displayName);
      byDisplayName.set(displayName, byDisplayName.has(displayName) && earlier !== name ? undefined : name);
    }
  }
  return new Map([...byDisplayName].flatMap(([displayName, name]): Array<[string, string]> => (name === undefined ? [] : [[displayName, name]])));
}

/** The environment a mistyped name most likely meant: a close spelling, else the one it begins (`prod`). */
export function likelyEnvironment(name: string, known: readonly string[]): string | undefined {
  const prefixed = known.filter((environment) => name.length > 0 && environment.startsWith(name));
  return didYouMean(name, known) ?? (prefixed.length === 1 ? prefixed[0] : undefined);
}

/** What follows "unknown environment NAME": the likely one, else those `known` (`other`: all but the one naming it). */
export function unknownEnvironmentDetail(name: string, known: readonly string[], other = false): string {
  const suggestion = likelyEnvironment(name, known);
  if (suggestion) return `; did you mean "${suggestion}"?`;
  return known.length > 0 ? `; the manifests define ${known.map((k) => `"${k}"`).join(', ')}` : `; the manifests define no ${other ? 'other environment' : 'environments'}`;
}

/**
 * Whether an overlay changes only where resources live: the ids of agents and campaigns, the region
 * and base URL. Such an environment runs what the manifests define, so a check of what they say
 * (the policy) finds what it finds in them; an id is all it could differ in.
 */
export function changesOnlyPlacement(overlay: Layer): boolean {
  const settings = Object.keys(overlay.settings).filter((name) => name !== 'region' && name !== 'base_url');
  const idsOnly = (section: Record<string, unknown>) => Object.values(section).every((entry) => isPlainObject(entry) && Object.keys(entry).every((key) => key === 'id'));
  const { agents, campaigns, phones, knowledge } = overlay.sections;
  return settings.length === 0 && overlay.credentials.length === 0 && Object.keys(phones).length === 0 && Object.keys(knowledge).length === 0 && idsOnly(agents) && idsOnly(campaigns);
}

/**
 * The environments other than `current` that the manifests place where `current` is: the same
 * `base_url` and `region`, each the overlay's or else the manifests'. `undefined` stands for the
 * manifests run without --env, as in `DesiredState.environment`. Compared as written: the operator's
 * `--base-url` or `--region` beats both sides alike.
 */
export function environmentsPlacedAlike(combined: CombinedManifest, current: string | undefined): Array<string | undefined> {
  const placement = (name: string | undefined) => {
    const overlay = name === undefined ? undefined : combined.environments.get(name)?.layer;
    return (['base_url', 'region'] as const).map((setting) => JSON.stringify((overlay?.settings[setting] ?? combined.settings[setting])?.value ?? null)).join(' ');
  };
  const here = placement(current);
  return [undefined, ...combined.environments.keys()].filter((name) => name !== current && placement(name) === here);
}

/**
 * The layer to resolve: the manifest itself, or with the named environment's overlay applied. `flag`:
 * the option that named it (`--env`), which an unknown name's diagnostic names. `allRead`: every
 * manifest was parsed; when one was not (its error reported), an environment not found may be
 * defined there, and is not said unknown.
 */
export function selectEnvironment(combined: CombinedManifest, name: string | undefined, flag: string | undefined, diagnostics: DiagnosticList, allRead = true): Layer {
  if (name === undefined) return combined;
  const environment = combined.environments.get(name);
  if (!environment && !allRead) return combined;
  if (!environment) {
    const detail = unknownEnvironmentDetail(name, [...combined.environments.keys()]);
    // A name typed on the command line is not repeated: it may be a secret typed in the wrong place (docs/security.md §5).
    const what = flag ? `${flag} names an environment the manifests do not define` : `unknown environment "${name}"`;
    diagnostics.error('environment_unknown', `${what}${detail}`, combined.environmentsSpan ?? combined.firstSpan);
    return combined;
  }
  return applyOverlay(combined, environment.layer);
}

function applyOverlay(base: Layer, overlay: Layer): Layer {
  const settings = { ...base.settings };
  for (const [key, setting] of Object.entries(overlay.settings)) {
    const name = key as keyof Layer['settings'];
    const under = settings[name];
    settings[name] = under && name === 'defaults' ? { value: deepMerge(under.value, setting.value), keySpan: setting.keySpan } : setting;
  }
  const sections = { ...base.sections };
  for (const section of RESOURCE_SECTIONS) {
    const changes = overlay.sections[section];
    if (Object.keys(changes).length === 0) continue;
    const merged = shallowCopy(base.sections[section]) as Record<string, unknown>;
    for (const key of Object.keys(changes)) {
      if (!Object.hasOwn(merged, key)) continue; // reported by checkOverlayTargets, for every overlay
      // An entry that is no object (`front-desk: null`) is reported where it is written by
      // checkEnvironmentOverlays, for every overlay; merged in, it would be reported again at the base's entry.
      if (!isPlainObject(changes[key])) continue;
      // The resource stays defined where it was (its entry's spans); changed values carry their own places.
      setOwn(merged, key, deepMerge(merged[key], changes[key]));
    }
    sections[section] = merged;
  }
  return { settings, sections, credentials: mergeCredentials(base.credentials, overlay.credentials) };
}

/**
 * An overlay credential replaces (deep-merges over) the base one of the same provider, or is added.
 * Either way the environment's credential is defined at the overlay's entry, where a finding about it
 * (another environment's apply set another key) is reported.
 */
function mergeCredentials(base: unknown[], overlay: unknown[]): unknown[] {
  if (overlay.length === 0) return base;
  const out = [...base];
  const baseSpans = spansOf(base);
  const overlaySpans = spansOf(overlay);
  const entries = new Map<PathPart, EntrySpans>(baseSpans?.entries ?? []);
  // The first credential of each provider in `out`, kept as it changes: searching `out` for each
  // overlay credential cost the square of their number.
  const firstOf = new Map<unknown, number>();
  const note = (index: number): void => {
    const provider = matchedProvider(out[index]);
    if (provider !== undefined && !firstOf.has(provider)) firstOf.set(provider, index);
  };
  out.forEach((_, index) => note(index));
  overlay.forEach((credential, index) => {
    const provider = matchedProvider(credential);
    const replaced = provider === undefined ? undefined : firstOf.get(provider);
    const at = replaced ?? out.length;
    out[at] = replaced === undefined ? credential : deepMerge(out[at], credential);
    if (replaced === undefined) note(at);
    const entry = overlaySpans?.entries.get(index);
    if (entry) entries.set(at, entry);
  });
  const self = baseSpans?.self ?? overlaySpans?.self;
  if (self) attachSpans(out, { self, entries });
  return out;
}

/**
 * The provider a credential is merged by, compared with `===`: none for one without a provider, nor
 * for NaN, which equals nothing, nor for an object (the schema's error), which equals only itself, and
 * the reader gives every credential values of its own.
 */
function matchedProvider(credential: unknown): unknown {
  const provider = isPlainObject(credential) ? credential.provider : undefined;
  return Number.isNaN(provider) || (typeof provider === 'object' && provider !== null) ? undefined : provider;
}

/**
 * Every overlay, selected or not, changes only resources the manifest defines: a typo in the
 * production overlay shows up while working on staging (or without --env), where it is written.
 */
export function checkOverlayTargets(combined: CombinedManifest, diagnostics: DiagnosticList): void {
  for (const [environment, { layer }] of combined.environments) {
    for (const section of RESOURCE_SECTIONS) {
      const changes = layer.sections[section];
      for (const key of Object.keys(changes)) {
        if (Object.hasOwn(combined.sections[section], key)) continue;
        const suggestion = didYouMean(key, Object.keys(combined.sections[section]), diagnostics.suggestions);
        diagnostics.error(
          'environment_unknown_resource',
          `environment "${environment}" changes ${SECTION_NOUN[section]} "${key}", which the manifest does not define${suggestion ? `; did you mean "${suggestion}"?` : ''}`,
          spanAt(changes, [key], 'key') as Span,
        );
      }
    }
  }
}

/**
 * `${env:…}` where it is never allowed, in the manifest's own settings and in every overlay, used or
 * not: a mistake in production's overlay should show up while working on staging. Nothing is read.
 */
export function checkOverlayReferences(combined: CombinedManifest, diagnostics: DiagnosticList): void {
  refuseSettingReferences(combined, diagnostics);
  for (const [environment, { layer, keySpan }] of combined.environments) {
    refuseSettingReferences(layer, diagnostics);
    forEachEntry(layer, environment, (definition, value, _at, written) => reportForbiddenReferences(value, forbiddenEnvPlaces(definition), diagnostics, written?.value ?? keySpan));
  }
}

/** Each environment overlay checked on its own, selected or not; required fields may come from the base. */
export function checkEnvironmentOverlays(combined: CombinedManifest, diagnostics: DiagnosticList): void {
  for (const [environment, { layer, keySpan }] of combined.environments) {
    // A resource is pointed at by its key, a credential (a list item, which has none) by its value.
    forEachEntry(layer, environment, (definition, value, at, written) => checkAgainstSchema({ definition, value, at, partial: true, fallback: written?.key ?? written?.value ?? keySpan }, diagnostics));
  }
}

/** Each resource and credential an environment's overlay changes: its schema definition, its path and where it is written. */
function forEachEntry(layer: Layer, environment: string, visit: (definition: string, value: unknown, at: PathPart[], written: EntrySpans | undefined) => void): void {
  for (const section of RESOURCE_SECTIONS) {
    const resources = layer.sections[section];
    const entries = spansOf(resources)?.entries;
    for (const name of Object.keys(resources)) visit(SECTION_DEFINITION[section], resources[name], ['environments', environment, section, name], entries?.get(name));
  }
  const entries = spansOf(layer.credentials)?.entries;
  layer.credentials.forEach((credential, index) => visit('CredentialSpec', credential, ['environments', environment, 'credentials', index], entries?.get(index)));
}
