/**
 * `template:` + `vars:` on an agent. A template is `templates/<name>/template.yaml` (description,
 * variables, an agent fragment) beside the files it includes. The template gives the base, the
 * manifest entry deep-merges over it; `{{variables}}` are replaced in the template, in the files it
 * includes and in the manifest entry's own strings. Mistakes are reported in whichever file made
 * them: the template's (an undeclared `{{name}}`) or the manifest's (a missing or unknown var).
 */
import path from 'node:path';
import { readdir } from 'node:fs/promises';
import type { VariableValue } from '../templates/catalog.js';
import { TEMPLATE_FILE } from '../templates/location.js';
import { substituteText, substituteValue, type TemplateVars } from '../templates/substitute.js';
import { didYouMean } from '../util/did-you-mean.js';
import { decodeUtf8 } from './decode.js';
import type { DiagnosticList } from './diagnostics.js';
import type { FileCache } from './load-files.js';
import { deepMerge } from './merge.js';
import { MAX_MANIFEST_BYTES } from './limits.js';
import { parseYaml } from './parse-yaml.js';
import { realFolder } from './project-files.js';
import { attachSpans, mapChildren, setOwn, spanAt, spansOf, type EntrySpans, type PathPart } from './positions.js';
import { isPlainObject } from '../util/json-object.js';
import { describeFound } from './describe.js';
import type { SourceRegistry, SourceText, Span } from './source.js';

const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TOP_KEYS = ['description', 'variables', 'agent'];
const VARIABLE_KEYS = ['description', 'required', 'default'];
/** What a template may set of an agent: `id`, `template` and `vars` belong to the manifest. */
const AGENT_KEYS = ['name', 'config', 'knowledge', 'ignore'];

export interface TemplateVariable {
  required: boolean;
  default: VariableValue | undefined;
  description: string;
}

export interface AgentTemplate {
  name: string;
  /** The template's template.yaml. */
  source: SourceText;
  variables: Map<string, TemplateVariable>;
  /** The agent fragment, spans attached. */
  agent: Record<string, unknown>;
}

/** Reads each template the manifests name once, and answers for it. */
export class TemplateStore {
  private readonly templates = new Map<string, AgentTemplate | 'missing' | 'invalid'>();
  private available: string[] | undefined;

  constructor(
    private readonly dir: string,
    private readonly files: FileCache,
    private readonly sources: SourceRegistry,
    private readonly diagnostics: DiagnosticList,
    /** Receives the bytes of every template file read (for the manifest hash). */
    private readonly onRead: (bytes: Uint8Array) => void,
  ) {}

  /** Reads the named templates concurrently; sources are registered in name order (stable diagnostics). */
  async load(names: Iterable<string>): Promise<void> {
    const wanted = [...new Set(names)].filter((name) => TEMPLATE_NAME.test(name)).sort();
    // A template's files stay inside its own folder: its template.yaml, and the prompt it includes.
    const roots = await Promise.all(wanted.map((name) => realFolder(path.join(this.dir, name))));
    const requests = wanted.map((name, i) => ({ file: path.join(this.dir, name, TEMPLATE_FILE), policy: { root: roots[i] as string, maxBytes: MAX_MANIFEST_BYTES } }));
    const outcomes = await this.files.readAll(requests);
    for (const [i, name] of wanted.entries()) {
      const outcome = outcomes.get(path.join(this.dir, name, TEMPLATE_FILE));
      if (!outcome?.ok) {
        this.templates.set(name, 'missing');
        continue;
      }
      this.onRead(outcome.bytes);
      this.templates.set(name, await this.parse(name, outcome.bytes, roots[i] as string));
    }
    if ([...this.templates.values()].includes('missing')) {
      const entries = await readdir(this.dir, { withFileTypes: true }).catch(() => []);
      this.available = entries.filter((e) => e.isDirectory()).map((e) => e.name).sort();
    }
  }

