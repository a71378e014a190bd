/**
 * One agent, from its manifest entry to a checked draft: template expanded, defaults merged under
 * its config, `${env:…}` resolved, schema checked, prompt include and knowledge references noted.
 */
import { knownProperties, propertyNode, schemaNode, type SchemaNode } from '../schema/introspect.js';
import { configSecretPlaces, envSecretSet, isSchemaSecretPlace } from '../secrets/schema-paths.js';
import { formatDotted, isDottedAtOrUnder, parseDotted, valueAtPath } from '../util/field-path.js';
import type { TemplateVars } from '../templates/substitute.js';
import { didYouMean } from '../util/did-you-mean.js';
import type { DiagnosticList } from './diagnostics.js';
import type { FilledTextBudget } from './filled-text-budget.js';
import { resolveFrom, type PromptRequest } from './includes.js';
import { forbiddenEnvPlaces } from '../secrets/env-policy.js';
import { interpolateForCheck } from './interpolate.js';
import { hasEnvReference } from '../secrets/env-reference.js';
import { deepMerge } from './merge.js';
import { attachSpans, entryAt, shallowCopy, spanAt, spansOf, type PathPart } from './positions.js';
import { quote } from '../util/describe-value.js';
import { closestTimeZone, isKnownTimeZone } from './time-zone.js';
import { isPlainObject, setOwn } from '../util/json-object.js';
import { reportMissingId, type EntryDraft, type ResourceContext } from './resources.js';
import { checkAgainstSchema } from './schema-issues.js';
import type { SourceText, Span } from './source.js';
import type { TemplateOrigin } from './types.js';
import { expandTemplate, type TemplateStore } from './templates.js';

export interface AgentDraft extends EntryDraft {
  localName: string;
  id: string | undefined;
  idSpan: Span | undefined;
  name: string | undefined;
  /** The config as resolved (spans attached); `prompt` may still be a file include. */
  config: Record<string, unknown>;
  knowledge: Array<{ name: string; span: Span }> | undefined;
  ignore: string[];
  prompt: PromptRequest | undefined;
  /** Config paths (dotted) holding secrets: marked so by the schema, or filled from `${env:…}`. */
  sensitivePaths: string[];
  /** Each value filled from `${env:…}` as written, by dotted path from the entry (`config.tools.0.header.authorization`). */
  envReferences: Record<string, string>;
  /** The template the agent is made from, when it is. */
  template: TemplateOrigin | undefined;
}

interface AgentContext extends ResourceContext {
  templates: TemplateStore;
  /** `defaults.config` (with the environment's applied), if any. */
  defaultsConfig: unknown;
  /** What filling in the templates' variables may build (shared with `${env:…}`). */
  filledText: FilledTextBudget;
  /** The agents of the selected environment's overlay, as written: what it sets, told from what the base gives. */
  overlayAgents: Record<string, unknown> | undefined;
}

