/**
 * Where voxform may write a file of the project (a manifest, a prompt, `.gitignore`: what `export`,
 * `init` and `fmt` write), by the rule guarded-read.ts holds reads to. The checkout is the pull
 * request's and may hold a symbolic link where voxform writes (`prompts` → `../outside`, `prompts` →
 * `.git/hooks`): written through, it would put a file outside the project, or into git's own folder
 * where git runs hooks. So the real path of the nearest existing folder above the target must lie
 * inside the project root and not inside its `.git` or `.voxform`, and so must the path as written.
 * A link at the target itself is replaced, never written through: every file is put in place by a
 * rename beside it.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { isInside, isSymbolicLink, keptFolderOf } from './guarded-read.js';

/** Why a project file may not be written: `problem` completes "cannot write X: …"; `link` is the link that leads there, to remove. */
interface WriteRefusal {
  problem: string;
  link?: string | undefined;
}

/**
 * Why voxform may not write the project file `target`; undefined when it may. `root` is the project
 * root (a real path, findProjectRoot); `shown` names a path for the message.
 */
export async function projectWriteRefusal(target: string, root: string, shown: (file: string) => string): Promise<WriteRefusal | undefined> {
  const written = path.resolve(target);
  const keptAsWritten = keptFolderOf(root, written);
  if (keptAsWritten !== undefined) return { problem: `it is inside ${keptAsWritten}, where voxform writes no project file` };
  const folder = await realPathOfMaybeMissing(path.dirname(written));
  const outside = !isInside(root, folder);
  const kept = outside ? undefined : keptFolderOf(root, path.join(folder, path.basename(written)));
  if (!outside && kept === undefined) return undefined;
  const link = await innermostLink(path.dirname(written));
  const through = link === undefined ? 'its folder leads' : `${shown(link)} is a symbolic link leading`;
  return { problem: outside ? `${through} outside the project (${root})` : `${through} into ${kept}, where voxform writes no project file`, link };
}

/** The symbolic link nearest to `folder` on its path (it, or a folder above), if any. */
async function innermostLink(folder: string): Promise<string | undefined> {
  for (let at = folder; path.dirname(at) !== at; at = path.dirname(at)) {
    if (await isSymbolicLink(at)) return at;
  }
  return undefined;
}

/** The real path of `file`; for a file not there yet, the real path of the deepest folder above that is, and the rest as written. */
export async function realPathOfMaybeMissing(file: string): Promise<string> {
  const rest: string[] = [];
  for (let at = file; ; at = path.dirname(at)) {
    const real = await realpath(at).catch(() => undefined);
    if (real !== undefined) return path.join(real, ...rest.reverse());
    if (path.dirname(at) === at) return file;
    rest.push(path.basename(at));
  }
}
