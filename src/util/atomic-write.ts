import { existsSync, lstatSync, readlinkSync, renameSync, rmdirSync, unlinkSync, type Stats } from 'node:fs';
import { mkdir, open, realpath, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { VoxformError } from '../errors.js';
import { printable, toJsonText } from './printable.js';

/** A file's content: whole, or pieces of text or bytes in order. */
export type FileData = string | Uint8Array | Iterable<string | Uint8Array>;

/**
 * Writes a file so that readers see either the old content or the new, never a torn write: the data
 * goes to a temporary file beside the target, is flushed to disk, then renamed over it. `data` may
 * come in pieces (a report made as it is written), each written as it comes. `flushed: false` leaves
 * the flush out, for a file worth nothing once its writer stops (a crash that loses it ends the writer too).
 * Once the run stopped at once, the file is not put in place (`placeNoMoreFiles`) unless `evenOnStop`.
 */
export async function writeFileAtomic(file: string, data: FileData, mode = 0o644, { flushed = true, evenOnStop = false } = {}): Promise<void> {
  // Refused before the data is written beside it too: `/dev` takes no temporary file of ours.
  try {
    refuseSpecialFile(file);
  } catch (error) {
    throw asWriteError(error, file);
  }
  const temp = await writeTempBeside(file, data, mode, flushed);
  try {
    placeTemp(temp, file, evenOnStop);
  } catch (error) {
    await discardTemp(temp);
    throw asWriteError(error, file);
  }
}

/**
 * The temporary files written and neither renamed into place nor removed yet. A run stopped midway
 * (Ctrl-C or SIGTERM: voxform exits with 130 at once) removes them as it exits: otherwise a full copy
 * of a manifest, or half an account, stays beside its target, and `git add -A` commits it.
 */
const unfinishedTemps = new Set<string>();
let removesTempsOnExit = false;

function trackTemp(temp: string): void {
  trackExit();
  unfinishedTemps.add(temp);
}

function trackExit(): void {
  if (removesTempsOnExit) return;
  process.on('exit', removeUnfinishedTemps);
  removesTempsOnExit = true;
}

/**
 * Removes every temporary file not yet in place, then takes back every write set not finished;
 * synchronous, as the last thing a process does.
 */
function removeUnfinishedTemps(): void {
  for (const temp of unfinishedTemps) removeQuietly(() => unlinkSync(temp));
  unfinishedTemps.clear();
  for (const set of unfinishedSets) set.takeBack();
}

function removeQuietly(remove: () => void): void {
  try {
    remove();
  } catch {
    // Gone already, or (a folder) no longer empty: what is not this run's stays.
  }
}

/**
 * Set once the run stopped at once and the process is ending (`placeNoMoreFiles`): a file the
 * command still has under way is then not put in place. The stop said what it left undone, and a
 * file put in place after it (a saved plan nobody saw printed, a report) would contradict it. A
 * record of what the run did (`evenOnStop`: the state, the history, a lock, the local account) is
 * how a stop leaves things consistent, and is put in place.
 */
let processEnding = false;

/** From now on no file but a record written `evenOnStop` is put in place: its temporary file is removed as the process exits, and the file it would replace stays as it was. */
export function placeNoMoreFiles(): void {
  processEnding = true;
}

/** Write sets whose files are not all in place yet (see WriteSet). */
const unfinishedSets = new Set<WriteSet>();

/**
 * Files written all or nothing (what `init` and `export` write): each file goes beside its target
 * under a temporary name, and all are renamed into place once every one is there. The set knows
 * what it made, the folders and the files that were not there before, and until `finish` takes them
 * back when the write fails (`takeBack`) or the run is stopped (Ctrl-C or SIGTERM: as the process
 * exits, with the temporary files), so a stopped write leaves neither an empty folder nor a manifest
 * without its prompts. A file it replaced stays replaced.
 */
export class WriteSet {
  private readonly madeFolders: string[] = [];
  private readonly newFiles: string[] = [];

  constructor() {
    trackExit();
    unfinishedSets.add(this);
  }

  /** Makes `folder` unless it is there (its parent must be). */
  async makeFolder(folder: string): Promise<void> {
    if ((await stat(folder).catch(() => undefined))?.isDirectory()) return;
    await mkdir(folder);
    this.madeFolders.push(folder);
  }

  /** Makes `folder` and each folder above it that is not there, outermost first. */
  async makeFolderPath(folder: string): Promise<void> {
    const chain: string[] = [];
    for (let at = path.resolve(folder); path.dirname(at) !== at; at = path.dirname(at)) chain.unshift(at);
    for (const each of chain) await this.makeFolder(each);
  }

  /** Renames the temporary file `temp` (writeTempBeside) over `target`; `isNew`: nothing was there, so taking back removes it. */
  place(temp: string, target: string, isNew: boolean): void {
    // Noted before the rename: a stop while it runs still takes the file back.
    if (isNew) this.newFiles.push(target);
    placeTemp(temp, target);
  }

  /** Every file is in place: nothing is taken back from now on. */
  finish(): void {
    unfinishedSets.delete(this);
  }

  /** Removes the new files and the folders made, innermost first (temporary files are their writer's to discard). */
  takeBack(): void {
    unfinishedSets.delete(this);
    for (const file of this.newFiles.splice(0)) removeQuietly(() => unlinkSync(file));
    for (const folder of this.madeFolders.splice(0).reverse()) removeQuietly(() => rmdirSync(folder));
  }
}

/**
 * Renames a temporary file of writeTempBeside over its target, in the same turn of the event loop as
 * the caller's next step: no signal is handled between the file being replaced and the caller hearing
 * so (fmt lists a file as it is replaced, and a stop must not come between).
 */
function placeTemp(temp: string, target: string, evenOnStop = false): void {
  if (processEnding && !evenOnStop) throw Object.assign(new Error('the run was stopped before the file was put in place'), { code: STOPPED, syscall: 'rename', path: target });
  refuseSpecialFile(target);
  renameSync(temp, target);
  unfinishedTemps.delete(temp);
}

/** Throws, as the system would, when `target` is a device, a named pipe or a socket (`specialFileKind`). */
function refuseSpecialFile(target: string): void {
  const special = specialFileKind(target);
  if (special !== undefined) throw Object.assign(new Error(`it is ${special}, not a file`), { code: NOT_A_FILE, syscall: 'rename', path: target });
}

/** The errno-style code of a target refused for being a device, a pipe or a socket (`specialFileKind`). */
const NOT_A_FILE = 'EFTYPE';
/** The errno-style code of a file not put in place because the run was stopped (`placeNoMoreFiles`). */
const STOPPED = 'ESTOPPED';

/**
 * What stands at `target` when it is no file a write may replace: a device, a named pipe or a socket
 * is no earlier version of the file, and `--out /dev/stdout` run as root would replace the system's
 * own. A symbolic link is replaced, never written through; a folder the rename refuses itself.
 */
function specialFileKind(target: string): string | undefined {
  let found: Stats;
  try {
    found = lstatSync(target);
  } catch {
    return undefined;
  }
  if (found.isCharacterDevice() || found.isBlockDevice()) return 'a device';
  if (found.isFIFO()) return 'a named pipe';
  return found.isSocket() ? 'a socket' : undefined;
}

/** Removes a temporary file of writeTempBeside that will not be put in place. */
export async function discardTemp(temp: string): Promise<void> {
  await unlink(temp).catch(() => undefined);
  unfinishedTemps.delete(temp);
}

/**
 * A file the user named could not be written. The temporary file is voxform's own business: this
 * error names the user's path (`path`) and says why in plain words (`reason`, describeWriteFailure),
 * so no command can show the system's message about a `.NAME.PID.tmp` file. It keeps the system's
 * errno `code` and `syscall` for callers that decide by them.
 */
export class FileWriteError extends Error {
  readonly code: string | undefined;
  readonly syscall: string | undefined;
  readonly path: string;
  readonly reason: string;

  constructor(file: string, cause: unknown) {
    const reason = describeWriteFailure(cause);
    super(`Cannot write ${file}: ${reason}.`, { cause });
    this.name = 'FileWriteError';
    this.code = (cause as NodeJS.ErrnoException).code;
    this.syscall = (cause as NodeJS.ErrnoException).syscall;
    this.path = file;
    this.reason = reason;
  }
}

/** A file-system error of writing `file` as a FileWriteError; anything else (a bug, a failed data source) passes through. */
function asWriteError(error: unknown, file: string): unknown {
  return isFileSystemError(error) && !(error instanceof FileWriteError) ? new FileWriteError(file, error) : error;
}

/**
 * Writes `data` to a new file beside `target` under a temporary name, flushed to disk unless not
 * `flushed`, and returns that name (for the caller to put in place with placeTemp, or to remove with
 * discardTemp); on failure, or when the run is stopped, nothing is left behind.
 */
export async function writeTempBeside(target: string, data: FileData, mode = 0o644, flushed = true): Promise<string> {
  const temp = path.join(path.dirname(target), `.${path.basename(target)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  // Tracked before it exists: a stop while it is being made still removes it.
  trackTemp(temp);
  const handle = await open(temp, 'wx', mode).catch((error: unknown) => {
    unfinishedTemps.delete(temp);
    throw asWriteError(error, target);
  });
  try {
    if (typeof data === 'string' || data instanceof Uint8Array) await handle.writeFile(data);
    else for (const piece of data) await handle.write(typeof piece === 'string' ? Buffer.from(piece) : piece);
    if (flushed) await handle.sync();
  } catch (error) {
    await handle.close();
    await discardTemp(temp);
    throw asWriteError(error, target);
  }
  await handle.close();
  return temp;
}

/** Why a file or folder could not be written, in words for a message ("… to FILE: its folder does not exist"). */
export function describeWriteFailure(error: unknown): string {
  if (error instanceof FileWriteError) return error.reason;
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOENT':
      return 'its folder does not exist';
    case 'ENOTDIR':
    case 'EEXIST': // from creating its folder
      return describeBrokenLink(brokenLinkOn((error as NodeJS.ErrnoException).path)) ?? 'a part of its folder is a file, not a folder';
    case 'EISDIR':
      return 'it is a folder';
    case NOT_A_FILE:
    case STOPPED:
      return (error as Error).message;
    case 'EACCES':
    case 'EPERM':
      return 'voxform may not write there';
    case 'EROFS':
      return 'the file system is read-only';
    case 'ENOSPC':
      return 'the disk is full';
    case 'EDQUOT':
      return 'the disk quota is used up';
    case 'ENAMETOOLONG':
      return 'a name in its path is too long';
    default:
      return typeof code === 'string' ? `the system refused it (${code})` : (error as Error).message;
  }
}

/**
 * The symbolic link on `file`'s path (it, or a folder above) that leads to nothing: a folder cannot be
 * made through it, and the system says only that something is there.
 */
function brokenLinkOn(file: string | undefined): { link: string; target: string } | undefined {
  if (file === undefined) return undefined;
  for (let at = path.resolve(file); path.dirname(at) !== at; at = path.dirname(at)) {
    try {
      if (lstatSync(at).isSymbolicLink() && !existsSync(at)) return { link: at, target: readlinkSync(at) };
    } catch {
      // Not there: a folder above may be the link.
    }
  }
  return undefined;
}

/** A broken link as a reason; where it points is the repository's text, shown escaped. */
function describeBrokenLink(found: { link: string; target: string } | undefined): string | undefined {
  if (found === undefined) return undefined;
  return `${printable(found.link)} is a broken symbolic link (it points to ${toJsonText(found.target)}, which does not exist)`;
}

/** An error of the file system (it has an errno code such as EACCES and a system call), as opposed to a bug. */
export function isFileSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string' && typeof (error as NodeJS.ErrnoException).syscall === 'string';
}

/**
 * Why `file` cannot be written, or undefined as far as can be told before the work starts: its folder
 * must exist and take a new file (tried: `/proc` takes none), and the file must not be a folder.
 */
export async function findWriteObstacle(file: string): Promise<string | undefined> {
  const folder = path.dirname(file);
  const folderStat = await stat(folder).catch((error: unknown) => error as NodeJS.ErrnoException);
  if (folderStat instanceof Error) return describeWriteFailure(folderStat);
  if (!folderStat.isDirectory()) return `${folder} is a file, not a folder`;
  if ((await stat(file).catch(() => undefined))?.isDirectory()) return 'it is a folder';
  const special = specialFileKind(file);
  if (special !== undefined) return `it is ${special}, not a file`;
  const probe = path.join(folder, `.${path.basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.probe`);
  try {
    await (await open(probe, 'wx', 0o600)).close();
  } catch (error) {
    // The folder exists (checked above): a missing entry means it takes no new files.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no file can be created in its folder' : describeWriteFailure(error);
  }
  await unlink(probe).catch(() => undefined);
  return undefined;
}

/**
 * The refusal of a file where a folder is needed (`path_is_file`, `fileOnTheWay`'s) or of a folder
 * where a file goes (`path_is_folder`), before anything is written: `where` as the output names it,
 * `wanted` what needs the other kind there (`voxform init would make a folder`), `elsewhere` how to
 * choose another place (`init into another folder`).
 */
export function pathInTheWay(found: 'file' | 'folder', where: string, wanted: string, elsewhere: string): VoxformError {
  return new VoxformError(found === 'file' ? 'path_is_file' : 'path_is_folder', `${where} is a ${found}, where ${wanted}.`, { hint: `Move it away, or ${elsewhere}.` });
}

/**
 * The nearest of `folder` and the folders above it that is there, when it is no folder: the file
 * where a folder should be made, which a refusal names (the system would say only ENOTDIR or EEXIST).
 */
export async function fileOnTheWay(folder: string): Promise<string | undefined> {
  for (let dir = folder; ; dir = path.dirname(dir)) {
    const info = await stat(dir).catch(() => undefined);
    if (info !== undefined) return info.isDirectory() ? undefined : dir;
    if (path.dirname(dir) === dir) return undefined;
  }
}

/**
 * Whether `file` is one of `inputs` (absolute paths), links resolved: a report written with `--out`
 * must never replace what its own run read (a mistyped `--out voxform.yaml`).
 */
export async function isOneOf(file: string, inputs: readonly string[]): Promise<boolean> {
  const real = async (name: string): Promise<string> => realpath(name).catch(() => path.resolve(name));
  const target = await real(file);
  // Only a name the target is known by can be it, through a link at most in the folders above.
  const names = new Set([path.basename(file), path.basename(target)]);
  const candidates = inputs.filter((input) => names.has(path.basename(input)));
  return (await Promise.all(candidates.map(real))).includes(target);
}