  /** The template, `missing` when there is none by that name, `invalid` when its file has errors (already reported). */
  get(name: string): AgentTemplate | 'missing' | 'invalid' {
    return this.templates.get(name) ?? 'missing';
  }

  /** The names a missing template could have been meant as. */
  names(): string[] {
    return this.available ?? [];
  }

  private async parse(name: string, bytes: Uint8Array, folder: string): Promise<AgentTemplate | 'invalid'> {
    const file = path.join(this.dir, name, TEMPLATE_FILE);
    const decoded = decodeUtf8(bytes);
    const errorsBefore = this.diagnostics.errors;
    if (decoded.invalidAt !== undefined) {
      const source = this.sources.forText(file, decoded.text, folder);
      this.diagnostics.error('file_not_utf8', `${source.display} is not valid UTF-8 text; save it as UTF-8`, { source, start: decoded.invalidAt, end: decoded.invalidAt + 1 });
      return 'invalid';
    }
    const source = this.sources.forYaml(file, decoded.text, folder);
    const parsed = await parseYaml(source, this.diagnostics);
    if (parsed.syntaxErrors) return 'invalid';
    const whole: Span = { source, start: 0, end: 0 };
    const root = parsed.documents[0]?.value;
    if (!isPlainObject(root)) {
      this.diagnostics.error('template_invalid', `${TEMPLATE_FILE} must be a mapping with description, variables and agent`, parsed.documents[0]?.span ?? whole);
      return 'invalid';
    }
    this.checkKeys(root, TOP_KEYS, 'at the top of the template', whole);
    const variables = this.readVariables(root, whole);
    const agent = root.agent;
    if (!isPlainObject(agent)) {
      this.diagnostics.error('template_invalid', 'the template needs an agent: a mapping with name and config (an agent of a manifest, without id)', spanAt(root, ['agent']) ?? whole);
      return 'invalid';
    }
    for (const key of Object.keys(agent)) {
      const keySpan = spanAt(root, ['agent', key], 'key') ?? whole;
      if (key === 'id') this.diagnostics.error('template_invalid', 'a template must not set id: each manifest adopts its own live agent', keySpan);
      else if (key === 'template' || key === 'vars') this.diagnostics.error('template_invalid', `a template must not set ${key}: templates do not nest`, keySpan);
    }
    this.checkKeys(agent, AGENT_KEYS, 'in the template agent', whole, ['id', 'template', 'vars']);
    if (this.diagnostics.errors > errorsBefore) return 'invalid';
    return { name, source, variables, agent };
  }

  private readVariables(root: Record<string, unknown>, whole: Span): Map<string, TemplateVariable> {
    const variables = new Map<string, TemplateVariable>();
    const section = root.variables;
    if (section === undefined || section === null) return variables;
    if (!isPlainObject(section)) {
      this.diagnostics.error('template_invalid', 'variables must be a mapping of name → { description, required: true | default }', spanAt(root, ['variables']) ?? whole);
      return variables;
    }
    for (const [name, spec] of Object.entries(section)) {
      const at = ['variables', name];
      const keySpan = spanAt(root, at, 'key') ?? whole;
      if (!VARIABLE_NAME.test(name)) {
        this.diagnostics.error('template_invalid', `the variable name "${name}" must be letters, digits and _, not starting with a digit`, keySpan);
        continue;
      }
      if (!isPlainObject(spec)) {
        this.diagnostics.error('template_invalid', `variable ${name} must be a mapping with a description and required: true or a default`, spanAt(root, at) ?? keySpan);
        continue;
      }
      this.checkKeys(spec, VARIABLE_KEYS, `in variable ${name}`, whole);
      const description = spec.description;
      if (typeof description !== 'string' || description.trim() === '') {
        this.diagnostics.error('template_invalid', `variable ${name} needs a description`, spanAt(root, [...at, 'description']) ?? keySpan);
      }
      const required = spec.required;
      if (required !== undefined && typeof required !== 'boolean') {
        this.diagnostics.error('template_invalid', `required of variable ${name} must be true or false, found ${describeFound(required, false)}`, spanAt(root, [...at, 'required']) ?? keySpan);
      }
      const fallback = spec.default;
      if (fallback !== undefined && !['string', 'number', 'boolean'].includes(typeof fallback)) {
        this.diagnostics.error('template_invalid', `the default of variable ${name} must be a string, a number or a boolean`, spanAt(root, [...at, 'default']) ?? keySpan);
      }
      if (required === true && fallback !== undefined) {
        this.diagnostics.error('template_invalid', `variable ${name} is required and has a default; keep one of the two`, spanAt(root, [...at, 'required']) ?? keySpan);
      }
      if (required !== true && fallback === undefined) {
        this.diagnostics.error('template_invalid', `variable ${name} needs required: true or a default`, keySpan);
      }
      variables.set(name, {
        required: required === true,
        default: ['string', 'number', 'boolean'].includes(typeof fallback) ? (fallback as VariableValue) : undefined,
        description: typeof description === 'string' ? description.trim() : '',
      });
    }
    return variables;
  }

