/**
 * The agent templates: `templates/<name>/template.yaml` (description, variables, an AgentSpec
 * fragment) beside the Markdown prompt it includes. Reading a template checks its whole shape, so a
 * broken template fails here, with `file:line:col`, and never halfway through `voxform init`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, LineCounter, parseDocument, visit, type Document, type Node, type YAMLMap } from 'yaml';
import { VoxformError, type SourceLocation } from '../errors.js';
import { didYouMean } from '../util/did-you-mean.js';
import { defaultTemplatesDir, TEMPLATE_FILE } from './location.js';
import { variablesIn } from './substitute.js';

export { defaultTemplatesDir, TEMPLATE_FILE } from './location.js';

/**
 * Variables every scaffold has without a template declaring them: `voxform init` asks for the id of
 * the live agent the new manifest adopts. A template may not declare or use them, because a
 * manifest's `template:` + `vars:` expansion has no such values.
 */
export const RESERVED_VARIABLES: readonly string[] = ['agent_id'];

export type VariableValue = string | number | boolean;

export interface TemplateVariable {
  name: string;
  description: string;
  /** True when the template has no default for it: `init` and `vars:` must give a value. */
  required: boolean;
  default: VariableValue | undefined;
}

export interface Template {
  /** The folder's name (`receptionist`), or the path given for a template outside the catalog. */
  name: string;
  /** Absolute path of the template's folder. */
  dir: string;
  /** Absolute path of its template.yaml. */
  file: string;
  description: string;
  /** In declaration order. */
  variables: TemplateVariable[];
  /**
   * The parsed template.yaml, positions kept (`lineCounter`), for expansion that keeps the
   * template's comments and styles and for errors that point into the file.
   */
  document: Document.Parsed;
  lineCounter: LineCounter;
  /** The prompt file the agent includes (`config.prompt: { file }`), read and checked, if any. */
  prompt: { file: string; text: string } | undefined;
}

const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TOP_KEYS = ['description', 'variables', 'agent'];
const VARIABLE_KEYS = ['description', 'required', 'default'];
/** What of an AgentSpec a template may set: `id`, `template` and `vars` belong to the manifest. */
const AGENT_KEYS = ['name', 'config', 'knowledge', 'ignore'];

/** Whether a `--template` value names a folder rather than a template of the catalog. */
export function isTemplatePath(name: string): boolean {
  return name.includes('/') || name.includes('\\') || name.startsWith('.');
}

/** Names of the templates in a folder (sub-folders holding a template.yaml), sorted. */
export function templateNames(dir: string = defaultTemplatesDir): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch (error) {
    throw new VoxformError('template_dir_unreadable', `Cannot read the templates folder ${dir}: ${(error as Error).message}.`);
  }
  return entries.filter((entry) => existsSync(path.join(dir, entry, TEMPLATE_FILE))).sort();
}

/** Every template of a folder, read and checked. */
export function listTemplates(dir: string = defaultTemplatesDir): Template[] {
  return templateNames(dir).map((name) => readTemplateAt(path.join(dir, name), name));
}

/**
 * A template by name (from `dir`, the package's templates by default) or by path (`./my/template`,
 * relative to `cwd`). An unknown name is an error listing the templates, with a suggestion.
 */
export function readTemplate(name: string, options: { dir?: string; cwd?: string } = {}): Template {
  if (isTemplatePath(name)) {
    const folder = path.resolve(options.cwd ?? process.cwd(), name);
    if (!existsSync(path.join(folder, TEMPLATE_FILE))) {
      throw new VoxformError('template_unknown', `There is no ${TEMPLATE_FILE} in ${folder}.`, {
        hint: 'A template is a folder holding template.yaml and its prompt; see docs/templates.md.',
      });
    }
    return readTemplateAt(folder, name);
  }
  const dir = options.dir ?? defaultTemplatesDir;
  const names = templateNames(dir);
  if (!names.includes(name)) {
    const suggestion = didYouMean(name, names);
    throw new VoxformError(
      'template_unknown',
      `There is no template "${name}"${suggestion ? `; did you mean "${suggestion}"?` : '.'}`,
      { hint: `The templates are: ${names.join(', ')} (see \`voxform templates\`).` },
    );
  }
  return readTemplateAt(path.join(dir, name), name);
}