export function resolveAgent(localName: string, entry: unknown, keySpan: Span, ctx: AgentContext): AgentDraft | undefined {
  const at: PathPart[] = ['agents', localName];
  if (!isPlainObject(entry)) {
    checkAgainstSchema({ definition: 'AgentSpec', value: entry, at, fallback: keySpan }, ctx.diagnostics);
    return undefined;
  }

  const { spec: expanded, template } = applyTemplate(localName, entry, keySpan, ctx);
  const spec = withDefaults(expanded, ctx.defaultsConfig);

  const envPaths = new Set<string>();
  const envReferences: Record<string, string> = {};
  const onEnvPath = (path: PathPart[], written: string): void => {
    const dotted = formatDotted(path);
    if (path[0] === 'config') envPaths.add(dotted.slice('config.'.length));
    // As written, for the deploy ledger, which keeps the reference and never the value.
    envReferences[dotted] = written;
  };
  const shippedTemplate = template?.shipped ? template.source : undefined;
  // The view checked holds the text as written where a reference was filled in (no verdict depends
  // on a value of the environment) or escaped text unescaped (its escape shows it is no reference).
  const interpolate = () =>
    interpolateForCheck(spec, ctx.interpolation, { onEnvPath, forbidden: forbiddenEnvPlaces('AgentSpec'), secret: (path) => isSchemaSecretPlace('AgentSpec', path), shippedTemplate }) as { resolved: Record<string, unknown>; checked: Record<string, unknown>; envPlaces: PathPart[][] };
  // A reference a shipped template writes (a header's token) is the user's to set: reported at the
  // line that uses the template, not in the installed package's file. A project's own template is
  // the user's file, and its mistakes are reported there.
  const { resolved, checked, envPlaces } = template?.shipped
    ? ctx.diagnostics.reportingAt(template.source, spanAt(entry, ['template']) ?? keySpan, `template "${template.name}": `, interpolate)
    : interpolate();

  // Asked only of a value with a problem: the set is made then.
  checkAgainstSchema({ definition: 'AgentSpec', value: checked, at, fallback: keySpan, isSecret: (path) => envSecretSet(envPlaces).covers(path) }, ctx.diagnostics);

  if (resolved.id === undefined || resolved.id === null) reportMissingId('agents', localName, keySpan, ctx);

  warnImplicitNulls(spec, ctx.diagnostics);
  warnUnknownTimeZone(checked, keySpan, ctx.diagnostics);
  const config = isPlainObject(resolved.config) ? (withoutNullsInLists(resolved.config, false) as Record<string, unknown>) : {};
  const schemaSecretPaths = configSecretPlaces(config, ctx.onSecret);
  checkIgnorePaths(checked, ctx.diagnostics);
  refuseFilesBesideKnowledge(checked, ctx.diagnostics);

  return {
    localName,
    keySpan,
    entrySpans: spansOf(resolved),
    id: typeof resolved.id === 'string' ? resolved.id : undefined,
    idSpan: spanAt(resolved, ['id']),
    name: typeof resolved.name === 'string' ? resolved.name : undefined,
    config,
    knowledge: Array.isArray(resolved.knowledge)
      ? resolved.knowledge.flatMap((name, index) => (typeof name === 'string' ? [{ name, span: spanAt(resolved, ['knowledge', index]) ?? keySpan }] : []))
      : undefined,
    ignore: Array.isArray(resolved.ignore) ? resolved.ignore.filter((p): p is string => typeof p === 'string') : [],
    // A path written with a reference was refused (env_forbidden): there is nothing to read.
    prompt: hasEnvReference(valueAtPath(spec, ['config', 'prompt', 'file'])) ? undefined : promptRequest(config, template),
    sensitivePaths: [...new Set([...schemaSecretPaths, ...envPaths])],
    envReferences,
    template: template?.origin,
  };
}

/**
 * A config key with nothing after its colon (`llm:` whose fields were all removed) reads as null,
 * which clears the field on the service: a warning, unless `null` or `~` is written, which says it
 * is meant. The reader tells them apart by the value's text: an empty value's span is empty.
 */
function warnImplicitNulls(spec: Record<string, unknown>, diagnostics: DiagnosticList): void {
  const walk = (node: Record<string, unknown>, path: PathPart[]): void => {
    for (const key of Object.keys(node)) {
      const child = node[key];
      if (isPlainObject(child)) walk(child, [...path, key]);
      if (child !== null) continue;
      const value = spanAt(spec, ['config', ...path, key]);
      if (!value || value.start !== value.end) continue;
      diagnostics.warning(
        'config_value_empty',
        `config.${formatDotted([...path, key])} is empty, which clears it on the service; write \`${key}: null\` to mean that, or remove the key to leave it alone`,
        spanAt(spec, ['config', ...path, key], 'key') ?? value,
      );
    }
  };
  if (isPlainObject(spec.config)) walk(spec.config, []);
}