  private checkKeys(value: Record<string, unknown>, allowed: string[], where: string, whole: Span, alreadyReported: string[] = []): void {
    for (const key of Object.keys(value)) {
      if (allowed.includes(key) || alreadyReported.includes(key)) continue;
      const suggestion = didYouMean(key, allowed);
      this.diagnostics.error(
        'unknown_field',
        `unknown field "${key}" ${where}${suggestion ? `; did you mean "${suggestion}"?` : ` (known fields: ${allowed.join(', ')})`}`,
        spanAt(value, [key], 'key') ?? whole,
      );
    }
  }
}

export interface TemplateExpansion {
  /** The agent entry with the template under it (template and vars kept, for validation). */
  spec: Record<string, unknown>;
  /** The variables' values, for the files the template includes. */
  vars: TemplateVars;
}

/**
 * Expands one agent's template: checks its `vars` against the declared variables, substitutes the
 * template fragment and the entry, and merges the entry over the template.
 */
export function expandTemplate(
  template: AgentTemplate,
  entry: Record<string, unknown>,
  agentName: string,
  diagnostics: DiagnosticList,
): TemplateExpansion {
  const given = isPlainObject(entry.vars) ? entry.vars : {};
  const templateSpan = spanAt(entry, ['template']) as Span;
  for (const name of Object.keys(given)) {
    if (template.variables.has(name)) continue;
    const suggestion = didYouMean(name, template.variables.keys());
    const known = [...template.variables.keys()];
    diagnostics.error(
      'template_var_unknown',
      `template "${template.name}" has no variable "${name}"${suggestion ? `; did you mean "${suggestion}"?` : known.length > 0 ? ` (its variables: ${known.join(', ')})` : ' (it has no variables)'}`,
      spanAt(entry, ['vars', name], 'key') ?? templateSpan,
    );
  }
  const vars: Record<string, VariableValue> = {};
  const missing: string[] = [];
  for (const [name, variable] of template.variables) {
    const value = given[name];
    const usable = ['string', 'number', 'boolean'].includes(typeof value) && !(variable.required && value === '');
    if (usable) vars[name] = value as VariableValue;
    else if (variable.default !== undefined) vars[name] = variable.default;
    else if (variable.required) missing.push(`"${name}"${variable.description ? ` (${variable.description})` : ''}`);
  }
  if (missing.length > 0) {
    // One diagnostic naming every missing variable: they all belong at `template:`, and fixing them one run at a time is tedious.
    diagnostics.error(
      'template_var_missing',
      `template "${template.name}" needs ${missing.length === 1 ? 'variable' : 'variables'} ${missing.join(', ')}; add ${missing.length === 1 ? 'it' : 'them'} under vars of agent "${agentName}"`,
      templateSpan,
    );
  }
  // Undeclared names given in vars are already reported; substituting them too avoids a second report.
  for (const [name, value] of Object.entries(given)) {
    if (!Object.hasOwn(vars, name) && ['string', 'number', 'boolean'].includes(typeof value) && !template.variables.has(name)) vars[name] = value as VariableValue;
  }
  const onUnknown = (name: string, span: Span): void => {
    if (template.variables.has(name)) return; // a declared variable without a value: reported as missing above
    const suggestion = didYouMean(name, template.variables.keys());
    diagnostics.error(
      'template_var_undeclared',
      `{{${name}}} is not a variable of template "${template.name}"${suggestion ? `; did you mean {{${suggestion}}}?` : ''}`,
      span,
    );
  };
  const base = substituteTree(template.agent, vars, onUnknown);
  const own = substituteTree(entry, vars, onUnknown, new Set(['template', 'vars']));
  return { spec: deepMerge(base, own) as Record<string, unknown>, vars };
}

