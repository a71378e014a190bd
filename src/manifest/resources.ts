/**
 * Phones, campaigns, knowledge files and credentials, from manifest entries to checked drafts:
 * `${env:…}` resolved and every entry checked against its schema definition.
 */
import type { IdsFromEnvironments } from './environments.js';
import path from 'node:path';
import type { DiagnosticList } from './diagnostics.js';
import { SECTION_NOUN } from './describe.js';
import { forbiddenEnvPlaces } from '../secrets/env-policy.js';
import { interpolateForCheck, type InterpolationContext } from './interpolate.js';
import { hasEnvReference } from '../secrets/env-reference.js';
import { credentialSecretFields, entrySecretPaths, envSecretSet, isSchemaSecretPlace, phoneSecretFields } from '../secrets/schema-paths.js';
import { formatDotted, parseDotted, valueAtPath } from '../util/field-path.js';
import { spanAt, spansOf, type NodeSpans, type PathPart } from './positions.js';
import { isPlainObject } from '../util/json-object.js';
import { checkAgainstSchema } from './schema-issues.js';
import type { Span } from './source.js';
import { resolveFrom, type KnowledgeRequest } from './includes.js';
import type { PhoneImport } from './types.js';

export interface ResourceContext {
  diagnostics: DiagnosticList;
  interpolation: InterpolationContext;
  onSecret(value: string): void;
  /** Without `--env`: the ids the environments give a resource the manifests leave without one. */
  idsFromEnvironments?: IdsFromEnvironments | undefined;
}

/**
 * Interpolates an entry and checks it; undefined when it is not even an object. `envPaths` hears the
 * dotted path (from the entry) of every value that came from `${env:…}`.
 */
function resolveEntry(
  definition: string,
  entry: unknown,
  at: PathPart[],
  keySpan: Span,
  ctx: ResourceContext,
  envPaths: string[] = [],
): Record<string, unknown> | undefined {
  const onEnvPath = (p: PathPart[]): void => void envPaths.push(formatDotted(p));
  const { resolved, checked, envPlaces } = interpolateForCheck(entry, ctx.interpolation, { onEnvPath, forbidden: forbiddenEnvPlaces(definition), secret: (path) => isSchemaSecretPlace(definition, path) });
  // The set is made only for a value with a problem.
  checkAgainstSchema({ definition, value: checked, at, fallback: keySpan, isSecret: (p) => envSecretSet(envPlaces).covers(p) }, ctx.diagnostics);
  return isPlainObject(resolved) ? resolved : undefined;
}

/** An agent or campaign without an id (one is adopted, never created); when every environment gives it one, the fix is --env. */
export function reportMissingId(section: 'agents' | 'campaigns', localName: string, keySpan: Span, ctx: ResourceContext): void {
  const noun = SECTION_NOUN[section];
  const message = ctx.idsFromEnvironments?.missingId(section, localName) ?? `${noun} "${localName}" has no id: ${section} are adopted, not created; set id to the live ${noun}'s id`;
  ctx.diagnostics.error('missing_id', message, keySpan);
}

/**
 * Hands the values of the schema's secret `fields` to onSecret, and warns of one written as a
 * literal in the manifest, where it ends up in version control (values from `${env:…}` are fine).
 */
function markSecretFields(
  fields: readonly string[],
  entry: unknown,
  resolved: Record<string, unknown>,
  owner: string,
  ctx: ResourceContext,
): void {
  for (const field of fields) {
    const at = parseDotted(field);
    const value = valueAtPath(resolved, at);
    if (typeof value === 'string') ctx.onSecret(value);
    const written = valueAtPath(entry, at);
    const span = spanAt(resolved, at);
    if (typeof written !== 'string' || written.includes('${env:') || !span) continue;
    ctx.diagnostics.warning('secret_in_manifest', `${field} of ${owner} is written in the manifest; use \${env:NAME} so the secret stays out of version control`, span);
  }
}

/** What each resource's draft keeps of where its entry is written. */
export interface EntryDraft {
  /** The resource's key in the manifest. */
  keySpan: Span;
  /** Where each value of the entry is written, as resolved: the desired record carries them, so a finding about a value points at it. */
  entrySpans: NodeSpans | undefined;
}

export interface PhoneDraft extends EntryDraft {
  number: string;
  /** A local agent name, or an agent outside the manifest by id; each with where it is written. */
  agent: { localName: string; span: Span } | { id: string; span: Span } | undefined;
  import: PhoneImport | undefined;
  /** Dotted paths from the entry holding secrets: the schema's fields (`import.api_key`) and values from `${env:…}`. */
  sensitivePaths: readonly string[];
}

