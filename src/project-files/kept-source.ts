/**
 * Where the readers of kept files (the state file, the deploy ledger's records) take them from: the
 * work tree, or a git revision. A committed `.voxform/` is the pull request's to edit or delete, and
 * the base revision the operator names is the one copy of it the pull request cannot touch: the
 * same readers, with the same checks and budgets, read either (src/state/state-at-revision.ts).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { checkKeptFolder, parseKeptJson, readKeptJson, type KeptFile, type KeptJsonLimits } from './kept-files.js';
import { pathFromRoot, type GitRepository } from './git.js';
import { formatCount } from '../util/plural.js';
import { formatSize } from '../util/size.js';

export interface KeptFileSource {
  /** Refuses a folder its kept files may not be read from (a linked folder of the work tree). */
  checkFolder(folder: string): Promise<void>;
  /** The names in a folder, as readdir gives them; throws as readdir does (ENOENT: no such folder). */
  list(folder: string): Promise<string[]>;
  /** A kept file's JSON value, read under the guards of kept files and within `limits`. */
  readJson(file: string, limits: KeptJsonLimits): Promise<KeptFile<unknown>>;
}

/** The files as they are in the work tree. */
export const WORK_TREE: KeptFileSource = {
  checkFolder: checkKeptFolder,
  list: (folder) => readdir(folder),
  readJson: readKeptJson,
};

/** An entry of `git ls-tree -l -z`: `MODE TYPE OBJECT SIZE<TAB>PATH`. */
interface TreeEntry {
  mode: string;
  type: string;
  object: string;
  size: number;
  path: string;
}

function treeEntries(listing: string): TreeEntry[] {
  return listing.split('\0').flatMap((entry) => {
    const tab = entry.indexOf('\t');
    const [mode, type, object, size] = entry.slice(0, tab).split(/ +/);
    return tab > 0 && mode && type && object ? [{ mode, type, object, size: Number(size), path: entry.slice(tab + 1) }] : [];
  });
}

/** What `git ls-tree` may print for one folder of the ledger: far more records than any ledger holds. */
const MAX_FOLDER_LISTING_BYTES = 8 * 1024 * 1024;

/**
 * The files as commit `commit` of `repository` holds them, asked of git alone (`ls-tree`, `cat-file`):
 * nothing of the work tree is read. A file outside the repository, or that the commit does not hold,
 * is not found; only a regular file is read (a link or a submodule is refused, as in the work tree).
 * `unreadable` makes the error for what git cannot answer: what the commit holds is then unknown.
 */
export function keptFilesAtCommit(repository: GitRepository, commit: string, unreadable: (why: string) => Error): KeptFileSource {
  /** What the folders listed so far hold, by path from the root: a record listed is read without asking again. */
  const listed = new Map<string, TreeEntry>();
  async function entries(at: string): Promise<TreeEntry[]> {
    // Literal: a folder named `*` is that folder, not a pattern.
    const answer = await repository.run(['--literal-pathspecs', 'ls-tree', '-l', '-z', commit, '--', at], { maxOutput: MAX_FOLDER_LISTING_BYTES, keepBlankLines: true });
    if (!answer) throw unreadable(`cannot be listed at ${at}`);
    if (answer.cut) throw unreadable(`has more files at ${at} than voxform lists`);
    return treeEntries(answer.lines.join('\n'));
  }
  return {
    // Git names a path inside the commit's trees: a link there is never followed.
    checkFolder: () => Promise.resolve(),
    async list(folder) {
      const at = pathFromRoot(repository.root, folder);
      const found = at === undefined || at === '' ? [] : await entries(`${at}/`);
      if (found.length === 0) throw Object.assign(new Error(`${folder} is not in the commit`), { code: 'ENOENT' });
      for (const entry of found) listed.set(entry.path, entry);
      return found.map((entry) => path.posix.basename(entry.path));
    },
    async readJson(file, limits) {
      const at = pathFromRoot(repository.root, file);
      if (at === undefined || at === '') return { found: false };
      const entry = listed.get(at) ?? (await entries(at)).find((candidate) => candidate.path === at);
      if (!entry) return { found: false };
      if (entry.type !== 'blob' || (entry.mode !== '100644' && entry.mode !== '100755')) {
        return { found: true, ok: false, reason: 'refused', problem: entry.mode === '120000' ? 'is a symbolic link' : 'is not a regular file' };
      }
      if (!(entry.size <= limits.maxBytes)) return { found: true, ok: false, reason: 'refused', problem: `is ${formatCount(entry.size)} bytes; the limit is ${formatSize(limits.maxBytes)}` };
      const shown = await repository.run(['cat-file', 'blob', entry.object], { maxOutput: limits.maxBytes + 1, keepBlankLines: true });
      if (!shown || shown.cut) throw unreadable(`has a ${at} git cannot show`);
      return parseKeptJson(shown.lines.join('\n'), limits);
    },
  };
}
