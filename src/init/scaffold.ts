/**
 * What `voxform init` writes: a manifest holding the expanded agent, its prompt as Markdown, the
 * editor schema and the `.gitignore` entries. Planned in memory first (pure), then written all or
 * nothing by write-scaffold.ts: a refused or failed init leaves nothing behind.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { Document, isMap, isNode, Pair, Scalar, visit, YAMLMap } from 'yaml';
import { isVoxformError, VoxformError } from '../errors.js';
import { formatDocument, generatedManifestText, manifestTags } from '../format/format-manifest.js';
import { bundleManifestSchema, SCHEMA_FILE, SCHEMA_MODELINE } from '../schema/load.js';
import { validateAgainst } from '../schema/validate.js';
import { ENV_REFERENCE, ENV_REFERENCE_BODY, escapeEnvReferences } from '../secrets/env-reference.js';
import { promptFileFits } from '../format/prompt-file.js';
import { normalizePrompt } from '../manifest/includes.js';
import { isSpareAgentId } from '../emulator/spare-agents.js';
import { formatDotted } from '../util/field-path.js';
import { pluralNoun, wordList } from '../util/plural.js';
import type { Template, VariableValue } from '../templates/catalog.js';
import { expandTemplate } from './expand.js';
import { FilledTextBudget } from '../manifest/filled-text-budget.js';
import { substituteText } from '../templates/substitute.js';
import { schemaIssueMessages } from '../manifest/schema-issues.js';
import { localNameProblem } from '../manifest/names.js';
import { GITIGNORE_ENTRIES } from '../templates/gitignore.js';
import { nodeAtPlace } from '../templates/yaml-place.js';
import { readProjectFile, type CheckoutFiles } from '../project-files/checkout-files.js';
import { pathExists, type ReadOutcome } from '../project-files/guarded-read.js';
import { fileOnTheWay, pathInTheWay } from '../util/atomic-write.js';
import { MAX_MANIFEST_BYTES } from '../project-files/limits.js';
import { DEFAULT_MANIFESTS } from '../project-files/manifest-files.js';

export const MANIFEST_FILE = 'voxform.yaml';

/**
 * One file of a scaffold. `create`: refused when it exists, unless forced. `refresh`: generated,
 * written when missing (replaced only when forced). `merge`: `.gitignore`, missing entries appended.
 */
export interface ScaffoldFile {
  /** Relative to the project folder, with `/`. */
  path: string;
  mode: 'create' | 'refresh' | 'merge';
  /** The content; for `merge`, the lines to make sure of. */
  content: string;
}

export interface Scaffold {
  /** The agent's local name in the manifest (the template's folder name). */
  localName: string;
  files: ScaffoldFile[];
  /** The variables the manifest reads (`${env:NAME}` without a default in its values): needed before plan and apply. */
  envVars: string[];
  /** The prompt file written; none when the template has no prompt, or its prompt stays inline (promptPlace). */
  promptFile: string | undefined;
}

/**
 * The id given for the agent (`--var agent_id=…`, or the answer at the prompt), checked as validate
 * checks it: named as the variable's fault, never as the template's. The value is not echoed.
 */
function refuseAgentId(agentId: string, localName: string): void {
  const problem = schemaIssueMessages('AgentSpec', { id: agentId }, ['agents', localName]).find(({ issue }) => issue.path[0] === 'id');
  if (!problem) return;
  throw new VoxformError('init_value_invalid', `The value given for agent_id does not fit: ${problem.message}.`, {
    hint: 'Give the live agent\'s id, as the service shows it (--var agent_id=…).',
    details: { variables: ['agent_id'] },
  });
}

/** What init knows of its scaffold before any question is asked (scaffoldTargets). */
interface ScaffoldTargets {
  /** The files, with the content of those the values given so far decide. */
  paths: ScaffoldTarget[];
  /** What is known of the manifest, all of it or its outline (manifestOutline): it decides what it keeps of one it replaces. */
  manifest: string;
  /** The scaffold itself, when the values given (and `agentId`) make it. */
  planned?: Scaffold;
  /** Why they do not: a value missing or one that does not fit, or a template that makes no valid manifest. */
  problem?: VoxformError;
}

