/**
 * Turns a template and its variable values into an agent checked against the AgentSpec. Works on a
 * copy of the template's YAML nodes, so its comments and styles carry over into what `init` writes.
 */
import { isPair, isScalar, isSeq, Scalar, visit, type Node, type YAMLMap } from 'yaml';
import { VoxformError, type SourceLocation } from '../errors.js';
import { schemaIssueMessages } from '../manifest/schema-issues.js';
import { FilledTextBudget } from '../manifest/filled-text-budget.js';
import { callTargets } from '../policy/places.js';
import { escapeEnvReferences, hasEnvReference } from '../secrets/env-reference.js';
import { numberFault } from '../yaml/numbers.js';
import { formatDotted, type FieldPath, type PathSegment } from '../util/field-path.js';
import { wordList } from '../util/plural.js';
import { httpUrl } from '../util/http-url.js';
import { isPlainObject } from '../util/json-object.js';
import { keyText, locationOf, nodeAlong, nodeAtPlace } from '../templates/yaml-place.js';
import type { Template, TemplateVariable, VariableValue } from '../templates/catalog.js';
import { substituteText, substituteValue, variablesIn, type TemplateVars } from '../templates/substitute.js';

interface ResolvedVariables {
  /** A value for every declared variable that has one (given, else its default). */
  values: Record<string, VariableValue>;
  /** Required variables without a value, in declaration order. */
  missing: TemplateVariable[];
  /** Given names the template does not declare, in the order given. */
  unknown: string[];
}

/**
 * Matches given values to a template's variables (each as `givenValue` takes it); an empty string is
 * no value: a required variable is then missing, an optional one takes its default.
 */
export function resolveVariables(template: Template, given: Readonly<Record<string, VariableValue>>): ResolvedVariables {
  const declared = new Map(template.variables.map((v) => [v.name, v]));
  const unknown = Object.keys(given).filter((name) => !declared.has(name));
  const values: Record<string, VariableValue> = {};
  const missing: TemplateVariable[] = [];
  for (const variable of template.variables) {
    const value = Object.hasOwn(given, variable.name) ? given[variable.name] : undefined;
    if (value !== undefined && value !== '') values[variable.name] = givenValue(variable, value);
    else if (variable.default !== undefined) values[variable.name] = variable.default;
    else missing.push(variable);
  }
  return { values, missing, unknown };
}

/** Text a number variable takes as a number. */
const NUMBER_TEXT = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

/**
 * The value of `variable` given as `value`. A string (as `--var` values and answers are) takes the
 * type of a number or boolean default when it reads as one; a number a manifest would not keep as
 * written stays text, never rounded, for expandTemplate to refuse (inexactNumbers).
 */
export function givenValue(variable: TemplateVariable, value: VariableValue): VariableValue {
  const like = variable.default;
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (typeof like === 'number' && NUMBER_TEXT.test(text) && numberFault(text, Number(text)) === undefined) return Number(text);
  if (typeof like === 'boolean' && /^(true|false)$/.test(text)) return text === 'true';
  return value;
}

/**
 * The values of number variables that read as a number a manifest would not keep as written, which
 * givenValue left text: refused by the rule the manifest reader refuses such a number by, not rounded
 * into a manifest validate would refuse.
 */
function inexactNumbers(template: Template, values: TemplateVars): ValueProblem[] {
  return template.variables.flatMap(({ name, default: like }) => {
    const value = values[name];
    const text = typeof value === 'string' ? value.trim() : '';
    const fault = typeof like === 'number' && NUMBER_TEXT.test(text) ? numberFault(text, Number(text)) : undefined;
    return fault === undefined ? [] : [{ message: `it ${fault}.`, filledBy: [name] }];
  });
}

interface ExpandedTemplate {
  /** The agent as YAML nodes (a copy; the template's comments and styles kept). */
  node: YAMLMap;
  /** The same agent as plain data. */
  agent: Record<string, unknown>;
  /** The included prompt file's text with its variables replaced, when the agent includes one. */
  prompt: { text: string; source: string } | undefined;
}

/**
 * Expands a template with values for all its variables (see `resolveVariables`). The agent keeps
 * `config.prompt: { file }` as the template wrote it; the caller decides where the prompt goes.
 */
