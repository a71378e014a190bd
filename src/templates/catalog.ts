/**
 * The agent templates: `templates/<name>/template.yaml` beside the Markdown prompt it includes.
 * Reading a template checks its whole shape, so a broken template fails here, with `file:line:col`,
 * and never halfway through `voxform init`.
 */
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, LineCounter, visit, type Document, type Node, type YAMLMap } from 'yaml';
import { VoxformError, type SourceLocation } from '../errors.js';
import { didYouMean } from '../util/did-you-mean.js';
import { variablesIn } from './substitute.js';
import { defaultTemplatesDir, TEMPLATE_FILE } from './location.js';
import { lookUpTemplatePath, readTemplateFile, readTemplateInclude, templateNamesIn, templateRoot, type TemplateFileOutcome } from './template-files.js';
import { checkTemplateShape, type DeclaredVariable, type TemplateProblem } from './template-shape.js';
import { locationOf, nodeAtPlace } from './yaml-place.js';
import { parseYamlDocuments, plainYamlValue } from '../yaml/documents.js';
import { MAX_YAML_TOKENS } from '../yaml/limits.js';
import { formatCount } from '../util/plural.js';
import { textPosition } from '../util/text-position.js';

/** What a template's author does about a template that breaks the format. */
const TEMPLATE_FORMAT_HINT = 'Fix the template at the place named; docs/templates.md describes the format.';

export { defaultTemplatesDir, TEMPLATE_FILE } from './location.js';
export { RESERVED_VARIABLES, type VariableValue } from './template-shape.js';

export type TemplateVariable = DeclaredVariable;

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
  /** The parsed template.yaml, positions in `lineCounter`: expansion keeps its comments and styles. */
  document: Document.Parsed;
  lineCounter: LineCounter;
  /** The prompt file the agent includes (`config.prompt: { file }`), read and checked, if any. */
  prompt: { file: string; text: string } | undefined;
}

/** Whether a `--template` value names a folder rather than a template of the catalog. */
function isTemplatePath(name: string): boolean {
  return name.includes('/') || name.includes('\\') || name.startsWith('.');
}

/** Names of the package's templates (sub-folders holding a template.yaml), sorted. */
export function templateNames(): string[] {
  try {
    readdirSync(defaultTemplatesDir);
  } catch (error) {
    throw new VoxformError('template_dir_unreadable', `Cannot read the templates folder ${defaultTemplatesDir}: ${(error as Error).message}.`, { hint: 'Check the path and its permissions.' });
  }
  return templateNamesIn(defaultTemplatesDir);
}

/** Every template of the package, read and checked. */
export async function listTemplates(): Promise<Template[]> {
  const templates: Template[] = [];
  for (const name of templateNames()) templates.push(await readTemplateAt(path.join(defaultTemplatesDir, name), name));
  return templates;
}

/**
 * A template by name (one of the package's templates) or by path (`./my/template`, relative to
 * `cwd`). An unknown name is an error listing the templates, with a suggestion. A built-in name with a
 * trailing slash (`receptionist/`, as a shell completes a folder) is that template when no such folder exists.
 */
export async function readTemplate(name: string, options: { cwd?: string } = {}): Promise<Template> {
  if (isTemplatePath(name)) {
    const folder = path.resolve(options.cwd ?? process.cwd(), name);
    // Only what is absent is said to be missing: a folder this user may not look into is read, and the read says why.
    const found = lookUpTemplatePath(folder);
    if (found === 'absent') {
      const builtIn = name.replace(/[\\/]+$/, '');
      if (!isTemplatePath(builtIn) && templateNames().includes(builtIn)) return readTemplateAt(path.join(defaultTemplatesDir, builtIn), builtIn);
      const suggestion = templateNames().find((known) => known === path.basename(folder));
      throw new VoxformError('template_unknown', `The folder ${folder} does not exist${suggestion ? `; did you mean the template "${suggestion}" (--template ${suggestion})?` : '.'}`, {
        hint: 'Name a built-in template (`voxform templates` lists them) or a folder holding template.yaml and its prompt; see docs/templates.md.',
      });
    }
    if (found !== 'unreadable' && !found.isDirectory()) {
      const folderOfIt = path.basename(folder) === TEMPLATE_FILE ? path.relative(options.cwd ?? process.cwd(), path.dirname(folder)) : undefined;
      throw new VoxformError('template_unknown', `${folder} is a file, not a template folder.`, {
        hint: folderOfIt
          ? `Give the folder that holds template.yaml and its prompt (--template ${folderOfIt}); see docs/templates.md.`
          : 'A template is a folder holding template.yaml and its prompt; see docs/templates.md.',
      });
    }
    if (lookUpTemplatePath(path.join(folder, TEMPLATE_FILE)) === 'absent') {
      throw new VoxformError('template_unknown', `There is no ${TEMPLATE_FILE} in ${folder}.`, {
        hint: 'A template is a folder holding template.yaml and its prompt; see docs/templates.md.',
      });
    }
    return readTemplateAt(folder, name);
  }
  const names = templateNames();
  if (!names.includes(name)) {
    const suggestion = didYouMean(name, names);
    throw new VoxformError(
      'template_unknown',
      `There is no template "${name}"${suggestion ? `; did you mean "${suggestion}"?` : '.'}`,
      { hint: `The templates are: ${names.join(', ')} (see \`voxform templates\`).` },
    );
  }
  return readTemplateAt(path.join(defaultTemplatesDir, name), name);
}

