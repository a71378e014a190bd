/**
 * Where the readers of kept files (the state file, the deploy ledger's records) take them from: the
 * work tree, or a git revision. A committed `.voxform/` is the pull request's to edit or delete, and
 * the base revision the operator names is the one copy of it the pull request cannot touch: the
 * same readers, with the same checks and budgets, read either (src/state/state-at-revision.ts).
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { checkKeptFolder, parseKeptJson, readKeptJson, type KeptFile, type KeptJsonLimits } from './kept-files.js';
import { isRegularFile, listTree, pathFromRoot, type GitRepository, type TreeEntry } from './git.js';
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

/**
 * What one `git cat-file --batch` run reads together: many records of an ordinary ledger, and what
 * is kept of them in memory at a time. A file larger than this is read alone.
 */
export const MAX_BATCH_BYTES = 4 * 1024 * 1024;

/** Why an entry is not read: only a regular file, within the size its reader allows, is. */
function refusalOf(entry: TreeEntry, maxBytes: number): KeptFile<unknown> | undefined {
  if (!isRegularFile(entry)) {
    return { found: true, ok: false, reason: 'refused', problem: entry.mode === '120000' ? 'is a symbolic link' : 'is not a regular file' };
  }
  if (!(entry.size <= maxBytes)) return { found: true, ok: false, reason: 'refused', problem: `is ${formatCount(entry.size)} bytes; the limit is ${formatSize(maxBytes)}` };
  return undefined;
}

/** The header `git cat-file --batch` writes before an object's content. */
function batchHeader(entry: TreeEntry): string {
  return `${entry.object} blob ${entry.size}\n`;
}

/**
 * The contents of `entries` from what `git cat-file --batch` wrote for their objects, in order: each
 * `OBJECT blob SIZE\n`, that many bytes, `\n`. Only the entries answered as listed (their object, a
 * blob of their size) are given, up to the first that is not.
 */
function batchContents(entries: readonly TreeEntry[], output: Buffer): Map<string, Buffer> {
  const contents = new Map<string, Buffer>();
  let at = 0;
  for (const entry of entries) {
    const header = Buffer.from(batchHeader(entry));
    const end = at + header.length + entry.size;
    if (!output.subarray(at, at + header.length).equals(header) || output[end] !== 0x0a) break;
    contents.set(entry.path, output.subarray(at + header.length, end));
    at = end + 1;
  }
  return contents;
}

/**
 * The files as commit `commit` of `repository` holds them, asked of git alone (`ls-tree`, `cat-file`):
 * nothing of the work tree is read. A file outside the repository, or that the commit does not hold,
 * is not found; only a regular file is read (a link or a submodule is refused, as in the work tree).
 * `unreadable` makes the error for what git cannot answer: what the commit holds is then unknown.
 *
 * A ledger's records are read one after another, and a git run for each would make every command
 * slower as the ledger grows: a file read from a listed folder brings the files after it in the way
 * the reader walks the listing with it, in one `git cat-file --batch` of at most MAX_BATCH_BYTES, each
 * checked as it would be alone. A reader may walk the ledger more than once (a workspace at a time):
 * each walk costs its own few runs, never one per file.
 */
export function keptFilesAtCommit(repository: GitRepository, commit: string, unreadable: (why: string) => Error): KeptFileSource {
  /** The entries of the folders listed so far, by path from the root, with their folder's entries and their place there: a file listed is read without asking again. */
  const listed = new Map<string, { entry: TreeEntry; siblings: TreeEntry[]; index: number }>();
  /** Where in its folder the last file was read: the way a reader walks is from there to the next. */
  let lastIndex: number | undefined;
  /** The contents of the last batch read, by path. */
  let fetched = new Map<string, Buffer>();

  const entries = (at: string): Promise<TreeEntry[]> => listTree(repository, commit, { at: [at], recursive: false, where: at }, unreadable);

  /**
   * `entry` and, when it was listed with its folder, the files after it in the way the reader walks
   * (from the last file read, when that is its neighbour; a walk that starts walks toward the farther
   * end), as many as a batch holds.
   */
  function batchOf(entry: TreeEntry, maxBytes: number): TreeEntry[] {
    const batch = [entry];
    const place = listed.get(entry.path);
    if (!place) return batch;
    const { siblings, index } = place;
    const starts = lastIndex === undefined || Math.abs(index - lastIndex) > 1;
    const step = starts ? (index >= siblings.length / 2 ? -1 : 1) : index < (lastIndex as number) ? -1 : 1;
    let bytes = entry.size;
    for (let at = index + step; at >= 0 && at < siblings.length; at += step) {
      const sibling = siblings[at] as TreeEntry;
      if (refusalOf(sibling, maxBytes)) continue;
      if (bytes + sibling.size > MAX_BATCH_BYTES) break;
      bytes += sibling.size;
      batch.push(sibling);
    }
    return batch;
  }

  /** The content of `entry`, read with the batch it heads; throws `unreadable` when git does not give it. */
  async function contentOf(entry: TreeEntry, maxBytes: number): Promise<Buffer> {
    const kept = fetched.get(entry.path);
    // Chosen before this read counts as the last: the way walked is from the last read to this one.
    const batch = kept ? [] : batchOf(entry, maxBytes);
    lastIndex = listed.get(entry.path)?.index ?? lastIndex;
    if (kept) return kept;
    const expected = batch.reduce((total, item) => total + batchHeader(item).length + item.size + 1, 0);
    const answer = await repository.runBytes(['cat-file', '--batch'], { input: batch.map(({ object }) => `${object}\n`).join(''), maxOutput: expected });
    fetched = answer && !answer.cut ? batchContents(batch, answer.bytes) : new Map();
    const content = fetched.get(entry.path);
    if (!content) throw unreadable(`has a ${entry.path} git cannot show`);
    return content;
  }

  return {
    // Git names a path inside the commit's trees: a link there is never followed.
    checkFolder: () => Promise.resolve(),
    async list(folder) {
      const at = pathFromRoot(repository.root, folder);
      const found = at === undefined || at === '' ? [] : await entries(`${at}/`);
      if (found.length === 0) throw Object.assign(new Error(`${folder} is not in the commit`), { code: 'ENOENT' });
      found.forEach((entry, index) => listed.set(entry.path, { entry, siblings: found, index }));
      return found.map((entry) => path.posix.basename(entry.path));
    },
    async readJson(file, limits) {
      const at = pathFromRoot(repository.root, file);
      if (at === undefined || at === '') return { found: false };
      const entry = listed.get(at)?.entry ?? (await entries(at)).find((candidate) => candidate.path === at);
      if (!entry) return { found: false };
      const refusal = refusalOf(entry, limits.maxBytes);
      if (refusal) return refusal;
      return parseKeptJson((await contentOf(entry, limits.maxBytes)).toString(), limits);
    },
  };
}
