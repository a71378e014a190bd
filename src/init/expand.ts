/**
 * Turns a template and its variable values into an agent checked against the AgentSpec. Works on a
 * copy of the template's YAML nodes, so its comments and styles carry over into what `init` writes.
 */
import { isScalar, Scalar, visit, type YAMLMap } from 'yaml';
import { VoxformError, type SourceLocation } from '../errors.js';
import { schemaIssueMessages } from '../manifest/schema-issues.js';
import { callTargets } from '../policy/places.js';
import { escapeEnvReferences, hasEnvReference } from '../secrets/env-reference.js';
import { formatDotted, type FieldPath } from '../util/field-path.js';
import { httpUrl } from '../util/http-url.js';
import { isPlainObject } from '../util/json-object.js';
import { locationOf, nodeAlong, nodeAtPlace } from '../templates/yaml-place.js';
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
 * Matches given values to a template's variables. A string (as `--var` values are) takes the type of
 * a number or boolean default when it reads as one; an empty string is no value: a required variable
 * is then missing, an optional one takes its default.
 */
export function resolveVariables(template: Template, given: Readonly<Record<string, VariableValue>>): ResolvedVariables {
  const declared = new Map(template.variables.map((v) => [v.name, v]));
  const unknown = Object.keys(given).filter((name) => !declared.has(name));
  const values: Record<string, VariableValue> = {};
  const missing: TemplateVariable[] = [];
  for (const variable of template.variables) {
    const value = Object.hasOwn(given, variable.name) ? given[variable.name] : undefined;
    if (value !== undefined && value !== '') values[variable.name] = coerce(value, variable.default);
    else if (variable.default !== undefined) values[variable.name] = variable.default;
    else missing.push(variable);
  }
  return { values, missing, unknown };
}

function coerce(value: VariableValue, like: VariableValue | undefined): VariableValue {
  if (typeof value !== 'string') return value;
  if (typeof like === 'number' && /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/.test(value.trim())) return Number(value);
  if (typeof like === 'boolean' && /^(true|false)$/.test(value.trim())) return value.trim() === 'true';
  return value;
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
  const node = expandNodes(template, values);
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
  const prompt = template.prompt ? { text: substituteText(template.prompt.text, values).text, source: template.prompt.file } : undefined;
  return { node, agent, prompt };
}

/** A copy of the template's agent with the values in place of its variables, unchecked. */
function expandNodes(template: Template, values: TemplateVars): YAMLMap {
  const original = template.document.get('agent', true) as YAMLMap;
  const node = original.clone() as YAMLMap;
  // A value is text: `${env:…}` in it is escaped where the manifest would read it as a reference (values, not keys; a prompt file is not interpolated).
  const asText = Object.fromEntries(Object.entries(values).map(([name, value]) => [name, typeof value === 'string' ? escapeEnvReferences(value) : value]));
  visit(node, {
    Scalar(key, scalar) {
      if (typeof scalar.value !== 'string') return;
      if (key === 'key') {
        scalar.value = substituteText(scalar.value, values).text;
        return;
      }
      const { value } = substituteValue(scalar.value, asText);
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
  const agent = expandNodes(template, { ...placeholders, ...values }).toJSON() as Record<string, unknown>;
  const problem = agentProblems(template, agent).find(({ filledBy }) => filledBy.includes(answered) && filledBy.every((name) => !pending.includes(name)));
  return problem && valueInvalid(template, problem);
}

interface AgentProblem {
  issue: { path: FieldPath; keyword: string };
  /** One sentence, worded as validate words the same mistake under `vars:`, without quoting the value given. */
  message: string;
  /** The variables that filled in the value at fault: the fault of the values given. None: the template's own. */
  filledBy: string[];
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

function valueInvalid(template: Template, problem: AgentProblem): VoxformError {
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
