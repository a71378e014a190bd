/**
 * Who has an emulator data file open. An emulator that owns its file (`voxform emulator --data`)
 * keeps the account in memory and writes it whole, never reading what another process wrote; the
 * embedded emulators of `--local` commands share theirs, each change made under the file's lock on
 * fresh data (shared-file.ts). Beside an owner, either side's next write undoes the other's changes,
 * so the two never use one file at once, by one rule for every emulator that opens a data file: it
 * names itself in the folder `FILE.users.lock` (a `.lock` name, which the `.gitignore` of `voxform
 * init` leaves out for a file under `.voxform/`, as `.voxform/local.json`) for as long as it has
 * the file open, then looks at the others named there, and takes its name back and refuses the
 * file when one uses it the other way (or is another owner).
 * Named before looking, two started at once cannot both miss each other; at worst both are refused.
 * No lock is taken, so a `--local` command that only reads still never waits on another to start.
 * A name left by a process that no longer runs on this host is removed, as is one of this host and
 * pid that this process did not write (an earlier process with the same pid, as in a container):
 * the rule of `isDead`, shared with the state lock.
 */
import { randomBytes } from 'node:crypto';
import { lstat, mkdir, readdir, rmdir, unlink } from 'node:fs/promises';
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { readKeptJson, writeKeptFile } from '../project-files/kept-files.js';
import { LOCK_HOLDER_JSON_LIMITS } from '../project-files/limits.js';
import { controlsAsQuestionMarks } from '../util/printable.js';
import { describeRun, isDead, ownRecord, runIdentityOf, thisRun, type RunIdentity } from '../util/run-identity.js';

/** `owns`: the file is this emulator's alone; `shares`: with other `--local` commands' emulators only. */
type DataFileUse = 'owns' | 'shares';

interface DataFileUser extends RunIdentity {
  use: DataFileUse;
  /** ISO 8601; an entry not written by voxform may lack it. */
  since?: string;
}

/**
 * Whether naming failed because the data file's folder refuses this process any write: a read-only
 * file system, or a folder this account may not make the users folder in. A users folder another
 * account made (and this one may not write in) says nothing of the data file's folder: refused.
 */
function dataFileFolderRefused(error: NodeJS.ErrnoException): boolean {
  return error.code === 'EROFS' || ((error.code === 'EACCES' || error.code === 'EPERM') && error.syscall === 'mkdir');
}

/** The folder naming the users of `dataFile`: `local.json.users.lock` beside `local.json`. */
function usersFolderOf(dataFile: string): string {
  return `${dataFile}.users.lock`;
}

/**
 * Names this process as a user of `dataFile` (`use`), once no other user stands in its way;
 * resolves to the function that takes the name back. Refused with `emulator_data_in_use`.
 */
export async function openDataFile(dataFile: string, use: DataFileUse): Promise<() => Promise<void>> {
  const folder = usersFolderOf(dataFile);
  const entry = path.join(folder, `${randomBytes(8).toString('hex')}.json`);
  const me: DataFileUser = { ...thisRun(use === 'owns' ? 'voxform emulator --data' : 'voxform … --local', undefined), use, since: new Date().toISOString() };
  const forget = ownRecord(entry);
  const close = async () => {
    forget();
    await unlink(entry).catch(() => undefined);
    // Left while another user is named in it.
    await rmdir(folder).catch(() => undefined);
  };
  try {
    const named = await nameIn(folder, entry, `${JSON.stringify(me)}\n`).then(
      () => true,
      (error: NodeJS.ErrnoException) => (dataFileFolderRefused(error) ? false : Promise.reject(error)),
    );
    // The file system refuses the data file's folder (read-only, or not this account's): the
    // data file is written by a new file beside it and a rename, so this process cannot write
    // it either and undoes nobody's changes, and it runs where it ran before users were named
    // (`--local` over a committed `.voxform/local.json` in a read-only checkout). Nobody else
    // named there is looked for: only a writer needs to know who else writes.
    if (!named) {
      await close();
      return async () => undefined;
    }
    const other = (await otherUsers(folder, entry)).find((user) => use === 'owns' || user.use === 'owns');
    if (other === undefined) return close;
    throw inUseError(dataFile, use, other);
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Writes `entry` into `folder`, made if need be beside the data file (in its folder as it is: a
 * folder that does not exist is the data file's to refuse). The last user to leave removes the
 * folder, which may happen between its making and the write: then it is made again.
 */
async function nameIn(folder: string, entry: string, text: string): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await mkdir(folder).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
      await refuseNonFolder(folder);
    });
    try {
      // Renamed into place (a reader never finds half of it), but not flushed to disk: a crash
      // that loses it also ends this process, whose entry would be dropped anyway.
      return await writeKeptFile(entry, text, { flushed: false, evenOnStop: true });
    } catch (error) {
      const folderGone = await lstat(folder).then(() => false, () => true);
      if (!folderGone || attempt === 3) throw error;
    }
  }
}

