/**
 * Many files, many YAML documents, one manifest: resources from all fragments gathered by kind, a
 * resource or setting defined twice an error naming both places. Each fragment's shape is checked
 * here; the resources themselves after defaults, templates and environments apply.
 */
import { formatSourceLocation } from '../errors.js';
import type { SchemaIssue } from '../schema/issues.js';
import { SECTION_NOUN } from './describe.js';
import type { DiagnosticList } from './diagnostics.js';
import { attachSpans, shallowCopy, shareSpans, spanAt, spansOf, type EntrySpans, type PathPart } from './positions.js';
import { isPlainObject, setOwn } from '../util/json-object.js';
import { MAX_ENVIRONMENT_RESOURCE_LOADS, MAX_ENVIRONMENTS, MAX_RESOURCES_PER_KIND } from '../project-files/limits.js';
import { isPhoneNumber, localNameProblem, phoneNumberAdvice } from './names.js';
import { checkAgainstSchema } from './schema-issues.js';
import { locationOf, type Span } from './source.js';
import { formatCount } from '../util/plural.js';

export const RESOURCE_SECTIONS = ['agents', 'phones', 'campaigns', 'knowledge'] as const;
type ResourceSection = (typeof RESOURCE_SECTIONS)[number];
const SETTINGS = ['region', 'base_url', 'defaults', 'policy'] as const;
type SettingName = (typeof SETTINGS)[number];
export const SECTION_DEFINITION = { agents: 'AgentSpec', phones: 'PhoneSpec', campaigns: 'CampaignSpec', knowledge: 'KnowledgeSpec' } as const;

export interface Fragment {
  value: Record<string, unknown>;
  /** The document, for problems without a more precise place. */
  span: Span;
}

export interface Setting {
  value: unknown;
  /** The key (`region:`), for "defined twice" messages. */
  keySpan: Span;
  /** The value as written, where problems with it point. */
  valueSpan?: Span | undefined;
}

/** What a manifest or an environment overlay sets. Sections are located objects (see positions.ts). */
export interface Layer {
  settings: Partial<Record<SettingName, Setting>>;
  sections: Record<ResourceSection, Record<string, unknown>>;
  /** Located list. */
  credentials: unknown[];
}

/** An environment's promotion settings as written: read by promotion.ts. */
const PROMOTION_SETTINGS = ['promote_from', 'gates'] as const;
type PromotionSettingName = (typeof PROMOTION_SETTINGS)[number];

export interface CombinedManifest extends Layer {
  environments: Map<string, { layer: Layer; keySpan: Span; promotion: Partial<Record<PromotionSettingName, Setting>> }>;
  /** The first `environments:` key, where "unknown environment" points. */
  environmentsSpan: Span | undefined;
  /** The first document: where problems of the manifest as a whole point. */
  firstSpan: Span;
}

function emptyLayer(span: Span): Layer {
  const section = (): Record<string, unknown> => {
    const value: Record<string, unknown> = {};
    attachSpans(value, { self: span, entries: new Map() });
    return value;
  };
  const credentials: unknown[] = [];
  attachSpans(credentials, { self: span, entries: new Map() });
  return {
    settings: {},
    sections: { agents: section(), phones: section(), campaigns: section(), knowledge: section() },
    credentials,
  };
}

export function combineFragments(fragments: readonly Fragment[], fallback: Span, diagnostics: DiagnosticList): CombinedManifest {
  const combined: CombinedManifest = { ...emptyLayer(fragments[0]?.span ?? fallback), environments: new Map(), environmentsSpan: undefined, firstSpan: fragments[0]?.span ?? fallback };
  for (const fragment of fragments) {
    // First: the list stops taking problems past its limit, and a file's shape must not be crowded out.
    checkFragmentShape(fragment, diagnostics);
    addLayer(combined, fragment.value, '', diagnostics);
    const environments = fragment.value.environments;
    if (!isPlainObject(environments)) continue;
    combined.environmentsSpan ??= spanAt(fragment.value, ['environments'], 'key');
    for (const name of Object.keys(environments)) {
      const keySpan = spanAt(fragment.value, ['environments', name], 'key') ?? fragment.span;
      if (!checkName(name, keySpan, 'environment', diagnostics)) continue;
      let entry = combined.environments.get(name);
      if (!entry) {
        entry = { layer: emptyLayer(spanAt(fragment.value, ['environments', name]) ?? keySpan), keySpan, promotion: {} };
        combined.environments.set(name, entry);
      }
      // Written, the environment is defined, whatever its body: `--env production` over `production: null`
      // is no mistake of the flag, and the load reports the body, as the shape check found it, where it is.
      const overlay = environments[name];
      if (!isPlainObject(overlay)) continue;
      const where = ` in environment "${name}"`;
      addLayer(entry.layer, overlay, where, diagnostics);
      addSettings(entry.promotion, overlay, PROMOTION_SETTINGS, where, diagnostics);
    }
  }
  checkEnvironmentCount(combined, diagnostics);
  return combined;
}