/**
 * A copy of `value` with `{{name}}` replaced in keys and string values (spans kept). A value that
 * is one placeholder takes the variable's own type. `skipKeys` (at the top) are copied unchanged.
 */
export function substituteTree(
  value: unknown,
  vars: TemplateVars,
  onUnknown: (name: string, span: Span) => void,
  skipKeys: ReadonlySet<string> = new Set(),
): unknown {
  // The entry is passed rather than its span: a span is looked up only where a placeholder is.
  const walk = (node: unknown, entry: EntrySpans | undefined, top: boolean): unknown => {
    if (typeof node === 'string') {
      if (!node.includes('{{')) return node;
      const result = substituteValue(node, vars);
      const span = entry ? entry.value : spansOf(value)?.self;
      for (const unknown of result.unknown) if (span) onUnknown(unknown.name, placeholderSpan(span, unknown.name));
      return result.value;
    }
    if (node === null || typeof node !== 'object') return node;
    const spans = spansOf(node);
    if (Array.isArray(node)) return mapChildren(node, (child, part) => walk(child, spans?.entries.get(part), false));
    const record = node as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    const entries = new Map<PathPart, EntrySpans>();
    for (const key of Object.keys(record)) {
      const entry = spans?.entries.get(key);
      let newKey = key;
      if (!(top && skipKeys.has(key)) && key.includes('{{')) {
        const result = substituteText(key, vars);
        const keySpan = entry?.key;
        for (const unknown of result.unknown) if (keySpan) onUnknown(unknown.name, placeholderSpan(keySpan, unknown.name));
        newKey = result.text;
      }
      setOwn(out, newKey, top && skipKeys.has(key) ? record[key] : walk(record[key], entry, false));
      if (entry) entries.set(newKey, entry);
    }
    if (spans) attachSpans(out, { self: spans.self, entries });
    return out;
  };
  return walk(value, undefined, true);
}

/** The placeholder's own place in the written text, else the whole value. */
export function placeholderSpan(span: Span, name: string): Span {
  const raw = span.source.text.slice(span.start, span.end);
  const match = new RegExp(`\\{\\{\\s*${name}\\s*\\}\\}`).exec(raw);
  if (!match) return span;
  return { source: span.source, start: span.start + match.index, end: span.start + match.index + match[0].length };
}

/** Replaces the template's variables in a file it includes; unknown names are reported in that file. */
export function substituteIncludedText(
  text: string,
  source: SourceText,
  vars: TemplateVars,
  templateName: string,
  declared: Iterable<string>,
  diagnostics: DiagnosticList,
): string {
  const result = substituteText(text, vars);
  const names = [...declared];
  for (const unknown of result.unknown) {
    if (names.includes(unknown.name)) continue; // declared but without a value: reported as missing
    const suggestion = didYouMean(unknown.name, names);
    diagnostics.error(
      'template_var_undeclared',
      `{{${unknown.name}}} is not a variable of template "${templateName}"${suggestion ? `; did you mean {{${suggestion}}}?` : ''}`,
      { source, start: unknown.offset, end: unknown.offset + unknown.name.length + 4 },
    );
  }
  return result.text;
}