/** Reads and checks one template folder. */
export async function readTemplateAt(dir: string, name: string = path.basename(dir)): Promise<Template> {
  const folderRoot = await templateRoot(dir);
  const read = await readTemplateFile(dir, folderRoot);
  const text = readText(read, name);
  const file = read.file;
  const lineCounter = new LineCounter();
  const { documents, tooLargeAt } = parseYamlDocuments(text, { onNewLine: lineCounter.addNewLine });
  if (tooLargeAt !== undefined) {
    throw new VoxformError('template_invalid', `Template ${name}: it has more than ${formatCount(MAX_YAML_TOKENS)} YAML tokens`, { hint: TEMPLATE_FORMAT_HINT, location: { file, line: 1, col: 1 } });
  }
  const [document, extra] = documents;
  if (!document || extra) {
    throw new VoxformError('template_invalid', `Template ${name}: ${TEMPLATE_FILE} must hold exactly one YAML document`, { hint: TEMPLATE_FORMAT_HINT, location: locate(file, lineCounter, extra?.range[0] ?? 0) });
  }
  const where = (node: Node | null | undefined): SourceLocation => locate(file, lineCounter, node?.range?.[0] ?? 0);
  const fail = (node: Node | null | undefined, message: string): never => {
    throw new VoxformError('template_invalid', `Template ${name}: ${message}`, { hint: TEMPLATE_FORMAT_HINT, location: where(node) });
  };

  const syntax = document.errors[0];
  if (syntax) {
    throw new VoxformError('template_invalid', `Template ${name}: ${firstLine(syntax.message)}`, {
      hint: TEMPLATE_FORMAT_HINT,
      location: locate(file, lineCounter, syntax.pos[0]),
    });
  }
  const shape = checkTemplateShape(plainValue(document, name, file));
  const [problem] = shape.problems;
  if (problem) throw problemError(problem, name, { document, lineCounter, file });
  const agent = document.get('agent', true) as YAMLMap;
  const { description, variables } = shape;

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

  return { name, dir, file, description, variables, document, lineCounter, prompt };
}

type Fail = (node: Node | null | undefined, message: string) => never;

/** The document as plain data for the shape check, within the YAML limits. */
function plainValue(document: Document.Parsed, name: string, file: string): unknown {
  const plain = plainYamlValue(document);
  if (!plain.ok) throw new VoxformError('template_invalid', `Template ${name}: ${plain.problem}`, { hint: TEMPLATE_FORMAT_HINT, location: { file, line: 1, col: 1 } });
  return plain.value;
}

/** The error for the first problem the shape check found, at its place in the file. */
function problemError(problem: TemplateProblem, name: string, parsed: { document: Document.Parsed; lineCounter: LineCounter; file: string }): VoxformError {
  const node = problem.places.map((place) => nodeAtPlace(parsed.document, place.path, place.at)).find((found) => found !== undefined) ?? parsed.document.contents;
  const sentence = /[.?!]$/.test(problem.message) ? problem.message : `${problem.message}.`;
  return new VoxformError('template_invalid', `Template ${name}: ${sentence}`, { hint: TEMPLATE_FORMAT_HINT, location: locationOf(parsed.file, parsed.lineCounter, node) });
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
  if (!read.ok) throw new VoxformError('template_invalid', `Template ${name}: ${read.file} ${read.message}.`, { hint: read.reason === 'unreadable' ? 'Check the path and its permissions.' : TEMPLATE_FORMAT_HINT });
  if (read.textProblem !== undefined) {
    const { line, col } = textPosition(read.text, read.textProblem.at);
    throw new VoxformError('template_invalid', `Template ${name}: ${path.basename(read.file)} ${read.textProblem.message}.`, { hint: TEMPLATE_FORMAT_HINT, location: { file: read.file, line, col } });
  }
  return read.text;
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
  if (read.ok && read.textProblem === undefined) return { file: read.file, text: read.text };
  if (read.ok) return fail(fileNode, `the prompt file ${relative} ${read.textProblem?.message}.`);
  if (read.reason === 'outside') return fail(fileNode, `the prompt file ${relative} must be inside the template folder.`);
  if (read.reason === 'missing') return fail(fileNode, `the prompt file ${relative} does not exist.`);
  return fail(fileNode, `the prompt file ${relative} ${read.message}.`);
}

function locate(file: string, lineCounter: LineCounter, offset: number): SourceLocation {
  const { line, col } = lineCounter.linePos(offset);
  return { file, line, col };
}

function firstLine(message: string): string {
  const line = message.split('\n')[0] ?? message;
  return /[.!?]$/.test(line) ? line : `${line}.`;
}