/**
 * Refuses more environments than `validate` can check in time: it loads the manifests once per
 * environment, so the work grows with environments × resources, each capped on its own.
 */
function checkEnvironmentCount(combined: CombinedManifest, diagnostics: DiagnosticList): void {
  const environments = combined.environments.size;
  if (environments === 0) return;
  const resources = Object.values(combined.sections).reduce((sum, section) => sum + Object.keys(section).length, combined.credentials.length);
  const at = combined.environmentsSpan ?? combined.firstSpan;
  const fix = 'split the manifests into projects of their own, or merge environments that differ little';
  if (environments > MAX_ENVIRONMENTS) {
    diagnostics.error(
      'too_many_environments',
      `the manifests define ${formatCount(environments)} environments, more than the ${formatCount(MAX_ENVIRONMENTS)} voxform checks (validate loads the manifests once for each); ${fix}`,
      at,
    );
  } else if (environments * resources > MAX_ENVIRONMENT_RESOURCE_LOADS) {
    diagnostics.error(
      'too_many_environments',
      `the manifests define ${formatCount(environments)} environments of ${formatCount(resources)} resources: validate loads every resource once for each environment, ${formatCount(environments * resources)} together, more than the ${formatCount(MAX_ENVIRONMENT_RESOURCE_LOADS)} voxform checks; ${fix}`,
      at,
    );
  }
}

/** Adds one fragment's (or one environment overlay's: `where` names it) settings and resources to a layer. */
function addLayer(layer: Layer, value: Record<string, unknown>, where: string, diagnostics: DiagnosticList): void {
  addSettings(layer.settings, value, SETTINGS, where, diagnostics);
  for (const section of RESOURCE_SECTIONS) {
    const resources = value[section];
    if (!isPlainObject(resources)) continue;
    const target = layer.sections[section];
    const targetEntries = spansOf(target)?.entries as Map<PathPart, EntrySpans>;
    const sourceEntries = spansOf(resources)?.entries;
    for (const name of Object.keys(resources)) {
      const entry = sourceEntries?.get(name);
      const keySpan = entry?.key ?? entry?.value ?? (spanAt(value, [section]) as Span);
      if (targetEntries.size >= MAX_RESOURCES_PER_KIND) {
        diagnostics.error(
          'too_many_resources',
          `more than ${formatCount(MAX_RESOURCES_PER_KIND)} ${section}${where}: voxform manages at most that many of one kind per run; split the manifest by environment or team`,
          keySpan,
        );
        break;
      }
      // A name that is wrong is an error, which stops every command; the resource is kept all the same,
      // so that its body is checked and references to it resolve: dropped, it would hide its own
      // mistakes and make every reference to it read as one to a resource the manifest does not define.
      if (section === 'phones') checkPhoneNumber(name, keySpan, diagnostics);
      else checkName(name, keySpan, SECTION_NOUN[section], diagnostics);
      const earlier = targetEntries.get(name);
      if (earlier) {
        diagnostics.error(
          'duplicate_resource',
          `${SECTION_NOUN[section]} "${name}"${where} is defined twice: here and at ${formatSourceLocation(locationOf(earlier.key ?? earlier.value))}`,
          keySpan,
        );
        continue;
      }
      setOwn(target, name, resources[name]);
      if (entry) targetEntries.set(name, entry);
    }
  }
  const credentials = value.credentials;
  if (Array.isArray(credentials)) {
    const targetEntries = spansOf(layer.credentials)?.entries as Map<PathPart, EntrySpans>;
    const sourceEntries = spansOf(credentials)?.entries;
    credentials.forEach((credential, index) => {
      const entry = sourceEntries?.get(index);
      if (entry) targetEntries.set(layer.credentials.length, entry);
      layer.credentials.push(credential);
    });
  }
}

