/**
 * The one way a template's files are read, for the catalog and a manifest's `template:` alike. A
 * template may come from the repository, which is untrusted, so each file is read under the guarded
 * read: inside the template's own folder, a regular file, within the limit for its role, UTF-8.
 */
import { existsSync, readdirSync, statSync, type Stats } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { decodeUtf8, type TextProblem } from '../project-files/decode.js';
import { MAX_MANIFEST_BYTES, MAX_PROMPT_FILE_BYTES } from '../project-files/limits.js';
import { CheckoutFiles, readProjectFile } from '../project-files/checkout-files.js';
import { failureOf, realFolder, type ReadFailure, type ReadOutcome, type ReadPolicy } from '../project-files/guarded-read.js';
import { TEMPLATE_FILE } from './location.js';

export { TEMPLATE_FILE } from './location.js';

/** A template's name as a manifest's `template:` may give it: a folder name, never a path. */
export const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** The keys of a template.yaml: at the top, in each variable, and of its agent. */
export const TEMPLATE_KEYS = {
  top: ['description', 'variables', 'agent'],
  variable: ['description', 'required', 'default'],
  /** What of an AgentSpec a template may set: `id`, `template` and `vars` belong to the manifest. */
  agent: ['name', 'config', 'knowledge', 'ignore'],
} as const;

/** How a file is read: the guarded read itself, or a cache of it (the manifest loader's FileCache). */
type GuardedRead = (file: string, policy: ReadPolicy) => Promise<ReadOutcome>;

/**
 * The read of the templates `voxform init` scaffolds from: shipped with voxform, or a folder the
 * operator names (`--template ./folder`); a manifest's `template:` is read by the loader's cache,
 * under its rule of what a CI job may read.
 */
const readChosenTemplate: GuardedRead = (file, policy) => readProjectFile(file, policy, CheckoutFiles.ANY);

/** A template file read: its text, or why it could not be read (`message` completes "<file> …"). */
export type TemplateFileOutcome =
  | { ok: true; file: string; bytes: Buffer; text: string; textProblem: TextProblem | undefined }
  | { ok: false; file: string; reason: ReadFailure; message: string };

/** The names of the templates in a folder (sub-folders holding a template.yaml), sorted; [] when it cannot be listed. */
export function templateNamesIn(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return [];
  }
  return entries.filter((entry) => TEMPLATE_NAME.test(entry) && existsSync(path.join(dir, entry, TEMPLATE_FILE))).sort();
}

/** The real path of a template's folder: the root its files must stay inside. */
export const templateRoot: (folder: string) => Promise<string> = realFolder;

async function readText(file: string, policy: ReadPolicy, read: GuardedRead): Promise<TemplateFileOutcome> {
  const outcome = await read(file, policy);
  if (!outcome.ok) return { ok: false, file, reason: outcome.reason, message: outcome.message };
  const decoded = decodeUtf8(outcome.bytes);
  return { ok: true, file, bytes: outcome.bytes, text: decoded.text, textProblem: decoded.problem };
}

/** The policy of a file a template includes (its prompt): inside its folder, at most a prompt file's size. */
export function templateIncludePolicy(root: string): ReadPolicy {
  return { root, maxBytes: MAX_PROMPT_FILE_BYTES };
}

/**
 * What is at a path of a template: `absent` only when the system says nothing is there. One it may
 * not look at (a folder above it without permission) is `unreadable`: reading it says why.
 */
export function lookUpTemplatePath(file: string): Stats | 'absent' | 'unreadable' {
  try {
    return statSync(file);
  } catch (error) {
    return failureOf(error).reason === 'missing' ? 'absent' : 'unreadable';
  }
}

/** Reads the template.yaml in `folder`, at most a manifest's size (`root`: templateRoot). No folder: `missing`; one that may not be looked at: why, at the folder. */
export async function readTemplateFile(folder: string, root: string, read: GuardedRead = readChosenTemplate): Promise<TemplateFileOutcome> {
  const file = path.join(folder, TEMPLATE_FILE);
  const found = await stat(folder).catch((error: unknown) => failureOf(error));
  if ('reason' in found && found.reason !== 'missing') return { ok: false, file: folder, reason: found.reason, message: found.message };
  if ('reason' in found || !found.isDirectory()) return { ok: false, file, reason: 'missing', message: 'does not exist' };
  return readText(file, { root, maxBytes: MAX_MANIFEST_BYTES }, read);
}

/** Reads a file the template in `folder` includes, written relative to the folder. */
export function readTemplateInclude(folder: string, root: string, relative: string): Promise<TemplateFileOutcome> {
  return readText(path.resolve(folder, relative), templateIncludePolicy(root), readChosenTemplate);
}