/** Refuses a users folder that is something else (a link is checkKeptFolder's to refuse), naming it rather than the data file's folder. */
async function refuseNonFolder(folder: string): Promise<void> {
  const found = await lstat(folder).catch(() => undefined);
  if (found === undefined || found.isDirectory() || found.isSymbolicLink()) return;
  throw new VoxformError('emulator_data_unwritable', `The emulator cannot name itself as a user of its data file: ${folder} is a file, not a folder. It did not start.`, {
    hint: `Remove ${folder}: voxform makes it as a folder, naming in it who has the data file open.`,
  });
}

/** The users named in `folder` but `mine`, each still running; those that no longer run are removed. */
async function otherUsers(folder: string, mine: string): Promise<Array<DataFileUser & { entry: string }>> {
  const names = (await readdir(folder)).filter((name) => name.endsWith('.json'));
  const users: Array<DataFileUser & { entry: string }> = [];
  for (const name of names) {
    const entry = path.join(folder, name);
    if (entry === mine) continue;
    const read = await readKeptJson(entry, LOCK_HOLDER_JSON_LIMITS).catch(() => undefined);
    // Not one voxform wrote (or gone meanwhile): it names no user.
    const value = read?.found && read.ok ? (read.value as Partial<DataFileUser>) : undefined;
    const run = runIdentityOf(value);
    if (!run || (value?.use !== 'owns' && value?.use !== 'shares')) continue;
    if (isDead(run, entry)) {
      await unlink(entry).catch(() => undefined);
      continue;
    }
    users.push({ ...run, use: value.use, ...(typeof value.since === 'string' ? { since: value.since } : {}), entry });
  }
  return users;
}

function inUseError(dataFile: string, use: DataFileUse, other: DataFileUser & { entry: string }): VoxformError {
  const who = describeRun(other);
  const gone = `if that process no longer runs, delete ${controlsAsQuestionMarks(other.entry)}`;
  const details = { user: { pid: other.pid, user: other.user, host: other.host, command: other.command, since: other.since } };
  if (other.use === 'owns') {
    const beside = use === 'owns' ? 'a second emulator' : 'a --local command';
    return new VoxformError('emulator_data_in_use', `The emulator data file ${dataFile} is in use by ${who}, which keeps the account in memory and writes it whole: ${beside} using the file beside it would undo its changes, and it theirs.`, {
      hint:
        use === 'owns'
          ? `Use that emulator, stop it, or point --data at another file (${gone}).`
          : `Point this command at that emulator instead of --local (--base-url with the URL it printed, and its key), or stop it and run the command again (${gone}).`,
      details,
    });
  }
  return new VoxformError('emulator_data_in_use', `The emulator data file ${dataFile} is in use by ${who}, whose embedded emulator shares it with other --local commands only: an emulator that keeps the file as its own would undo their changes, and they its.`, {
    hint: `Wait for that command to end (or stop it), or point --data at another file (${gone}).`,
    details,
  });
}