/** Reads and checks one template folder. */
export function readTemplateAt(dir: string, name: string = path.basename(dir)): Template {
  const file = path.join(dir, TEMPLATE_FILE);
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new VoxformError('template_invalid', `Cannot read ${file}: ${(error as Error).message}.`);
  }
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const where = (node: Node | null | undefined): SourceLocation => locate(file, lineCounter, node?.range?.[0] ?? 0);
  const fail = (node: Node | null | undefined, message: string): never => {
    throw new VoxformError('template_invalid', `Template ${name}: ${message}`, { location: where(node) });
  };

  const syntax = document.errors[0];
  if (syntax) {
    throw new VoxformError('template_invalid', `Template ${name}: ${firstLine(syntax.message)}`, {
      location: locate(file, lineCounter, syntax.pos[0]),
    });
  }
  const root = document.contents;
  if (!isMap(root)) return fail(root, `${TEMPLATE_FILE} must be a mapping with description, variables and agent.`);
  checkKeys(root, TOP_KEYS, 'at the top of template.yaml', fail);

  const descriptionNode = root.get('description', true);
  const description: unknown = isScalar(descriptionNode) ? descriptionNode.value : undefined;
  if (typeof description !== 'string' || description.trim() === '') return fail(descriptionNode ?? root, 'needs a one-line description.');
  if (description.trim().includes('\n')) return fail(descriptionNode, 'the description must be one line.');

  const variables = readVariables(root.get('variables', true), fail);

  const agent = root.get('agent', true);
  if (!isMap(agent)) return fail(agent ?? root, 'needs an agent: a mapping with name and config (an agent of a manifest, without id).');
  for (const pair of agent.items) {
    const key = keyName(pair.key);
    if (key === 'id') fail(pair.key as Node, 'a template must not set id: each manifest adopts its own live agent.');
    if (key === 'template' || key === 'vars') fail(pair.key as Node, `a template must not set ${key}: templates do not nest.`);
  }
  checkKeys(agent, AGENT_KEYS, 'in agent', fail);

  const declared = new Set(variables.map((v) => v.name));
  checkPlaceholders(agent, declared, { text, file, lineCounter }, name);

  const prompt = readPromptInclude(agent, dir, fail);
  if (prompt) {
    for (const [index, line] of prompt.text.split('\n').entries()) {
      for (const used of variablesIn(line)) {
        if (declared.has(used)) continue;
        const col = line.search(new RegExp(`\\{\\{\\s*${used}\\s*\\}\\}`)) + 1;
        throw unknownVariable(name, used, [...declared], { file: prompt.file, line: index + 1, col });
      }
    }
  }

  return { name, dir, file, description: description.trim(), variables, document, lineCounter, prompt };
}

type Fail = (node: Node | null | undefined, message: string) => never;

function readVariables(node: unknown, fail: Fail): TemplateVariable[] {
  if (node === undefined || node === null) return [];
  if (!isMap(node)) return fail(node as Node, 'variables must be a mapping of name → { description, required | default }.');
  const variables: TemplateVariable[] = [];
  for (const pair of node.items) {
    const name = keyName(pair.key);
    const keyNode = pair.key as Node;
    if (name === undefined || !VARIABLE_NAME.test(name)) fail(keyNode, `the variable name "${String(name)}" must be letters, digits and _, not starting with a digit.`);
    const varName = name as string;
    if (RESERVED_VARIABLES.includes(varName)) fail(keyNode, `${varName} is built in (every \`voxform init\` asks for it); remove it from variables.`);
    const spec = pair.value;
    if (!isMap(spec)) return fail((spec as Node | null) ?? keyNode, `variable ${varName} must be a mapping with a description and required: true or a default.`);
    checkKeys(spec, VARIABLE_KEYS, `in variable ${varName}`, fail);
    const descNode = spec.get('description', true);
    const description = isScalar(descNode) ? descNode.value : undefined;
    if (typeof description !== 'string' || description.trim() === '') fail(descNode ?? keyNode, `variable ${varName} needs a description.`);
    const requiredNode = spec.get('required', true);
    const required = isScalar(requiredNode) ? requiredNode.value : undefined;
    if (requiredNode !== undefined && typeof required !== 'boolean') fail(requiredNode, `required of variable ${varName} must be true or false.`);
    const defaultNode = spec.get('default', true);
    const defaultValue = isScalar(defaultNode) ? defaultNode.value : undefined;
    if (defaultNode !== undefined && !['string', 'number', 'boolean'].includes(typeof defaultValue)) {
      fail(defaultNode, `the default of variable ${varName} must be a string, a number or a boolean.`);
    }
    if (required === true && defaultNode !== undefined) fail(requiredNode, `variable ${varName} is required and has a default; keep one of the two.`);
    if (required !== true && defaultNode === undefined) fail(keyNode, `variable ${varName} needs required: true or a default.`);
    variables.push({
      name: varName,
      description: (description as string).trim(),
      required: required === true,
      default: defaultValue as VariableValue | undefined,
    });
  }
  return variables;
}

