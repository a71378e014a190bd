/**
 * Writes a scaffold (what `voxform init` and `voxform export` make) all or nothing: every target is
 * checked first, every file written beside its target under a temporary name, and only then all
 * renamed into place (a WriteSet). On a failure, or a stop by Ctrl-C, what was made is removed again:
 * a project never holds a manifest without its prompts, and running the command again works.
 */
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { describeWriteFailure, discardTemp, FileWriteError, writeTempBeside, WriteSet } from '../util/atomic-write.js';
import { mergeGitignore } from '../templates/gitignore.js';
import { refuseOwnFile, type OwnFiles } from '../project-files/own-files.js';
import type { CheckoutFiles } from '../project-files/checkout-files.js';
import { findProjectRoot, pathExists, realFolder } from '../project-files/guarded-read.js';
import { projectWriteRefusal } from '../project-files/guarded-write.js';
import { checkKeptFolder } from '../project-files/kept-files.js';
import { printable } from '../util/printable.js';
import { shellWord } from '../util/shell-word.js';
import { foldersOnTheWay, readExistingFile, refuseExisting, type ExistingFiles, type OverwriteLosses, type ScaffoldFile, type WriteResult } from './scaffold.js';

/** voxform's own folder in a project: the editor schema's. */
const OWN_FOLDER = '.voxform';

function isOwnFile(file: { path: string }): boolean {
  return file.path.startsWith(`${OWN_FOLDER}/`);
}

/** A file to put in place: its target, its content, and what the report calls it. */
interface Pending {
  file: ScaffoldFile;
  target: string;
  content: string;
  outcome: keyof WriteResult;
  /** Its temporary name while it is written; none once it is in place. */
  temp?: string | undefined;
}

/** What to do with one file: its new content (none: leave it), and how the report lists it (not at all: none). */
interface FilePlan {
  content: string | undefined;
  outcome: keyof WriteResult | undefined;
}

/** Which command writes, for its messages: `voxform init` or `voxform export`. */
type ScaffoldingCommand = 'voxform init' | 'voxform export';

/** Where a scaffold goes, as its checks name it. */
interface ScaffoldPlace {
  /** `dir` as the user named it, for messages. */
  displayDir: string;
  command: ScaffoldingCommand;
  /** What the folder must not be (ownFileProblem): voxform's own folder, the state's. */
  own: OwnFiles;
}

interface WriteScaffoldOptions extends Omit<ScaffoldPlace, 'own'> {
  /** Overwrite files the scaffold creates. */
  force: boolean;
  /** How existing files are read: under the project root refuseOutsideProject found when it checked the place of every file. */
  existing: ExistingFiles;
  /** What overwriting would lose, said when it is refused: what the replaced manifest defines that the new one drops. */
  losses?: OverwriteLosses | undefined;
}

/** Writes `files` into `dir` (made if needed), all or nothing; refuseOwnFolder and refuseOutsideProject have passed them. */
export async function writeScaffold(dir: string, files: readonly ScaffoldFile[], options: WriteScaffoldOptions): Promise<WriteResult> {
  await refuseExisting(dir, files, options);
  const result: WriteResult = { created: [], overwritten: [], updated: [], kept: [] };
  const pending: Pending[] = [];
  for (const file of files) {
    const next = await planFile(dir, file, options);
    if (next.outcome === undefined) continue;
    if (next.content === undefined) result[next.outcome].push(file.path);
    else pending.push({ file, target: path.join(dir, file.path), content: next.content, outcome: next.outcome });
  }
  const written = new WriteSet();
  try {
    for (const folder of foldersFor(dir, pending)) await written.makeFolder(folder);
    for (const item of pending) item.temp = await writeTempBeside(item.target, item.content);
    for (const item of pending) {
      written.place(item.temp as string, item.target, item.outcome === 'created');
      item.temp = undefined;
      result[item.outcome].push(item.file.path);
    }
  } catch (error) {
    for (const item of pending) if (item.temp !== undefined) await discardTemp(item.temp);
    written.takeBack();
    throw writeFailed(error, options, result);
  }
  written.finish();
  return result;
}

/** Refuses to scaffold into voxform's own folder (`.voxform`, the state's lock or history): a manifest there is read by nothing and breaks what is. */
export async function refuseOwnFolder(dir: string, options: ScaffoldPlace): Promise<void> {
  const [code, elsewhere] = commandWords(options.command);
  await refuseOwnFile(dir, { ...options.own, writes: 'folder' }, { code, cannot: `${options.command} cannot write into ${options.displayDir}`, outcome: 'nothing was written', hint: `${elsewhere[0]?.toUpperCase()}${elsewhere.slice(1)}.` });
}

/** The error code of a failed write of `command`, and how to write elsewhere. */
function commandWords(command: ScaffoldingCommand): readonly ['init_write_failed' | 'export_write_failed', string] {
  return command === 'voxform init' ? ['init_write_failed', 'init into another folder'] : ['export_write_failed', 'choose another folder with --out DIR'];
}