/**
 * `value` without the fields written `null` inside a list's items. A list is sent and compared
 * whole, so such a field is one its item does not have (as the configuration hash reads it), where a
 * `null` outside a list clears what the service holds. Copy-on-write, spans kept.
 */
function withoutNullsInLists(value: unknown, inList: boolean): unknown {
  if (value === null || typeof value !== 'object') return value;
  let copy: Record<string, unknown> | undefined;
  for (const key of Object.keys(value)) {
    const child = (value as Record<string, unknown>)[key];
    if (inList && child === null && !Array.isArray(value)) {
      copy ??= shallowCopy(value) as Record<string, unknown>;
      delete copy[key];
      continue;
    }
    const next = withoutNullsInLists(child, inList || Array.isArray(value));
    if (next !== child) setOwn((copy ??= shallowCopy(value) as Record<string, unknown>), key, next);
  }
  return copy ?? value;
}

/** A `config.timezone` the runtime does not know (`America/NewYork`): a warning, with the zone likely meant. */
function warnUnknownTimeZone(checked: Record<string, unknown>, keySpan: Span, diagnostics: DiagnosticList): void {
  const path = ['config', 'timezone'];
  const zone = valueAtPath(checked, path);
  // A zone from ${env:…} is the environment's: no verdict on it (docs/security.md §5).
  if (typeof zone !== 'string' || hasEnvReference(zone) || isKnownTimeZone(zone)) return;
  const suggestion = closestTimeZone(zone);
  const entry = entryAt(checked, path);
  diagnostics.warning(
    'timezone_unknown',
    `config.timezone: ${quote(zone)} is not an IANA time zone${suggestion ? `; did you mean "${suggestion}"?` : ' such as "America/New_York" or "Europe/Berlin"'}`,
    entry?.filledBy?.span ?? spanAt(checked, path) ?? keySpan,
  );
}

/** The entry with its template (if any) expanded under it; an unknown template is reported here. */
function applyTemplate(
  localName: string,
  entry: Record<string, unknown>,
  keySpan: Span,
  ctx: AgentContext,
): { spec: Record<string, unknown>; template: TemplateUse | undefined } {
  if (typeof entry.template !== 'string') {
    if (entry.vars !== undefined && entry.template === undefined) {
      ctx.diagnostics.warning('vars_without_template', 'vars has no effect without template; add template: NAME or remove vars', spanAt(entry, ['vars'], 'key') ?? keySpan);
    }
    return { spec: entry, template: undefined };
  }
  const found = ctx.templates.get(entry.template);
  if (found === 'invalid') return { spec: entry, template: undefined }; // its file's mistakes are reported already
  if (found === 'missing') {
    const known = ctx.templates.names();
    const suggestion = didYouMean(entry.template, known, ctx.diagnostics.suggestions);
    ctx.diagnostics.error(
      'template_unknown',
      `there is no template "${entry.template}"${suggestion ? `; did you mean "${suggestion}"?` : known.length > 0 ? ` (the templates are: ${known.join(', ')})` : ''}`,
      spanAt(entry, ['template']) ?? keySpan,
    );
    return { spec: entry, template: undefined };
  }
  if ('refused' in found) {
    ctx.diagnostics.error(found.refused.code, `template "${entry.template}": ${found.refused.message}`, spanAt(entry, ['template']) ?? keySpan);
    return { spec: entry, template: undefined };
  }
  const overlayEntry = ctx.overlayAgents && Object.hasOwn(ctx.overlayAgents, localName) ? ctx.overlayAgents[localName] : undefined;
  const varsFromBase = varsUnderOverlayTemplate(overlayEntry, entry);
  const expansion = expandTemplate(found, entry, { agentName: localName, diagnostics: ctx.diagnostics, budget: ctx.filledText, varsFromBase });
  return {
    spec: expansion.spec,
    template: { name: found.name, vars: expansion.vars, declared: [...found.variables.keys()], source: found.source, shipped: found.shipped, origin: expansion.origin },
  };
}