/** The `names` that `value` sets, each set once across every file that defines the layer. */
function addSettings<N extends string>(settings: Partial<Record<N, Setting>>, value: Record<string, unknown>, names: readonly N[], where: string, diagnostics: DiagnosticList): void {
  for (const name of names) {
    if (!Object.hasOwn(value, name) || value[name] === null) continue;
    const keySpan = spanAt(value, [name], 'key') as Span;
    const earlier = settings[name];
    if (earlier) {
      diagnostics.error('duplicate_setting', `${name}${where} is set twice: here and at ${formatSourceLocation(locationOf(earlier.keySpan))}; keep one`, keySpan);
      continue;
    }
    settings[name] = { value: value[name], keySpan, valueSpan: spanAt(value, [name]) };
  }
}

function checkName(name: string, span: Span, noun: string, diagnostics: DiagnosticList): boolean {
  const why = localNameProblem(name);
  if (why === undefined) return true;
  diagnostics.error('invalid_name', `${noun} name "${name}" ${why}`, span);
  return false;
}

function checkPhoneNumber(number: string, span: Span, diagnostics: DiagnosticList): void {
  if (!isPhoneNumber(number)) diagnostics.error('invalid_name', `phone "${number}" is not an E.164 number such as "+15551230001"${phoneNumberAdvice(number)}`, span);
}

/** Checks a fragment's shape against the manifest schema (skeletonOf). */
function checkFragmentShape(fragment: Fragment, diagnostics: DiagnosticList): void {
  const skeleton = skeletonOf(fragment.value, false);
  checkAgainstSchema(
    {
      definition: 'Manifest',
      value: skeleton,
      at: [],
      fallback: fragment.span,
      // Environment names are checked by name above (checkName); defaults and overlays may leave required fields to what they merge with.
      skip: (issue: SchemaIssue) =>
        (isEnvironmentName(issue.path) && (issue.keyword === 'pattern' || issue.keyword === 'maxLength')) ||
        (issue.keyword === 'missing_property' && (issue.path[0] === 'defaults' || issue.path[0] === 'environments')),
    },
    diagnostics,
  );
}

/** An issue with `environments`' own keys (a propertyNames issue's path is the object; the key is its propertyName). */
function isEnvironmentName(path: ReadonlyArray<PathPart>): boolean {
  return path.length === 1 && path[0] === 'environments';
}

/**
 * A located copy without the resources: each resource is checked whole, once, where it is resolved,
 * and each name in addLayer; here they would only be copied and walked, and a wrong one reported twice.
 */
function skeletonOf(value: Record<string, unknown>, inEnvironment: boolean): Record<string, unknown> {
  const out = shallowCopy(value) as Record<string, unknown>;
  for (const key of Object.keys(value)) {
    const child = value[key];
    if ((RESOURCE_SECTIONS as readonly string[]).includes(key) && isPlainObject(child)) {
      const section = {};
      shareSpans(child, section);
      setOwn(out, key, section);
    } else if (key === 'credentials' && Array.isArray(child)) {
      setOwn(out, key, []);
    } else if (key === 'environments' && !inEnvironment && isPlainObject(child)) {
      const environments = shallowCopy(child) as Record<string, unknown>;
      for (const name of Object.keys(child)) {
        const overlay = child[name];
        if (isPlainObject(overlay)) setOwn(environments, name, skeletonOf(overlay, true));
      }
      setOwn(out, key, environments);
    } else if (child === null && ((RESOURCE_SECTIONS as readonly string[]).includes(key) || key === 'credentials' || key === 'environments' || key === 'defaults')) {
      // An empty section (`agents:` with nothing under it) is allowed: it defines nothing.
      delete out[key];
    }
  }
  return out;
}