/**
 * The files a template scaffolds, known before any question is asked, with the content of those the
 * values given so far decide, so that a file holding exactly that is kept, not refused: every file
 * once the values (and `agentId`) make the scaffold; before that, the prompt file's once they hold
 * every variable it uses, and the manifest's outline.
 */
export function scaffoldTargets(template: Template, values: Readonly<Record<string, VariableValue>> = {}, agentId = ''): ScaffoldTargets {
  let problem: VoxformError;
  try {
    const planned = planScaffold({ template, values, agentId });
    return { paths: planned.files, manifest: planned.files.find((file) => file.path === MANIFEST_FILE)?.content ?? '', planned };
  } catch (error) {
    if (!isVoxformError(error)) throw error;
    problem = error;
  }
  const paths: ScaffoldTarget[] = [{ path: MANIFEST_FILE, mode: 'create' }];
  if (template.prompt) {
    // A prompt too long once filled in is not built: `problem` says so.
    const budget = new FilledTextBudget();
    const rendered = substituteText(template.prompt.text, values, (length) => budget.charge(length, 'its variables') === undefined);
    const known = rendered.unknown.length === 0 && rendered.refused === undefined;
    const content = known ? promptFileContent(rendered.text) : undefined;
    // A prompt known to stay inline writes no file.
    if (!known || content !== undefined) paths.push({ path: promptPath(localNameOf(template)), mode: 'create', ...(content === undefined ? {} : { content }) });
  }
  paths.push({ path: SCHEMA_FILE, mode: 'refresh' }, { path: '.gitignore', mode: 'merge' });
  return { paths, manifest: manifestOutline(template, agentId), problem };
}

/** Plans the files for a template, all its variable values and the live agent's id; pure. */
export function planScaffold(input: { template: Template; values: Readonly<Record<string, VariableValue>>; agentId: string }): Scaffold {
  const { template, values, agentId } = input;
  const localName = localNameOf(template);
  refuseAgentId(agentId, localName);
  const expanded = expandTemplate(template, values);
  const promptFile = expanded.prompt ? placePrompt(expanded.node, expanded.prompt.text, promptPath(localName)) : undefined;

  const doc = manifestDocument(template, agentId, { body: expanded.node, promptFile: promptFile?.path });
  formatDocument(doc);
  const manifest = generatedManifestText(doc);

  const issue = validateAgainst('Manifest', doc.toJS())[0];
  if (issue) {
    throw new VoxformError('template_invalid', `Template ${template.name} makes an invalid manifest: ${formatDotted(issue.path)} ${issue.message}.`, {
      hint: 'Fix the template; docs/templates.md describes the format.',
      location: { file: template.file, line: 1, col: 1 },
    });
  }

  const files: ScaffoldFile[] = [{ path: MANIFEST_FILE, mode: 'create', content: manifest }];
  if (promptFile) files.push(promptFile);
  files.push(
    { path: SCHEMA_FILE, mode: 'refresh', content: `${JSON.stringify(bundleManifestSchema(), null, 2)}\n` },
    { path: '.gitignore', mode: 'merge', content: GITIGNORE_ENTRIES.join('\n') },
  );
  return { localName, files, envVars: envReferencesRead(doc), promptFile: promptFile?.path };
}

/**
 * Puts the prompt filled in (`text`) where it goes, by the rule export follows (promptFileFits): into
 * `file`, which the agent's `config.prompt` then names (the file returned), else inline in
 * `config.prompt`, as the prompt that file would have loaded as (`${env:…}` in it kept text), where
 * the manifest writes a hidden character escaped. A comment beside the prompt stays.
 */