/** The `vars` of `entry` (the base's with the overlay's merged over them) that the base gives under a template `overlayEntry` sets. */
function varsUnderOverlayTemplate(overlayEntry: unknown, entry: Record<string, unknown>): Set<string> {
  if (!isPlainObject(overlayEntry) || !Object.hasOwn(overlayEntry, 'template') || !isPlainObject(entry.vars)) return new Set();
  const own = isPlainObject(overlayEntry.vars) ? overlayEntry.vars : {};
  return new Set(Object.keys(entry.vars).filter((name) => !Object.hasOwn(own, name)));
}

/** The spec with `defaults.config` deep-merged under its config (an explicit `config: null` counts as none). */
function withDefaults(spec: Record<string, unknown>, defaultsConfig: unknown): Record<string, unknown> {
  const hasDefaults = defaultsConfig !== undefined && defaultsConfig !== null;
  if (!hasDefaults && spec.config !== null) return spec;
  const own = spec.config === null ? undefined : spec.config;
  const config = hasDefaults ? deepMerge(defaultsConfig, own) : undefined;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(spec)) if (key !== 'config') setOwn(out, key, spec[key]);
  if (config !== undefined) out.config = config;
  const spans = spansOf(spec);
  if (!spans) return out;
  if (config !== undefined && spans.entries.get('config')) {
    attachSpans(out, spans); // the same keys in the same places
    return out;
  }
  const entries = new Map(spans.entries);
  const configSpans = spansOf(config);
  if (config === undefined) entries.delete('config');
  else if (configSpans) entries.set('config', { key: configSpans.self, value: configSpans.self });
  attachSpans(out, { self: spans.self, entries });
  return out;
}

interface TemplateUse {
  name: string;
  vars: TemplateVars;
  declared: string[];
  source: SourceText;
  shipped: boolean;
  origin: TemplateOrigin;
}

function promptRequest(config: Record<string, unknown>, template: TemplateUse | undefined): PromptRequest | undefined {
  const prompt = config.prompt;
  if (!isPlainObject(prompt) || typeof prompt.file !== 'string' || prompt.file === '') return undefined;
  const span = spanAt(config, ['prompt', 'file']);
  if (!span) return undefined;
  // Only a file the template itself names gets the template's variables; the user's own files are used as written.
  const fromTemplate = template !== undefined && span.source === template.source;
  return {
    file: resolveFrom(span, prompt.file),
    written: prompt.file,
    span,
    ...(fromTemplate ? { template: { name: template.name, vars: template.vars, declared: template.declared } } : {}),
  };
}

/**
 * voxform fills `config.knowledge_base.files` from the agent's `knowledge`: both written, or
 * `knowledge_base: null` beside it, each apply would send one and the next plan would undo it (the
 * files cleared and attached again at every run). Attaching them, the service keeps `messages` a
 * list, so a `messages: null` beside them would never match either.
 */