export function expandTemplate(template: Template, values: TemplateVars): ExpandedTemplate {
  const lacking = template.variables.filter((v) => !Object.hasOwn(values, v.name)).map((v) => v.name);
  if (lacking.length > 0) {
    throw new VoxformError('template_vars_missing', `Template ${template.name} needs values for ${lacking.join(', ')}.`, { hint: 'Give each a value: under `vars:` in a manifest, or with --var NAME=VALUE for `voxform init`.' });
  }
  const inexact = inexactNumbers(template, values)[0];
  if (inexact) throw valueInvalid(template, inexact);
  // One budget for every text the agent and its prompt fill in, as a manifest's load has.
  const budget = new FilledTextBudget();
  const node = expandNodes(template, values, budget);
  const agent = node.toJSON() as Record<string, unknown>;
  const problem = agentProblems(template, agent)[0];
  if (problem) {
    if (problem.filledBy.length > 0) throw valueInvalid(template, problem);
    const { issue, message } = problem;
    throw new VoxformError('template_invalid', `Template ${template.name} makes an invalid agent: ${message}`, {
      location: locateIn(template, ['agent', ...issue.path], issue.keyword === 'unknown_property' ? 'key' : 'value'),
      hint: 'A template may set name, config (the AgentConfig update shape), knowledge and ignore; see docs/templates.md.',
    });
  }
  const prompt = template.prompt ? { text: fillPrompt(template, template.prompt, values, budget), source: template.prompt.file } : undefined;
  return { node, agent, prompt };
}

/**
 * A copy of the template's agent with the values in place of its variables, unchecked but for
 * `budget`: a text it refuses is never built (text_too_long).
 */
function expandNodes(template: Template, values: TemplateVars, budget: FilledTextBudget): YAMLMap {
  const original = template.document.get('agent', true) as YAMLMap;
  const node = original.clone() as YAMLMap;
  // A value is text: `${env:…}` in it is escaped where the manifest would read it as a reference (values, not keys; a prompt file is not interpolated).
  const asText = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typeof value === 'string' ? escapeEnvReferences(value) : value]));
  visit(node, {
    Scalar(key, scalar, path) {
      if (typeof scalar.value !== 'string') return;
      const admit = admitFilled(budget, template, scalar.value, () => ({ field: `agent.${formatDotted(fieldPathOf(path, scalar))}`, node: scalar }));
      if (key === 'key') {
        scalar.value = substituteText(scalar.value, values, admit).text;
        return;
      }
      const { value } = substituteValue(scalar.value, asText, admit);
      scalar.value = value;
      // A whole-value placeholder of a number or boolean must print as one, not as a quoted string.
      if (typeof value !== 'string') scalar.type = Scalar.PLAIN;
    },
  });
  return node;
}

/**
 * Why the value just given for `answered` does not fit the template, before the other values are
 * known: the agent is expanded with an empty text for each variable in `pending`, and only a value
 * that `answered` helps fill and no pending variable does is judged (the rest are judged once all
 * are given). So a terminal asks again at once for an answer whose mistake shows on its own.
 */
export function answerProblem(template: Template, values: TemplateVars, which: { answered: string; pending: readonly string[] }): VoxformError | undefined {
  const { answered, pending } = which;
  const placeholders = Object.fromEntries(pending.map((name) => [name, '']));
  const agent = expandNodes(template, { ...placeholders, ...values }, new FilledTextBudget()).toJSON() as Record<string, unknown>;
  const problem = agentProblems(template, agent).find(({ filledBy }) => filledBy.includes(answered) && filledBy.every((name) => !pending.includes(name)));
  return problem && valueInvalid(template, problem);
}