function placePrompt(agent: YAMLMap, text: string, file: string): ScaffoldFile | undefined {
  const config = agent.get('config', true);
  const prompt = isMap(config) ? config.get('prompt', true) : undefined;
  if (!isMap(config) || !isMap(prompt)) return undefined;
  const content = promptFileContent(text);
  if (content !== undefined) {
    prompt.set('file', file);
    return { path: file, mode: 'create', content };
  }
  config.set('prompt', Object.assign(new Scalar(escapeEnvReferences(normalizePrompt(ensureNewline(text)))), { commentBefore: prompt.commentBefore, comment: prompt.comment }));
  return undefined;
}

/** What init's prompt file holding the prompt `text` holds; undefined when a file may not hold it (promptFileFits, as export decides). */
function promptFileContent(text: string): string | undefined {
  const content = ensureNewline(text);
  return promptFileFits(normalizePrompt(content)) ? content : undefined;
}

/**
 * What of init's voxform.yaml decides what it keeps of one it replaces (its header, its agent's key
 * and id), known before the values are: the refusal made before anything is asked names what the
 * new one would drop by it. Without a template, no agent is known yet.
 */
export function manifestOutline(template: Template | undefined, agentId: string): string {
  const doc = template === undefined ? new Document({ version: 1 }) : manifestDocument(template, agentId, { promptFile: template.prompt ? promptPath(localNameOf(template)) : undefined });
  return generatedManifestText(doc);
}

/**
 * init's voxform.yaml, unformatted: its header, `version`, and the agent under its local name, `id`
 * (when known) then `body`'s fields. The comments of the template's `agent:` go where the agent's
 * entry is: above `agent:` above its local name, at the end of its block at the end of the entry.
 */
function manifestDocument(template: Template, agentId: string, agentOf: { body?: YAMLMap; promptFile: string | undefined }): Document {
  const { body, promptFile } = agentOf;
  const localName = localNameOf(template);
  const agent = new YAMLMap();
  if (agentId !== '') agent.items.push(new Pair(new Scalar('id'), new Scalar(agentId)));
  if (body) {
    const fields = body.items as Pair[];
    // The comment above the template agent's first key (held by its map) stays above that key, not above the `id:` put before it.
    const first = fields[0]?.key;
    if (body.commentBefore && isNode(first)) first.commentBefore = [body.commentBefore, first.commentBefore].filter((text) => text).join('\n');
    else if (body.commentBefore) agent.commentBefore = body.commentBefore;
    agent.items.push(...fields);
    agent.comment = body.comment;
  }
  const entryKey = new Scalar(localName);
  entryKey.commentBefore = nodeAtPlace(template.document, ['agent'], 'key')?.commentBefore;
  const agents = new YAMLMap();
  agents.items.push(new Pair(entryKey, agent));
  const root = new YAMLMap();
  root.items.push(new Pair(new Scalar('version'), new Scalar(1)), new Pair(new Scalar('agents'), agents));
  const doc = new Document(undefined, { customTags: manifestTags });
  doc.contents = root;
  doc.commentBefore = header(template, agentId, promptFile);
  return doc;
}

export interface WriteResult {
  created: string[];
  overwritten: string[];
  /** `.gitignore` when entries were appended. */
  updated: string[];
  /** Generated files left as they were (already present). */
  kept: string[];
}

/** A file of a scaffold that would overwrite one there; `edited`: a file other than the manifest, read, holding other text (lost if overwritten). */
interface Conflict {
  path: string;
  edited: boolean;
}

/**
 * The files of a scaffold that would overwrite something without `force`, relative to `dir`. A folder
 * where a file goes, or a file where a folder goes, is always refused, before anything is written.
 */
