/**
 * `template:` + `vars:` on an agent. A template is `templates/<name>/template.yaml` beside the files
 * it includes; the manifest entry deep-merges over it, and `{{variables}}` are replaced in the
 * template, its files and the entry's strings. Mistakes are reported in whichever file made them.
 */
import path from 'node:path';
import { defaultTemplatesDir } from '../templates/location.js';
import { readTemplateFile, TEMPLATE_NAME, templateNamesIn, templateRoot, type TemplateFileOutcome } from '../templates/template-files.js';
import { checkTemplateShape, type DeclaredVariable, type TemplatePlace, type VariableValue } from '../templates/template-shape.js';
import { mapBounded } from '../util/semaphore.js';
import { firstPlaceholders, substituteText, substituteValue, variablesIn, type TemplateVars } from '../templates/substitute.js';
import { didYouMean } from '../util/did-you-mean.js';
import type { DiagnosticCode, DiagnosticList } from './diagnostics.js';
import type { FilledTextBudget } from './filled-text-budget.js';
import { READ_FAILURE_CODES } from '../project-files/guarded-read.js';
import type { FileCache } from '../project-files/manifest-files.js';
import { deepMerge } from './merge.js';
import { parseYaml } from './parse-yaml.js';
import { attachSpans, spanAt, spansOf, type EntrySpans, type FilledBy, type PathPart } from './positions.js';
import { valueAtPath } from '../util/field-path.js';
import { isPlainObject, setOwn } from '../util/json-object.js';
import { locationOf, type SourceRegistry, type SourceText, type Span } from './source.js';
import type { TemplateOrigin } from './types.js';

type TemplateVariable = Omit<DeclaredVariable, 'name'>;

/** The span of the first of `places` that the template has (a key, or a value). */
function placeSpan(root: unknown, places: readonly TemplatePlace[]): Span | undefined {
  for (const place of places) {
    const last = place.path[place.path.length - 1];
    const parent = valueAtPath(root, place.path.slice(0, -1));
    const present = last === undefined || (isPlainObject(parent) && Object.hasOwn(parent, last));
    if (present) return spanAt(root, place.path, place.at);
  }
  return undefined;
}

interface AgentTemplate {
  name: string;
  /** The template's template.yaml. */
  source: SourceText;
  variables: Map<string, TemplateVariable>;
  /** The agent fragment, spans attached. */
  agent: Record<string, unknown>;
  /** One of the templates voxform ships: a file of the installed package, not of the repository. */
  shipped: boolean;
}

/** A template whose folder or template.yaml is there but was refused (the file guards, no permission): why, as a diagnostic. */
interface TemplateRefusal {
  refused: { code: DiagnosticCode; message: string };
}

/** Reads each template the manifests name once, and answers for it. */
export class TemplateStore {
  private readonly templates = new Map<string, AgentTemplate | TemplateRefusal | 'missing' | 'invalid'>();
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
    const read = (file: string, policy: Parameters<FileCache['read']>[1]) => this.files.read(file, policy);
    // A template's files stay inside its own folder: its template.yaml, and the prompt it includes.
    const outcomes = await mapBounded(wanted, 64, async (name) => {
      const folder = path.join(this.dir, name);
      const root = await templateRoot(folder);
      return { root, outcome: await readTemplateFile(folder, root, read) };
    });
    for (const [i, name] of wanted.entries()) {
      const { root, outcome } = outcomes[i] as { root: string; outcome: TemplateFileOutcome };
      if (!outcome.ok) {
        const absent = outcome.reason === 'missing' || outcome.reason === 'folder';
        const refusal = { refused: { code: READ_FAILURE_CODES[outcome.reason], message: `${this.sources.display(outcome.file)} ${outcome.message}` } };
        this.templates.set(name, absent ? 'missing' : refusal);
        continue;
      }
      this.onRead(outcome.bytes);
      this.templates.set(name, await this.parse(name, outcome, root));
    }
    if ([...this.templates.values()].includes('missing')) this.available = templateNamesIn(this.dir);
  }

  /**
   * The template, `missing` when there is none by that name, `invalid` when its file has errors
   * (already reported), or why its template.yaml was not read (outside its folder, too large, …).
   */
  get(name: string): AgentTemplate | TemplateRefusal | 'missing' | 'invalid' {
    return this.templates.get(name) ?? 'missing';
  }

  /** The names a missing template could have been meant as. */
  names(): string[] {
    return this.available ?? [];
  }

  private async parse(name: string, read: Extract<TemplateFileOutcome, { ok: true }>, folder: string): Promise<AgentTemplate | 'invalid'> {
    const file = read.file;
    const errorsBefore = this.diagnostics.errors;
    if (read.textProblem !== undefined) {
      const source = this.sources.forText(file, read.text, folder);
      this.diagnostics.error('file_not_utf8', `${source.display} ${read.textProblem.message}`, { source, start: read.textProblem.at, end: read.textProblem.at + 1 });
      return 'invalid';
    }
    const source = this.sources.forYaml(file, read.text, folder);
    const parsed = await parseYaml(source, this.diagnostics);
    if (parsed.syntaxErrors) return 'invalid';
    const whole: Span = { source, start: 0, end: 0 };
    const root = parsed.documents[0]?.value;
    const shape = checkTemplateShape(root);
    for (const problem of shape.problems) this.diagnostics.error(problem.code, problem.message, placeSpan(root, problem.places) ?? parsed.documents[0]?.span ?? whole);
    if (this.diagnostics.errors > errorsBefore || !shape.agent) return 'invalid';
    const variables = new Map(shape.variables.map(({ name, ...variable }) => [name, variable]));
    return { name, source, variables, agent: shape.agent, shipped: path.resolve(this.dir) === path.resolve(defaultTemplatesDir) };
  }
}