/** The template's prompt with the values in place of its variables, refused as `expandNodes` refuses a text. */
function fillPrompt(template: Template, prompt: { file: string; text: string }, values: TemplateVars, budget: FilledTextBudget): string {
  const { file, text } = prompt;
  // Pointed at the first placeholder: the file as a whole is what grows.
  const first = /\{\{/.exec(text)?.index ?? 0;
  const before = text.slice(0, first).split('\n');
  const location = { file, line: before.length, col: (before.at(-1)?.length ?? 0) + 1 };
  return substituteText(text, values, admitFilled(budget, template, text, () => ({ field: 'the prompt', location }))).text;
}

/**
 * The `admit` of a substitution in init: charges `budget`, else throws text_too_long naming the
 * template, the field (`place`, asked only then) and the variables that fill in `text`.
 */
function admitFilled(budget: FilledTextBudget, template: Template, text: string, place: () => { field: string; node?: Node; location?: SourceLocation }): (length: number) => boolean {
  return (length) => {
    const variables = variablesIn(text);
    const refusal = budget.charge(length, wordList(variables, 'and'));
    if (refusal === undefined) return true;
    const { field, node, location } = place();
    throw new VoxformError('text_too_long', `Template ${template.name}, ${field}: ${refusal}; nothing was written.`, {
      location: location ?? locationOf(template.file, template.lineCounter, node),
      hint: `Give ${variables.length === 1 ? 'it' : 'them'} a shorter value (--var ${variables[0]}=…); docs/manifest.md#limits lists the limits.`,
      details: { variables },
    });
  };
}

/** The field path of `node` in the agent (`path`: its ancestors from the agent's map down, as `visit` gives them). */
function fieldPathOf(path: readonly unknown[], node: unknown): FieldPath {
  const fields: PathSegment[] = [];
  for (const [index, ancestor] of path.entries()) {
    if (isPair(ancestor)) {
      const key = keyText(ancestor.key);
      if (key !== undefined) fields.push(key);
    } else if (isSeq(ancestor)) {
      fields.push(ancestor.items.indexOf(path[index + 1] ?? node));
    }
  }
  return fields;
}

interface ValueProblem {
  /** One sentence, worded as validate words the same mistake under `vars:`, without quoting the value given. */
  message: string;
  /** The variables that filled in the value at fault: the fault of the values given. None: the template's own. */
  filledBy: string[];
}

interface AgentProblem extends ValueProblem {
  issue: { path: FieldPath; keyword: string };
}

function agentProblems(template: Template, agent: Record<string, unknown>): AgentProblem[] {
  const problems = [
    ...schemaIssueMessages('AgentSpec', agent, ['agents', template.name]),
    ...webhookUrlProblems(agent).map(({ path, message }) => ({ issue: { path, keyword: 'format' }, message })),
  ];
  return problems.map(({ issue, message }) => {
    const written = nodeAtPlace(template.document, ['agent', ...issue.path], 'value');
    const filledBy = isScalar(written) && typeof written.value === 'string' ? variablesIn(written.value) : [];
    return { issue, message: /[.?!]$/.test(message) ? message : `${message}.`, filledBy };
  });
}

function valueInvalid(template: Template, problem: ValueProblem): VoxformError {
  const { filledBy } = problem;
  return new VoxformError('init_value_invalid', `The value given for ${filledBy.join(', ')} does not fit template ${template.name}: ${problem.message}`, {
    hint: `Give ${filledBy.length === 1 ? 'it' : 'them'} another value (--var ${filledBy[0]}=…).`,
    details: { variables: filledBy },
  });
}

/**
 * The URLs the service would send call data to that are not http(s) URLs. The manifest schema takes
 * any text there (a manifest may fill it from `${env:…}`), but a value given to init is the URL itself.
 */
function webhookUrlProblems(agent: Record<string, unknown>): Array<{ path: FieldPath; message: string }> {
  return callTargets(isPlainObject(agent.config) ? agent.config : {})
    .filter(({ url }) => !hasEnvReference(url) && !httpUrl(url, { credentials: 'allow' }))
    // Not echoed: a URL may carry a token.
    .map((target) => ({ path: ['config', ...target.path], message: `${formatDotted(target.path)} is not an http:// or https:// URL` }));
}

/** The location in template.yaml of the deepest node that exists along a path (with `at: 'key'`, its key). */
function locateIn(template: Template, path: FieldPath, at: 'key' | 'value' = 'value'): SourceLocation {
  return locationOf(template.file, template.lineCounter, nodeAlong(template.document, path, at));
}