export function resolvePhone(number: string, entry: unknown, keySpan: Span, ctx: ResourceContext): PhoneDraft | undefined {
  const envPaths: string[] = [];
  const resolved = resolveEntry('PhoneSpec', entry, ['phones', number], keySpan, ctx, envPaths);
  if (!resolved) return undefined;
  let agent: PhoneDraft['agent'];
  if (typeof resolved.agent === 'string') agent = { localName: resolved.agent, span: spanAt(resolved, ['agent']) ?? keySpan };
  else if (isPlainObject(resolved.agent) && typeof resolved.agent.id === 'string') agent = { id: resolved.agent.id, span: spanAt(resolved, ['agent', 'id']) ?? keySpan };
  let phoneImport: PhoneImport | undefined;
  const spec = resolved.import;
  if (isPlainObject(spec)) {
    markSecretFields(phoneSecretFields(), entry, resolved, `phone "${number}"`, ctx);
    phoneImport = {
      provider: typeof spec.provider === 'string' ? spec.provider : 'twilio',
      country: String(spec.country ?? ''),
      region: String(spec.region ?? ''),
      api_key: String(spec.api_key ?? ''),
      api_secret: String(spec.api_secret ?? ''),
      ...(spec.app_id !== undefined ? { app_id: spec.app_id as string | null } : {}),
    };
  }
  return { number, keySpan, entrySpans: spansOf(resolved), agent, import: phoneImport, sensitivePaths: entrySecretPaths('phone', envPaths) };
}

export interface CampaignDraft extends EntryDraft {
  localName: string;
  id: string | undefined;
  idSpan: Span | undefined;
  name: string | undefined;
  include_metadata_in_prompt: boolean | undefined;
  caller: { number: string; span: Span } | undefined;
  /** Dotted paths from the entry holding secrets (values from `${env:…}`). */
  sensitivePaths: readonly string[];
}

export function resolveCampaign(localName: string, entry: unknown, keySpan: Span, ctx: ResourceContext): CampaignDraft | undefined {
  const envPaths: string[] = [];
  const resolved = resolveEntry('CampaignSpec', entry, ['campaigns', localName], keySpan, ctx, envPaths);
  if (!resolved) return undefined;
  if (resolved.id === undefined) reportMissingId('campaigns', localName, keySpan, ctx);
  return {
    localName,
    keySpan,
    entrySpans: spansOf(resolved),
    id: typeof resolved.id === 'string' ? resolved.id : undefined,
    idSpan: spanAt(resolved, ['id']),
    name: typeof resolved.name === 'string' ? resolved.name : undefined,
    include_metadata_in_prompt: typeof resolved.include_metadata_in_prompt === 'boolean' ? resolved.include_metadata_in_prompt : undefined,
    caller: typeof resolved.caller === 'string' ? { number: resolved.caller, span: spanAt(resolved, ['caller']) ?? keySpan } : undefined,
    sensitivePaths: entrySecretPaths('campaign', envPaths),
  };
}

export interface KnowledgeDraft extends EntryDraft {
  localName: string;
  request: KnowledgeRequest;
  name: string;
  description: string | undefined;
  /** Dotted paths from the entry holding secrets (values from `${env:…}`). */
  sensitivePaths: readonly string[];
}

export function resolveKnowledge(localName: string, entry: unknown, keySpan: Span, ctx: ResourceContext): KnowledgeDraft | undefined {
  const envPaths: string[] = [];
  const resolved = resolveEntry('KnowledgeSpec', entry, ['knowledge', localName], keySpan, ctx, envPaths);
  if (!resolved) return undefined;
  // A path written with a reference was refused (env_forbidden): there is nothing to read.
  if (typeof resolved.file !== 'string' || hasEnvReference(isPlainObject(entry) ? entry.file : undefined)) {
    if (resolved.file === undefined) ctx.diagnostics.error('missing_field', `knowledge file "${localName}" needs "file": the path of the document to upload`, keySpan);
    return undefined;
  }
  const span = spanAt(resolved, ['file']) ?? keySpan;
  const file = resolveFrom(span, resolved.file);
  return {
    localName,
    keySpan,
    entrySpans: spansOf(resolved),
    request: { file, written: resolved.file, span },
    name: typeof resolved.name === 'string' && resolved.name !== '' ? resolved.name : path.basename(file),
    description: typeof resolved.description === 'string' ? resolved.description : undefined,
    sensitivePaths: entrySecretPaths('knowledge', envPaths),
  };
}

export interface CredentialDraft {
  provider: string;
  apiKey: string;
  span: Span;
  providerSpan: Span;
}

export function resolveCredential(index: number, entry: unknown, span: Span, ctx: ResourceContext): CredentialDraft | undefined {
  const resolved = resolveEntry('CredentialSpec', entry, ['credentials', index], span, ctx);
  if (!resolved || typeof resolved.provider !== 'string' || typeof resolved.api_key !== 'string') return undefined;
  markSecretFields(credentialSecretFields(), entry, resolved, `credential "${resolved.provider}"`, ctx);
  return { provider: resolved.provider, apiKey: resolved.api_key, span, providerSpan: spanAt(resolved, ['provider']) ?? span };
}
