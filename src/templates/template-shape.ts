/**
 * The rules a template.yaml must follow, checked in one place for the catalog and for a manifest's
 * `template:`. Each problem names its place by path; each reader points into the file its own way.
 */
import { didYouMean } from '../util/did-you-mean.js';
import { isPlainObject } from '../util/json-object.js';
import type { FieldPath, PathSegment } from '../util/field-path.js';
import { TEMPLATE_FILE, TEMPLATE_KEYS, VARIABLE_NAME } from './template-files.js';

/**
 * Variables `voxform init` supplies itself (the live agent's id). A template may not declare or use
 * them: a manifest's `template:` + `vars:` expansion has no such values.
 */
export const RESERVED_VARIABLES: readonly string[] = ['agent_id'];

export type VariableValue = string | number | boolean;

export interface DeclaredVariable {
  name: string;
  description: string;
  /** True when the template has no default for it: `init` and `vars:` must give a value. */
  required: boolean;
  default: VariableValue | undefined;
}

/** A place in template.yaml: the key or the value at a path; the first of a problem's places that exists is shown. */
export interface TemplatePlace {
  path: FieldPath;
  at: 'key' | 'value';
}

export interface TemplateProblem {
  code: 'template_invalid' | 'unknown_field';
  /** A sentence without its final full stop: `variable city needs a description`. */
  message: string;
  places: TemplatePlace[];
}

interface TemplateShape {
  problems: TemplateProblem[];
  description: string;
  /** In declaration order. */
  variables: DeclaredVariable[];
  /** The agent fragment, when it is a mapping. */
  agent: Record<string, unknown> | undefined;
}

const value = (...path: PathSegment[]): TemplatePlace => ({ path, at: 'value' });
const key = (...path: PathSegment[]): TemplatePlace => ({ path, at: 'key' });
const SCALAR_TYPES = ['string', 'number', 'boolean'];

/** Every problem of a parsed template.yaml, in file order within each part, with what could be read. */
export function checkTemplateShape(root: unknown): TemplateShape {
  const problems: TemplateProblem[] = [];
  const invalid = (message: string, ...places: TemplatePlace[]): void => {
    problems.push({ code: 'template_invalid', message, places });
  };
  if (!isPlainObject(root)) {
    invalid(`${TEMPLATE_FILE} must be a mapping with description, variables and agent`, value());
    return { problems, description: '', variables: [], agent: undefined };
  }
  unknownKeys(root, [], TEMPLATE_KEYS.top, `at the top of ${TEMPLATE_FILE}`, problems);
  const description = root.description;
  if (typeof description !== 'string' || description.trim() === '') invalid('needs a one-line description', value('description'), value());
  else if (description.trim().includes('\n')) invalid('the description must be one line', value('description'));
  const variables = checkVariables(root.variables, problems);
  const agent = root.agent;
  if (!isPlainObject(agent)) {
    invalid('needs an agent: a mapping with name and config (an agent of a manifest, without id)', value('agent'), value());
    return { problems, description: typeof description === 'string' ? description.trim() : '', variables, agent: undefined };
  }
  for (const name of Object.keys(agent)) {
    if (name === 'id') invalid('a template must not set id: each manifest adopts its own live agent', key('agent', name));
    else if (name === 'template' || name === 'vars') invalid(`a template must not set ${name}: templates do not nest`, key('agent', name));
  }
  unknownKeys(agent, ['agent'], TEMPLATE_KEYS.agent, 'in agent', problems, ['id', 'template', 'vars']);
  return { problems, description: typeof description === 'string' ? description.trim() : '', variables, agent };
}

function unknownKeys(
  map: Record<string, unknown>,
  at: readonly string[],
  allowed: readonly string[],
  where: string,
  problems: TemplateProblem[],
  reportedElsewhere: readonly string[] = [],
): void {
  for (const name of Object.keys(map)) {
    if (allowed.includes(name) || reportedElsewhere.includes(name)) continue;
    const suggestion = didYouMean(name, allowed);
    problems.push({
      code: 'unknown_field',
      message: `"${name}" is not known ${where}${suggestion ? `; did you mean "${suggestion}"?` : ` (expected ${allowed.join(', ')})`}`,
      places: [key(...at, name)],
    });
  }
}

function checkVariables(section: unknown, problems: TemplateProblem[]): DeclaredVariable[] {
  const variables: DeclaredVariable[] = [];
  if (section === undefined || section === null) return variables;
  if (!isPlainObject(section)) {
    problems.push({ code: 'template_invalid', message: 'variables must be a mapping of name → { description, required: true | default }', places: [value('variables')] });
    return variables;
  }
  for (const [name, spec] of Object.entries(section)) {
    const declared = checkVariable(name, spec, problems);
    if (declared) variables.push(declared);
  }
  return variables;
}

function checkVariable(name: string, spec: unknown, problems: TemplateProblem[]): DeclaredVariable | undefined {
  const invalid = (message: string, ...places: TemplatePlace[]): void => {
    problems.push({ code: 'template_invalid', message, places });
  };
  const at = ['variables', name];
  if (!VARIABLE_NAME.test(name)) {
    invalid(`the variable name "${name}" must be letters, digits and _, not starting with a digit`, key(...at));
    return undefined;
  }
  if (RESERVED_VARIABLES.includes(name)) {
    invalid(`${name} is built in (every \`voxform init\` asks for it); remove it from variables`, key(...at));
    return undefined;
  }
  if (!isPlainObject(spec)) {
    invalid(`variable ${name} must be a mapping with a description and required: true or a default`, value(...at), key(...at));
    return undefined;
  }
  unknownKeys(spec, at, TEMPLATE_KEYS.variable, `in variable ${name}`, problems);
  const { description, required } = spec;
  const hasDefault = Object.hasOwn(spec, 'default');
  const fallback = spec.default;
  if (typeof description !== 'string' || description.trim() === '') invalid(`variable ${name} needs a description`, value(...at, 'description'), key(...at));
  if (required !== undefined && typeof required !== 'boolean') invalid(`required of variable ${name} must be true or false`, value(...at, 'required'), key(...at));
  if (hasDefault && !SCALAR_TYPES.includes(typeof fallback)) invalid(`the default of variable ${name} must be a string, a number or a boolean`, value(...at, 'default'), key(...at));
  if (required === true && hasDefault) invalid(`variable ${name} is required and has a default; keep one of the two`, value(...at, 'required'), key(...at));
  if (required !== true && !hasDefault) invalid(`variable ${name} needs required: true or a default`, key(...at));
  return {
    name,
    description: typeof description === 'string' ? description.trim() : '',
    required: required === true,
    default: SCALAR_TYPES.includes(typeof fallback) ? (fallback as VariableValue) : undefined,
  };
}
