/**
 * The agent templates: `templates/<name>/template.yaml` (description, variables, an AgentSpec
 * fragment) beside the Markdown prompt it includes. Reading a template checks its whole shape, so a
 * broken template fails here, with `file:line:col`, and never halfway through `voxform init`. The
 * files are read by template-files.ts, the reader a manifest's `template:` uses too (same guards,
 * same limits).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMap, isScalar, LineCounter, parseDocument, visit, type Document, type Node, type YAMLMap } from 'yaml';
import { VoxformError, type SourceLocation } from '../errors.js';
import { didYouMean } from '../util/did-you-mean.js';
import { variablesIn } from './substitute.js';
import { readTemplateFile, readTemplateInclude, TEMPLATE_FILE, TEMPLATE_KEYS, templateNamesIn, templateRoot, VARIABLE_NAME, type TemplateFileOutcome } from './template-files.js';

export { TEMPLATE_FILE } from './template-files.js';

/** The package's own templates; the same relative place from src/ (tests) and dist/ (the package). */
export const defaultTemplatesDir = fileURLToPath(new URL('../../templates/', import.meta.url));

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


/** Whether a `--template` value names a folder rather than a template of the catalog. */
export function isTemplatePath(name: string): boolean {
  return name.includes('/') || name.includes('\\') || name.startsWith('.');
}

/** Names of the templates in a folder (sub-folders holding a template.yaml), sorted. */
export function templateNames(dir: string = defaultTemplatesDir): string[] {
  try {
    readdirSync(dir);
  } catch (error) {
    throw new VoxformError('template_dir_unreadable', `Cannot read the templates folder ${dir}: ${(error as Error).message}.`);
  }
  return templateNamesIn(dir);
}

/** Every template of a folder, read and checked. */
export async function listTemplates(dir: string = defaultTemplatesDir): Promise<Template[]> {
  const templates: Template[] = [];
  for (const name of templateNames(dir)) templates.push(await readTemplateAt(path.join(dir, name), name));
  return templates;
}

/**
 * A template by name (from `dir`, the package's templates by default) or by path (`./my/template`,
 * relative to `cwd`). An unknown name is an error listing the templates, with a suggestion.
 */
export async function readTemplate(name: string, options: { dir?: string; cwd?: string } = {}): Promise<Template> {
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
export async function readTemplateAt(dir: string, name: string = path.basename(dir)): Promise<Template> {
  const folderRoot = await templateRoot(dir);
  const read = await readTemplateFile(dir, folderRoot);
  const text = readText(read, name);
  const file = read.file;
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
  checkKeys(root, TEMPLATE_KEYS.top, 'at the top of template.yaml', fail);

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
  checkKeys(agent, TEMPLATE_KEYS.agent, 'in agent', fail);

  const declared = new Set(variables.map((v) => v.name));
  checkPlaceholders(agent, declared, { text, file, lineCounter }, name);

  const prompt = await readPromptInclude(agent, { dir, root: folderRoot }, fail);
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
    checkKeys(spec, TEMPLATE_KEYS.variable, `in variable ${varName}`, fail);
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

/** The text of a template file read, or the error for why not. */
function readText(read: TemplateFileOutcome, name: string): string {
  if (!read.ok) throw new VoxformError('template_invalid', `Template ${name}: ${read.file} ${read.message}.`);
  if (read.invalidUtf8At !== undefined) {
    const { line, col } = lineColumn(read.text, read.invalidUtf8At);
    throw new VoxformError('template_invalid', `Template ${name}: ${path.basename(read.file)} is not valid UTF-8 text; save it as UTF-8.`, { location: { file: read.file, line, col } });
  }
  return read.text;
}

function lineColumn(text: string, offset: number): { line: number; col: number } {
  const before = text.slice(0, offset);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, col: offset - lineStart + 1 };
}

/** The prompt file of `config.prompt: { file }`, read inside the template's folder (template-files.ts). */
async function readPromptInclude(agent: YAMLMap, folder: { dir: string; root: string }, fail: Fail): Promise<{ file: string; text: string } | undefined> {
  const config = agent.get('config', true);
  if (!isMap(config)) return undefined;
  const prompt = config.get('prompt', true);
  if (!isMap(prompt)) return undefined;
  const fileNode = prompt.get('file', true);
  const relative = isScalar(fileNode) ? fileNode.value : undefined;
  if (typeof relative !== 'string' || relative === '') return fail(fileNode ?? prompt, 'config.prompt.file must be a path relative to the template folder.');
  if (path.isAbsolute(relative)) return fail(fileNode, `the prompt file ${relative} must be inside the template folder.`);
  const read = await readTemplateInclude(folder.dir, folder.root, relative);
  if (read.ok && read.invalidUtf8At === undefined) return { file: read.file, text: read.text };
  if (read.ok) return fail(fileNode, `the prompt file ${relative} is not valid UTF-8 text; save it as UTF-8.`);
  if (read.reason === 'outside') return fail(fileNode, `the prompt file ${relative} must be inside the template folder.`);
  if (read.reason === 'missing') return fail(fileNode, `the prompt file ${relative} does not exist.`);
  return fail(fileNode, `the prompt file ${relative} ${read.message}.`);
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