async function findConflicts(dir: string, paths: ReadonlyArray<ScaffoldTarget>, force: boolean, command: string, existing: ExistingFiles): Promise<Conflict[]> {
  const elsewhere = command === 'voxform init' ? 'init into another folder' : 'choose another folder with --out DIR';
  // Each folder to make, and those above `dir` not there yet (made too): a file where one goes is named as such.
  for (const folder of foldersOnTheWay(dir, paths)) {
    const file = await fileOnTheWay(folder);
    if (file !== undefined) throw pathInTheWay('file', file, `${command} would make a folder`, elsewhere);
  }
  const conflicts: Conflict[] = [];
  for (const target of paths) {
    const info = await stat(path.join(dir, target.path)).catch(() => undefined);
    if (!info) continue;
    if (info.isDirectory()) throw pathInTheWay('folder', path.join(dir, target.path), `${command} would write a file`, elsewhere);
    if (target.mode !== 'create' || force) continue;
    const text = await existingText(dir, target, existing);
    // A file holding what would be written is no conflict: writing it changes nothing.
    if (text === undefined || text !== target.content) conflicts.push({ path: target.path, edited: losesText(target, text) });
  }
  return conflicts;
}

/** A file of a scaffold, its content known once the scaffold is planned. */
type ScaffoldTarget = { path: string; mode: ScaffoldFile['mode']; content?: string };

/**
 * How the files a scaffold would replace are read: under the project root (findProjectRoot), and,
 * in a CI job, only when the commit under review holds them (checkout-files.ts). What is read
 * decides what is written, and a replaced manifest's names are printed: a file a job's step wrote
 * (a `.env` a committed link points at) is never read.
 */
export interface ExistingFiles {
  root: string;
  checkout: CheckoutFiles;
}

/** Reads the file a scaffold would replace at `file`, under the rule of `existing`. */
export function readExistingFile(file: string, existing: ExistingFiles, root = existing.root): Promise<ReadOutcome> {
  return readProjectFile(file, { root, maxBytes: MAX_MANIFEST_BYTES }, existing.checkout);
}

/** The text of the file at a target; undefined when missing, unread (no content to compare) or refused. */
async function existingText(dir: string, target: ScaffoldTarget, existing: ExistingFiles): Promise<string | undefined> {
  if (target.content === undefined) return undefined;
  const read = await readExistingFile(path.join(dir, target.path), existing);
  return read.ok ? read.bytes.toString('utf8') : undefined;
}

/**
 * The files of a scaffold other than the manifest (prompts) that exist, may be read and hold other
 * text than it would write: overwriting them loses that text. The manifest's losses are itemised
 * apart (replaced-manifest.ts).
 */
export async function editedFiles(dir: string, paths: ReadonlyArray<ScaffoldTarget>, existing: ExistingFiles): Promise<string[]> {
  const edited: string[] = [];
  for (const target of paths) {
    if (target.mode === 'create' && losesText(target, await existingText(dir, target, existing))) edited.push(target.path);
  }
  return edited;
}

/** Whether writing `target` over `text` (the file there, read; undefined when not) loses text of a file other than the manifest, whose losses are itemised apart. */
function losesText(target: ScaffoldTarget, text: string | undefined): boolean {
  return target.path !== MANIFEST_FILE && text !== undefined && text !== target.content;
}

/** The sentence of the refusal naming `edited` files. */
function editedSaid(edited: readonly string[], command: string): string {
  return `${wordList(edited, 'and')} ${pluralNoun(edited.length, 'differs', 'differ')} from what ${command} would write: ${pluralNoun(edited.length, 'its', 'their')} text there would be lost.`;
}

/** The warning once --force overwrote `edited` files. */
export function editedWarning(edited: readonly string[], command: string): string {
  return `warning: ${wordList(edited, 'and')} differed from what ${command} wrote: ${pluralNoun(edited.length, 'its', 'their')} text there was lost. Restore ${pluralNoun(edited.length, 'it', 'them')} (from git) unless that was meant.\n`;
}

/** `dir` and every folder between it and each target, outermost first, each once. */
export function foldersOnTheWay(dir: string, paths: ReadonlyArray<{ path: string }>): string[] {
  const folders = new Set<string>([dir]);
  for (const target of paths) {
    const parts = path.dirname(target.path).split(/[\\/]/).filter((part) => part !== '' && part !== '.');
    parts.forEach((_, index) => folders.add(path.join(dir, ...parts.slice(0, index + 1))));
  }
  return [...folders];
}