function checkKeys(map: YAMLMap, allowed: readonly string[], where: string, fail: Fail): void {
  for (const pair of map.items) {
    const key = keyName(pair.key);
    if (key !== undefined && allowed.includes(key)) continue;
    const suggestion = key === undefined ? undefined : didYouMean(key, allowed);
    fail(pair.key as Node, `"${String(key)}" is not known ${where}${suggestion ? `; did you mean "${suggestion}"?` : ` (expected ${allowed.join(', ')}).`}`);
  }
}

/** Every `{{name}}` in the agent's keys and values must be a declared variable. */
function checkPlaceholders(agent: YAMLMap, declared: Set<string>, source: { text: string; file: string; lineCounter: LineCounter }, name: string): void {
  visit(agent, {
    Scalar(_key, node) {
      if (typeof node.value !== 'string') return;
      for (const used of variablesIn(node.value)) {
        if (declared.has(used)) continue;
        throw unknownVariable(name, used, [...declared], locate(source.file, source.lineCounter, placeholderOffset(source.text, node, used)));
      }
    },
  });
}

/** Where a placeholder starts in the file: searched in the scalar's own source text, else the scalar's start. */
function placeholderOffset(text: string, node: Node, variable: string): number {
  const [start = 0, end = start] = node.range ?? [];
  const at = text.slice(start, end).search(new RegExp(`\\{\\{\\s*${variable}\\s*\\}\\}`));
  return at >= 0 ? start + at : start;
}

function unknownVariable(template: string, variable: string, declared: string[], location: SourceLocation): VoxformError {
  const suggestion = didYouMean(variable, declared);
  return new VoxformError(
    'template_unknown_variable',
    `Template ${template} uses {{${variable}}}, which it does not declare${suggestion ? `; did you mean {{${suggestion}}}?` : '.'}`,
    { location, hint: `Declare it under variables: in ${TEMPLATE_FILE} (with required: true or a default), or fix the name.` },
  );
}

/** The prompt file of `config.prompt: { file }`, resolved inside the template's folder and read. */
function readPromptInclude(agent: YAMLMap, dir: string, fail: Fail): { file: string; text: string } | undefined {
  const config = agent.get('config', true);
  if (!isMap(config)) return undefined;
  const prompt = config.get('prompt', true);
  if (!isMap(prompt)) return undefined;
  const fileNode = prompt.get('file', true);
  const relative = isScalar(fileNode) ? fileNode.value : undefined;
  if (typeof relative !== 'string' || relative === '') return fail(fileNode ?? prompt, 'config.prompt.file must be a path relative to the template folder.');
  const file = path.resolve(dir, relative);
  const inside = path.relative(dir, file);
  if (inside.startsWith('..') || path.isAbsolute(inside)) return fail(fileNode, `the prompt file ${relative} must be inside the template folder.`);
  if (!existsSync(file) || !statSync(file).isFile()) return fail(fileNode, `the prompt file ${relative} does not exist.`);
  return { file, text: readFileSync(file, 'utf8') };
}

function keyName(key: unknown): string | undefined {
  if (isScalar(key) && (typeof key.value === 'string' || typeof key.value === 'number')) return String(key.value);
  return undefined;
}

function locate(file: string, lineCounter: LineCounter, offset: number): SourceLocation {
  const { line, col } = lineCounter.linePos(offset);
  return { file, line, col };
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return /[.!?]$/.test(line) ? line : `${line}.`;
}