function refuseFilesBesideKnowledge(spec: Record<string, unknown>, diagnostics: DiagnosticList): void {
  if (spec.knowledge === undefined) return;
  if (valueAtPath(spec, ['config', 'knowledge_base']) === null) {
    diagnostics.error(
      'invalid_value',
      "config.knowledge_base: null clears the knowledge files voxform attaches from the agent's knowledge, which this agent sets too: remove the null (knowledge_base: { messages: [] } empties the messages alone), or remove knowledge",
      spanAt(spec, ['config', 'knowledge_base'], 'key') as Span,
    );
  }
  if (valueAtPath(spec, ['config', 'knowledge_base', 'messages']) === null) {
    diagnostics.error(
      'invalid_value',
      "config.knowledge_base.messages: null cannot clear them beside the agent's knowledge: the service keeps them a list when voxform attaches the files, so the null would differ at every plan; write messages: [] to empty them",
      spanAt(spec, ['config', 'knowledge_base', 'messages'], 'key') as Span,
    );
  }
  if (valueAtPath(spec, ['config', 'knowledge_base', 'files']) !== undefined) {
    diagnostics.error(
      'invalid_value',
      'config.knowledge_base.files is filled by voxform from the agent\'s knowledge, which this agent sets too: remove files, and list the knowledge files by name under knowledge',
      spanAt(spec, ['config', 'knowledge_base', 'files'], 'key') as Span,
    );
  }
  // Ignored, the files are the dashboard's; knowledge would send them all the same.
  if (!Array.isArray(spec.ignore)) return;
  spec.ignore.forEach((entry, index) => {
    if (typeof entry !== 'string' || !isDottedAtOrUnder('config.knowledge_base.files', entry)) return;
    diagnostics.error(
      'ignore_conflict',
      `ignore: ${entry} holds config.knowledge_base.files, which voxform fills from this agent's knowledge and sends: remove knowledge to leave the files to the dashboard, or stop ignoring them`,
      spanAt(spec, ['ignore', index]) as Span,
    );
  });
}

/**
 * `ignore` entries must name fields that exist: one with a typo, or one inside a list or a text,
 * ignores nothing, and the live value is overwritten. Nor may the agent set a whole value above
 * one (`voice: null` beside `ignore: [config.voice.settings]`): sending it would clear the field
 * ignored.
 */
function checkIgnorePaths(spec: Record<string, unknown>, diagnostics: DiagnosticList): void {
  if (!Array.isArray(spec.ignore)) return;
  const configNode = schemaNode('AgentConfigSpec', 'manifest');
  spec.ignore.forEach((entry, index) => {
    if (typeof entry !== 'string' || !/^(name|config(\.[A-Za-z0-9_]+)*)$/.test(entry)) return; // the schema reports these
    const at = spanAt(spec, ['ignore', index]) as Span;
    const parts = parseDotted(entry).slice(1);
    // Named only when reported, and the config walked one step per part: walked from the root at
    // each part, an entry of many parts cost their square.
    const parentAt = (depth: number): string => formatDotted(['config', ...parts.slice(0, depth)]);
    let above = valueAtPath(spec, ['config']);
    for (let depth = 1; depth < parts.length; depth++) {
      above = valueAtPath(above, [parts[depth - 1] as string]);
      if (above === undefined || isPlainObject(above)) continue;
      const parent = parentAt(depth);
      diagnostics.error('ignore_conflict', `ignore: ${entry} lies under ${parent}, which this agent sets whole (to ${above === null ? 'null' : Array.isArray(above) ? 'a list' : 'a value'}): sending it would clear what ignore keeps; set the fields of ${parent} it manages instead, or ignore ${parent}`, at);
      return;
    }
    let node: SchemaNode | undefined = configNode;
    for (const [depth, part] of parts.entries()) {
      if (!node || node.additional === 'any') return; // free-form below here
      if (node.types !== undefined && !node.types.has('object')) {
        const what = node.types.has('array') ? 'a list: ignore names fields, not what a list holds' : 'not an object';
        const parent = parentAt(depth);
        diagnostics.error('unknown_field', `ignore: ${entry} is not a field of the agent: ${parent} is ${what}; ignore ${parent} whole`, at);
        return;
      }
      if (node.properties.size === 0 && node.additional === undefined) return; // an object of any keys below here
      const next = propertyNode(node, part);
      if (!next) {
        const suggestion = didYouMean(part, knownProperties(node), diagnostics.suggestions);
        diagnostics.error('unknown_field', `ignore: ${entry} is not a field of the agent: ${parentAt(depth)} has no "${part}"${suggestion ? `; did you mean "${suggestion}"?` : ''}`, at);
        return;
      }
      node = next;
    }
  });
}