/**
 * The refusal to overwrite `conflicts` without --force; `losses`, when overwriting would lose what
 * the files there define, says what (after the refusal) and how to go on without losing it.
 */
function existingFilesError(dir: string, conflicts: readonly string[], command = 'voxform init', losses?: OverwriteLosses): VoxformError {
  const elsewhere = command === 'voxform init' ? 'init into another folder: voxform init --template NAME DIR' : 'choose another folder with --out DIR';
  return new VoxformError(
    'would_overwrite',
    `${command} would overwrite ${wordList(conflicts, 'and')} in ${dir}, which ${pluralNoun(conflicts.length, 'exists', 'exist')} already; nothing was written.${losses ? ` ${losses.said}` : ''}`,
    { hint: losses?.hint ?? `Pass --force to overwrite, or ${elsewhere}.` },
  );
}

/** What overwriting the files of a scaffold would lose, as the refusal says it. */
export interface OverwriteLosses {
  /** A sentence naming what would be lost. */
  said: string;
  /** How to go on without losing it, and what --force does; none: the plain one. */
  hint?: string | undefined;
}

/** The agent's local name: its template's folder name, refused (before anything is asked) when a manifest cannot take it. */
function localNameOf(template: Template): string {
  const name = path.basename(template.dir);
  const why = localNameProblem(name);
  if (why !== undefined) {
    throw new VoxformError('template_invalid', `voxform init names the agent after the template's folder, and "${name}" ${why}; nothing was written.`, {
      hint: 'Rename the folder, then init again.',
    });
  }
  return name;
}

function promptPath(localName: string): string {
  return `prompts/${localName}.md`;
}

/** The lines of init's header that do not change from one template or agent to the next. */
const HEADER_STEPS = [' Check it, see what would change on the service, then make it so:', '   voxform validate', '   voxform plan', '   voxform apply'];
/** What the header says of a spare agent of the embedded emulator. */
const SPARE_AGENT_NOTE = ' is a spare agent of the embedded emulator: add --local to plan and apply to try it offline.';

function header(template: Template, agentId: string, promptFile: string | undefined): string {
  const lines = [
    ` ${SCHEMA_MODELINE}`,
    ' ',
    ` ${template.description}`,
    ` Created with \`voxform init --template ${template.name}\`.${promptFile ? ` The prompt is in ${promptFile}.` : ''}`,
    ...HEADER_STEPS,
  ];
  if (isSpareAgentId(agentId)) lines.push(` ${agentId}${SPARE_AGENT_NOTE}`);
  return lines.join('\n');
}

/**
 * Whether a comment (its text after `#`, trimmed) is a line of the header init writes itself, for
 * any template and agent: replacing it loses nothing anybody wrote. The template's description is
 * its author's text, and is not one.
 */