async function planFile(dir: string, file: ScaffoldFile, how: Pick<WriteScaffoldOptions, 'force' | 'existing' | 'displayDir' | 'command'>): Promise<FilePlan> {
  const target = path.join(dir, file.path);
  // voxform's own file is read within its own folder, which refuseOutsideProject found a real one.
  const existing = await readExisting(target, how.existing, isOwnFile(file) ? await realFolder(path.dirname(target)) : how.existing.root);
  if (file.mode === 'merge') {
    if (existing.refused !== undefined) throw unmergeable(file.path, existing.refused, how);
    const merged = mergeGitignore(existing.text, file.content.split('\n'));
    if (merged === undefined) return { content: undefined, outcome: undefined };
    return { content: merged, outcome: existing.text === undefined ? 'created' : 'updated' };
  }
  if (existing.text === undefined && existing.refused === undefined) return { content: file.content, outcome: 'created' };
  if (file.mode === 'refresh' && !how.force) return { content: undefined, outcome: 'kept' };
  // A file that may not be read (a link out of the project, a FIFO) is replaced, never read or written through.
  return existing.text === file.content ? { content: undefined, outcome: 'kept' } : { content: file.content, outcome: 'overwritten' };
}

/**
 * What is at a target now, read under the rule of every file of the project (readExistingFile): its
 * text, nothing, or why it may not be read (a link out of the project or into `.git`, a FIFO, too
 * large, in a CI job a file the commit does not hold).
 */
async function readExisting(target: string, existing: ExistingFiles, root: string): Promise<{ text?: string; refused?: string }> {
  if (!(await pathExists(target, { follow: false }))) return {};
  const outcome = await readExistingFile(target, existing, root);
  if (outcome.ok) return { text: outcome.bytes.toString('utf8') };
  return outcome.reason === 'missing' ? {} : { refused: outcome.message };
}

/** The error of a `.gitignore` whose lines cannot be read to add to them: it is never replaced unread. */
function unmergeable(file: string, problem: string, how: Pick<WriteScaffoldOptions, 'displayDir' | 'command'>): VoxformError {
  const [code, elsewhere] = commandWords(how.command);
  return new VoxformError(code, `${how.command} cannot add its lines to ${printable(file)} in ${printable(how.displayDir)}: it ${problem}; nothing was written.`, {
    hint: `Replace it with a regular file of the project (\`rm ${shellWord(file)}\` removes a link; ${how.command} then writes a new one), or ${elsewhere}.`,
  });
}

/**
 * Refuses a scaffold any of whose files would land outside the project or inside its `.git` or
 * `.voxform` (projectWriteRefusal), before anything is written. The editor schema is voxform's own
 * file in the project's `.voxform`, which must be a real folder (checkKeptFolder). Resolves to how
 * the write reads existing files: under the project root (findProjectRoot, unless given: found for
 * files checked before), by `checkout`'s rule.
 */
export async function refuseOutsideProject(
  dir: string,
  files: ReadonlyArray<{ path: string }>,
  options: ScaffoldPlace & { root?: string; checkout: CheckoutFiles },
): Promise<ExistingFiles> {
  const root = options.root ?? (await findProjectRoot(dir, options.own.cwd));
  const shown = (file: string) => printable(path.relative(options.own.cwd, file) || '.');
  for (const file of files) {
    const own = isOwnFile(file);
    const target = path.join(dir, own ? OWN_FOLDER : file.path);
    const refusal = await projectWriteRefusal(target, root, shown);
    if (refusal !== undefined) {
      const [code, elsewhere] = commandWords(options.command);
      const unlink = refusal.link === undefined ? '' : `Remove the link ${shellWord(path.relative(options.own.cwd, refusal.link))} (git rm it if it is committed) and make it a real folder, or `;
      throw new VoxformError(code, `${options.command} cannot write ${shown(target)}: ${refusal.problem}; nothing was written.`, {
        hint: unlink === '' ? `${elsewhere[0]?.toUpperCase()}${elsewhere.slice(1)}.` : `${unlink}${elsewhere}.`,
      });
    }
    if (own) await checkKeptFolder(path.dirname(path.join(dir, file.path)));
  }
  return { root, checkout: options.checkout };
}

/** `dir`'s ancestors, `dir`, and every folder on the way to each file, outermost first, each once. */
function foldersFor(dir: string, pending: readonly Pending[]): string[] {
  const ancestors: string[] = [];
  for (let at = path.dirname(dir); path.dirname(at) !== at; at = path.dirname(at)) ancestors.unshift(at);
  return [...ancestors, ...foldersOnTheWay(dir, pending.map((item) => item.file))];
}

/** The error of a failed write: what failed where, and what was left. Any other error passes through. */
function writeFailed(error: unknown, options: WriteScaffoldOptions, result: WriteResult): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const at = (error as NodeJS.ErrnoException | undefined)?.path;
  if (typeof code !== 'string' || typeof at !== 'string') return error;
  // A file that could not be made is named by its folder (as a rename's temporary file is).
  const folder = error instanceof FileWriteError || path.basename(at).endsWith('.tmp') ? path.dirname(at) : at;
  const reason = describeWriteFailure(error);
  // Only a rename can fail after another succeeded: what it had replaced stays replaced.
  const left = result.overwritten.length > 0 ? `; ${result.overwritten.join(', ')} had already been replaced` : '; nothing was written';
  const [errorCode, elsewhere] = commandWords(options.command);
  // A reason that names the place itself (a broken link) needs no second naming.
  const where = reason.includes(folder) ? '' : ` (${folder})`;
  return new VoxformError(errorCode, `${options.command} cannot write into ${options.displayDir}: ${reason}${where}${left}.`, {
    hint: `Make the folder writable for this user, or ${elsewhere}.`,
    cause: error,
  });
}