interface TemplateExpansion {
  /** The agent entry with the template under it (template and vars kept, for validation). */
  spec: Record<string, unknown>;
  /** The variables' values, for the files the template includes. */
  vars: TemplateVars;
  origin: TemplateOrigin;
}

/** How one agent's template is expanded. */
interface ExpansionContext {
  agentName: string;
  diagnostics: DiagnosticList;
  budget: FilledTextBudget;
  /**
   * The `vars` the base entry gives under a template an environment's overlay sets: merged in, never
   * removed, so one the overlay's template lacks is not the overlay's to delete.
   */
  varsFromBase: ReadonlySet<string>;
}

/**
 * Expands one agent's template: checks its `vars` against the declared variables, substitutes the
 * template fragment and the entry, and merges the entry over the template.
 */
export function expandTemplate(template: AgentTemplate, entry: Record<string, unknown>, { agentName, diagnostics, budget, varsFromBase }: ExpansionContext): TemplateExpansion {
  const given = isPlainObject(entry.vars) ? entry.vars : {};
  const templateSpan = spanAt(entry, ['template']) as Span;
  for (const name of Object.keys(given)) {
    if (template.variables.has(name)) continue;
    const suggestion = didYouMean(name, template.variables.keys(), diagnostics.suggestions);
    const known = [...template.variables.keys()];
    const fromBase = varsFromBase.has(name)
      ? `; the base entry of agent "${agentName}" gives it, and an environment's vars are merged over the base's, never removing one: set template and vars in each environment's overlay rather than in the base, or use one template in every environment`
      : '';
    diagnostics.error(
      'template_var_unknown',
      `template "${template.name}" has no variable "${name}"${suggestion ? `; did you mean "${suggestion}"?` : known.length > 0 ? ` (its variables: ${known.join(', ')})` : ' (it has no variables)'}${fromBase}`,
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
  const declared = new Set(template.variables.keys());
  const onUnknown = (name: string, span: Span): void => {
    reportUndeclared(name, template.name, declared, span, diagnostics);
  };
  // A template value the manifest's vars filled in is the manifest's to fix: found wrong, it is reported there.
  const filledBy = (text: string): FilledBy | undefined => {
    const variables = variablesIn(text).filter((name) => template.variables.has(name) && Object.hasOwn(given, name) && given[name] === vars[name]);
    const span = variables[0] === undefined ? undefined : spanAt(entry, ['vars', variables[0]]);
    return span && { template: template.name, variables, span };
  };
  const unfilled = (text: string): boolean => variablesIn(text).some((name) => template.variables.has(name) && !Object.hasOwn(vars, name));
  const filling = `the variables of template "${template.name}"`;
  // A template's text grows with the values the manifest gives: reported at the line that uses the template.
  const admitBase = (length: number): boolean => budget.admit(length, templateSpan, filling);
  const admitOwn = (length: number, span: Span | undefined): boolean => budget.admit(length, span ?? templateSpan, filling);
  const base = substituteTree(template.agent, vars, onUnknown, { filledBy, unfilled, admit: admitBase });
  const own = substituteTree(entry, vars, onUnknown, { skipKeys: new Set(['template', 'vars']), unfilled, admit: admitOwn });
  const origin: TemplateOrigin = {
    file: template.source.display,
    at: locationOf(templateSpan),
    vars: Object.entries(given).flatMap(([name, value]) => {
      const span = spanAt(entry, ['vars', name]);
      return span && ['string', 'number', 'boolean'].includes(typeof value) ? [{ value: String(value), at: locationOf(span) }] : [];
    }),
  };
  return { spec: deepMerge(base, own) as Record<string, unknown>, vars, origin };
}

/**
 * A copy of `value` with `{{name}}` replaced in keys and string values (spans kept). A value that
 * is one placeholder takes the variable's own type. `skipKeys` (at the top) are copied unchanged.
 * `filledBy`, given a string value before substitution, tells who filled it in (see FilledBy);
 * `unfilled` tells whether it holds a variable that has no value (see EntrySpans.unfilled).
 * `admit` is asked, before a string is built, whether its length (and the place it is written) may be.
 */
function substituteTree(
  value: unknown,
  vars: TemplateVars,
  onUnknown: (name: string, span: Span) => void,
  options: {
    skipKeys?: ReadonlySet<string>;
    filledBy?: (text: string) => FilledBy | undefined;
    unfilled?: (text: string) => boolean;
    admit?: (length: number, span: Span | undefined) => boolean;
  } = {},
): unknown {
  const skipKeys = options.skipKeys ?? new Set<string>();
  const { admit } = options;
  const admitAt = (span: Span | undefined) => admit && ((length: number) => admit(length, span));
  // The written text is scanned once for where its placeholders are, however many are unknown.
  const reportUnknown = (unknown: ReadonlyArray<{ name: string }>, span: Span | undefined): void => {
    if (!span || unknown.length === 0) return;
    const written = firstPlaceholders(span.source.text.slice(span.start, span.end));
    for (const { name } of unknown) onUnknown(name, placeholderSpan(span, written.get(name)));
  };
  const mark = (child: unknown, entry: EntrySpans | undefined): EntrySpans | undefined => {
    if (!entry || typeof child !== 'string' || !child.includes('{{')) return entry;
    if (options.unfilled?.(child)) return { key: entry.key, value: entry.value, unfilled: true };
    const by = options.filledBy?.(child);
    return by ? { key: entry.key, value: entry.value, filledBy: by } : entry;
  };
  // The entry is passed rather than its span: a span is looked up only where a placeholder is.
  const walk = (node: unknown, entry: EntrySpans | undefined, top: boolean): unknown => {
    if (typeof node === 'string') {
      if (!node.includes('{{')) return node;
      const span = entry ? entry.value : spansOf(value)?.self;
      const result = substituteValue(node, vars, admitAt(span));
      reportUnknown(result.unknown, span);
      return result.value;
    }
    if (node === null || typeof node !== 'object') return node;
    const spans = spansOf(node);
    const entries = new Map<PathPart, EntrySpans>();
    if (Array.isArray(node)) {
      const out = node.map((child, index) => {
        const childEntry = mark(child, spans?.entries.get(index));
        if (childEntry) entries.set(index, childEntry);
        return walk(child, childEntry, false);
      });
      if (spans) attachSpans(out, { self: spans.self, entries });
      return out;
    }
    const record = node as Record<string, unknown>;
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(record)) {
      const skipped = top && skipKeys.has(key);
      const entry = skipped ? spans?.entries.get(key) : mark(record[key], spans?.entries.get(key));
      let newKey = key;
      if (!skipped && key.includes('{{')) {
        const keySpan = entry?.key;
        const result = substituteText(key, vars, admitAt(keySpan));
        reportUnknown(result.unknown, keySpan);
        newKey = result.text;
      }
      setOwn(out, newKey, skipped ? record[key] : walk(record[key], entry, false));
      if (entry) entries.set(newKey, entry);
    }
    if (spans) attachSpans(out, { self: spans.self, entries });
    return out;
  };
  return walk(value, undefined, true);
}

/** The placeholder's own place in the written text (`written`, from the start of `span`), else the whole value. */
function placeholderSpan(span: Span, written: { offset: number; length: number } | undefined): Span {
  if (!written) return span;
  return { source: span.source, start: span.start + written.offset, end: span.start + written.offset + written.length };
}

/** Replaces the template's variables in a file it includes; unknown names are reported in that file. */
export function substituteIncludedText(
  text: string,
  source: SourceText,
  vars: TemplateVars,
  templateName: string,
  declared: Iterable<string>,
  diagnostics: DiagnosticList,
  budget: FilledTextBudget,
): string {
  // Reported at the first placeholder: the file as a whole is what grows.
  const first = /\{\{/.exec(text)?.index ?? 0;
  const at: Span = { source, start: first, end: first + 2 };
  const result = substituteText(text, vars, (length) => budget.admit(length, at, `the variables of template "${templateName}"`));
  const names = new Set(declared);
  for (const unknown of result.unknown) {
    const span = { source, start: unknown.offset, end: unknown.offset + unknown.name.length + 4 };
    reportUndeclared(unknown.name, templateName, names, span, diagnostics);
  }
  return result.text;
}

/** A `{{name}}` the template does not declare (a declared one without a value is reported as missing). */
function reportUndeclared(
  name: string,
  templateName: string,
  declared: ReadonlySet<string>,
  span: Span,
  diagnostics: DiagnosticList,
): void {
  if (declared.has(name)) return;
  const suggestion = didYouMean(name, declared, diagnostics.suggestions);
  diagnostics.error(
    'template_var_undeclared',
    `{{${name}}} is not a variable of template "${templateName}"${suggestion ? `; did you mean {{${suggestion}}}?` : ''}`,
    span,
  );
}