export function isInitComment(text: string): boolean {
  return (
    text === '' ||
    text === SCHEMA_MODELINE ||
    HEADER_STEPS.some((line) => line.trim() === text) ||
    /^Created with `voxform init --template [^`]*`\.( The prompt is in prompts\/[^/]*\.md\.)?$/.test(text) ||
    (text.endsWith(SPARE_AGENT_NOTE) && isSpareAgentId(text.slice(0, -SPARE_AGENT_NOTE.length)))
  );
}

/** `${env:NAME}` references that have no `:-default`, in order of first use (an escaped `$${env:NAME}` is text, not one). */
export function envReferences(text: string): string[] {
  const names: string[] = [];
  for (const [, escaped, body] of text.matchAll(ENV_REFERENCE)) {
    const [, name, fallback] = ENV_REFERENCE_BODY.exec(body ?? '') ?? [];
    if (!escaped && name !== undefined && fallback === undefined && !names.includes(name)) names.push(name);
  }
  return names;
}

/**
 * The variables a manifest reads: `${env:NAME}` references without a default in its values. Keys and
 * comments are not interpolated: a reference there is text, and names nothing to set.
 */
function envReferencesRead(doc: Document): string[] {
  const names = new Set<string>();
  visit(doc, {
    Scalar(key, scalar) {
      if (key !== 'key' && typeof scalar.value === 'string') for (const name of envReferences(scalar.value)) names.add(name);
    },
  });
  return [...names];
}

function ensureNewline(text: string): string {
  return text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * The fallback manifest (agents.yaml) in `dir` when it has no voxform.yaml: the one the other
 * commands read there now, and would stop reading once init or export writes voxform.yaml.
 */
export async function shadowedManifest(dir: string): Promise<string | undefined> {
  const [first, fallback] = DEFAULT_MANIFESTS;
  const exists = (file: string) => pathExists(path.join(dir, file), { follow: true });
  return first === MANIFEST_FILE && !(await exists(first)) && (await exists(fallback)) ? fallback : undefined;
}

/**
 * Refuses to write over what is in `dir` without `force`: beside the agents.yaml it would hide,
 * voxform.yaml is refused (`init_would_shadow`), naming as well every file that exists already, since
 * --force overwrites those too; otherwise a file that exists is (`would_overwrite`, with `losses`).
 */
export async function refuseExisting(
  dir: string,
  paths: ReadonlyArray<ScaffoldTarget>,
  options: { force: boolean; displayDir: string; command: 'voxform init' | 'voxform export'; losses?: OverwriteLosses | undefined; existing: ExistingFiles },
): Promise<void> {
  const found = await findConflicts(dir, paths, options.force, options.command, options.existing);
  const conflicts = found.map((conflict) => conflict.path);
  const shadowed = options.force ? undefined : await shadowedManifest(dir);
  if (shadowed !== undefined) throw shadowingError(shadowed, conflicts, options);
  if (conflicts.length === 0) return;
  const edited = found.filter((conflict) => conflict.edited).map((conflict) => conflict.path);
  const said = [options.losses?.said, edited.length > 0 ? editedSaid(edited, options.command) : undefined].filter((part) => part !== undefined).join(' ');
  throw existingFilesError(options.displayDir, conflicts, options.command, said === '' ? undefined : { said, hint: options.losses?.hint });
}

/** The refusal to write voxform.yaml beside `shadowed`; `conflicts`: the other files that exist, which --force would overwrite. */
function shadowingError(shadowed: string, conflicts: readonly string[], options: { displayDir: string; command: 'voxform init' | 'voxform export' }): VoxformError {
  const where = options.displayDir;
  const elsewhere = options.command === 'voxform init' ? 'init into another folder (voxform init --template NAME DIR)' : 'export into another folder (--out DIR)';
  const also = conflicts.length > 0 ? `; it would also overwrite ${wordList(conflicts, 'and')}, which ${pluralNoun(conflicts.length, 'exists', 'exist')} already` : '';
  const forced = conflicts.length > 0 ? `write ${MANIFEST_FILE} and overwrite ${wordList(conflicts, 'and')} all the same` : `write ${MANIFEST_FILE} anyway`;
  return new VoxformError('init_would_shadow', `${options.command} would write ${MANIFEST_FILE} beside ${shadowed} in ${where}: voxform reads ${MANIFEST_FILE} first, so ${shadowed} would no longer be read${also}; nothing was written.`, {
    hint: `Rename ${shadowed} to ${MANIFEST_FILE} to keep it as the project's manifest, ${elsewhere}, or pass --force to ${forced}.`,
  });
}

/** The warning once voxform.yaml was written with --force beside the agents.yaml it hides. */
export function shadowedWarning(shadowed: string, where: string): string {
  return `warning: ${shadowed} in ${where} is no longer read: voxform reads ${MANIFEST_FILE} first.\n  hint: Move its agents into ${MANIFEST_FILE}, or name it with -f ${shadowed}.\n`;
}
