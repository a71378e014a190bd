/**
 * voxform keeps the state (with its deploy history) and the `--local` account in the folder a command
 * runs from. Run from a project's subfolder, a command would start new ones there without a word, and
 * split the project's history (`cd tests && voxform apply -f ..`): one rule says where the project's are.
 */
import { realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { gitWorkTreeRoot } from '../project-files/git.js';
import { pathExists } from '../project-files/guarded-read.js';
import type { CommandContext } from './context.js';

/**
 * The nearest enclosing folder of the same git work tree holding `file`, relative to `cwd`, when
 * `cwd` holds none: outside a git work tree no folder is known to be the project's.
 */
async function enclosingFolderWith(cwd: string, file: string): Promise<string | undefined> {
  const has = (dir: string) => pathExists(path.join(dir, file), { follow: true });
  if (await has(cwd)) return undefined;
  const root = await gitWorkTreeRoot(cwd);
  if (root === undefined) return undefined;
  const here = await realpath(cwd);
  for (let dir = here; dir !== root && dir.startsWith(`${root}${path.sep}`); ) {
    dir = path.dirname(dir);
    if (await has(dir)) return path.relative(here, dir);
  }
  return undefined;
}

/**
 * The first folder of the manifests named with `-f` (a folder named, or a file's) other than `cwd`
 * that holds `file`, relative to `cwd`: whether or not `cwd` holds one too, and in a git work tree or
 * not, the manifests' folder is where their project keeps its own.
 */
async function manifestFolderWith(cwd: string, manifests: readonly string[], file: string): Promise<string | undefined> {
  const here = await realpath(cwd);
  for (const named of manifests) {
    if (named === '-') continue;
    const given = path.resolve(here, named);
    const folder = (await stat(given).then((info) => info.isDirectory(), () => false)) ? given : path.dirname(given);
    const real = await realpath(folder).catch(() => undefined);
    if (real === undefined || real === here) continue;
    if (await pathExists(path.join(real, file), { follow: true })) return path.relative(here, real);
  }
  return undefined;
}

/**
 * Says, on stderr, that `file` is this folder's while the manifests' folder holds another, or that it
 * starts anew in this folder while an enclosing one of the git work tree holds the project's.
 * `what` leads the note (`--local keeps one account per folder, as the state`); `otherwise` ends it;
 * `manifests`: the paths named with `-f`, as given.
 */
export async function notePerFolderFile(
  ctx: Pick<CommandContext, 'cwd' | 'stderr'>,
  file: string,
  what: string,
  otherwise: (theirs: string) => string = () => '',
  manifests: readonly string[] = [],
): Promise<void> {
  const manifestFolder = await manifestFolderWith(ctx.cwd, manifests, file);
  if (manifestFolder !== undefined) {
    const theirs = path.join(manifestFolder, file);
    const ours = (await pathExists(path.join(ctx.cwd, file), { follow: true })) ? `this run uses this folder's, ${file}` : `this folder has none yet, so it starts a new one in ${file}`;
    ctx.stderr.write(`note: ${what}: ${ours}; the manifests' folder ${manifestFolder} holds another, ${theirs}, used when voxform runs from ${manifestFolder}${otherwise(theirs)}.\n`);
    return;
  }
  const enclosing = await enclosingFolderWith(ctx.cwd, file);
  if (enclosing === undefined) return;
  const theirs = path.join(enclosing, file);
  ctx.stderr.write(`note: ${what}: this folder has none yet, so it starts a new one in ${file}; the project's is in ${theirs}, used when voxform runs from ${enclosing}${otherwise(theirs)}.\n`);
}
