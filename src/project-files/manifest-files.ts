/**
 * Which files a load reads, and reading them: explicit files, folders (their *.yaml / *.yml but test
 * files, recursively, sorted), or `voxform.yaml`, else `agents.yaml`, in the working directory. Reads
 * are bounded in number (descriptors) and guarded (guarded-read.ts).
 */
import type { Dirent } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { didYouMean } from '../util/did-you-mean.js';
import { printable } from '../util/printable.js';
import { shorten } from '../util/shorten.js';
import { byCodeUnits } from '../util/compare.js';
import { inSlice } from '../util/sync-slices.js';
import { CheckoutFiles, readProjectFile } from './checkout-files.js';
import { chargeBudget, findProjectRoot, isInside, realFolder, type ReadOutcome, type ReadPolicy } from './guarded-read.js';

export type { ReadOutcome, ReadPolicy } from './guarded-read.js';

export const DEFAULT_MANIFESTS = ['voxform.yaml', 'agents.yaml'] as const;

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml']);
/** Conversation test files (docs/testing.md): a folder's search never takes them for manifests. */
export const TEST_FILE = /\.test\.ya?ml$/i;
/** A test file's recording (`tests/front-desk.recording.json`), which `voxform test --mode replay` reads. */
export const RECORDING_SUFFIX = '.recording.json';
/** Folders a recursive search never enters (besides hidden ones). */
const SKIPPED_FOLDERS = new Set(['node_modules']);

/** A manifest file to load, absolute, with the project root its references must stay inside (a real path). */
export interface ManifestFile {
  file: string;
  root: string;
  /** Found by searching a folder (not named, nor the default): `fmt` skips such YAML when it is no manifest. */
  fromFolder: boolean;
}

interface FindManifestOptions {
  /** The project root of every file (else found per file, see findProjectRoot). */
  projectRoot?: string | undefined;
  /** How the command is told which manifests to use, as the hints show it: `` `-f PATH` `` (the default), `` `voxform fmt PATH` ``. */
  namedWith?: string;
}

/** The manifest files to load, in load order (each once), each with its project root (see findProjectRoot). */
export async function findManifestFiles(paths: readonly string[], cwd: string, options: FindManifestOptions = {}): Promise<ManifestFile[]> {
  const { projectRoot } = options;
  const namedWith = options.namedWith ?? '`-f PATH`';
  const rootFor = async (named: string, isFolder: boolean): Promise<string> => (projectRoot === undefined ? rootOfNamed(named, isFolder, cwd) : realFolder(path.resolve(cwd, projectRoot)));
  if (paths.length === 0) return [{ file: await findDefaultManifest(cwd, namedWith), root: await rootFor(cwd, true), fromFolder: false }];
  const files = new Map<string, { root: string; fromFolder: boolean }>();
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const info = await stat(absolute).catch(() => undefined);
    if (!info) throw await notFound(given, absolute, namedWith);
    if (info.isDirectory()) {
      const root = await rootFor(absolute, true);
      if (!(await isSearchableFolder(root, absolute))) {
        if (!files.has(absolute)) files.set(absolute, { root, fromFolder: false });
        continue;
      }
      const search = { found: [] as string[], testFiles: 0 };
      await findYamlFiles(absolute, search, given);
      const { found } = search;
      if (found.length === 0) {
        const what = search.testFiles > 0 ? 'no manifest: its only .yaml and .yml files are test files (*.test.yaml), which are not manifests' : 'no .yaml or .yml files';
        throw new VoxformError('manifest_not_found', `The folder ${given} holds ${what}.`, {
          hint: `Name a manifest file or a folder of manifests: ${namedWith}.`,
        });
      }
      for (const file of found) if (!files.has(file)) files.set(file, { root, fromFolder: true });
    } else if (!files.has(absolute)) {
      files.set(absolute, { root: await rootFor(absolute, false), fromFolder: false });
    }
  }
  return [...files].map(([file, where]) => ({ file, ...where }));
}

/**
 * The project root (a real path) of a manifest the operator named, or of a folder of manifests
 * named (absolute): found from the folder holding it (findProjectRoot), never from the working
 * directory alone, so a project's files are its own wherever voxform runs.
 */
function rootOfNamed(named: string, isFolder: boolean, cwd: string): Promise<string> {
  return findProjectRoot(isFolder ? named : path.dirname(named), cwd);
}

/**
 * The project root of the manifests the operator named (the files read, or the files and folders
 * given with -f; none: the default manifest in the working directory), found from the first, as
 * its own files' root is. Whatever else belongs to the project, its conversation test files, must
 * lie inside it (docs/security.md §3).
 */
export async function manifestProjectRoot(manifests: readonly string[], cwd: string): Promise<string> {
  const first = manifests[0];
  if (first === undefined) return rootOfNamed(path.resolve(cwd), true, cwd);
  const named = path.resolve(cwd, first);
  return rootOfNamed(named, (await stat(named).catch(() => undefined))?.isDirectory() ?? false, cwd);
}

async function findDefaultManifest(cwd: string, namedWith: string): Promise<string> {
  for (const name of DEFAULT_MANIFESTS) {
    const candidate = path.join(cwd, name);
    // Whatever is there but a folder is the manifest, read under the guards: a FIFO, a device or a
    // link out of the project is refused at its name (file_not_regular…), not taken for no manifest.
    const info = await stat(candidate).catch(() => undefined);
    if (info !== undefined && !info.isDirectory()) return candidate;
  }
  throw new VoxformError('manifest_not_found', `No manifest found: neither ${DEFAULT_MANIFESTS.join(' nor ')} exists in ${cwd}.`, {
    hint: (await manifestNearby(cwd, namedWith)) ?? `Name a manifest: ${namedWith} (a file or a folder), or start one with \`voxform init\`.`,
  });
}

/** How many folders up a missing default manifest is looked for (never past the git work tree's root). */
const PARENT_LEVELS = 3;

/**
 * Where the manifest likely is when the working directory has none: beside it under `.yml`, or in a
 * folder above (a command run from a project's subfolder). Only names are looked at, nothing is read.
 */
async function manifestNearby(cwd: string, namedWith: string): Promise<string | undefined> {
  const named = (file: string) => namedWith.replace('PATH', file);
  const isFile = async (file: string) => (await stat(file).catch(() => undefined))?.isFile() === true;
  for (const name of DEFAULT_MANIFESTS) {
    const yml = name.replace(/\.yaml$/, '.yml');
    if (await isFile(path.join(cwd, yml))) return `Found ${yml}: rename it to ${name} or pass ${named(yml)}.`;
  }
  const here = await realFolder(cwd);
  // Loaded here, on the way to an error: loading manifests needs no git.
  const workTree = await (await import('./git.js')).gitWorkTreeRoot(here);
  let folder = here;
  for (let level = 1; level <= PARENT_LEVELS; level++) {
    if (folder === workTree) return undefined;
    const parent = path.dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
    for (const name of DEFAULT_MANIFESTS) {
      if (!(await isFile(path.join(folder, name)))) continue;
      const up = path.relative(here, folder);
      const file = path.join(up, name);
      return `${file} exists: run from ${up} or pass ${named(file)}.`;
    }
  }
  return undefined;
}

async function notFound(given: string, absolute: string, namedWith: string): Promise<VoxformError> {
  const siblings = await readdir(path.dirname(absolute)).catch(() => [] as string[]);
  const suggestion = didYouMean(path.basename(absolute), siblings);
  const instead = suggestion ? path.join(path.dirname(given), suggestion) : undefined;
  return new VoxformError('manifest_not_found', `${given} does not exist${instead ? `; did you mean ${instead}?` : '.'}`, { hint: `Name a manifest: ${namedWith}, or start one with \`voxform init\`.` });
}

/**
 * Whether a search (for manifests, for test files) may walk `folder`, the one it was given: only when
 * its real path is inside `root`, the project root found from the path as written. A folder that is a
 * link out of the project is not searched; its name is taken as a file's, which the guarded read
 * refuses as outside the project. The folders under it are listed without following links.
 */
export async function isSearchableFolder(root: string, folder: string): Promise<boolean> {
  return isInside(root, await realFolder(folder));
}

/** Whether a folder's search enters its subfolder `name`. */
export function folderSearchEnters(name: string): boolean {
  return !name.startsWith('.') && !SKIPPED_FOLDERS.has(name);
}

/** Whether a file of this name is a test file's recording (in any letter case: a file system may ignore it). */
export function isRecordingName(name: string): boolean {
  return name.toLowerCase().endsWith(RECORDING_SUFFIX);
}

/** What a folder's search makes of its file `name`: a manifest, a conversation test file (never a manifest), or neither. */
export function folderSearchTakes(name: string): 'manifest' | 'test' | undefined {
  if (!MANIFEST_EXTENSIONS.has(path.extname(name).toLowerCase())) return undefined;
  return TEST_FILE.test(name) ? 'test' : 'manifest';
}

/**
 * Every *.yaml and *.yml under a folder but test files (counted), recursively, by path in code unit
 * order. An entry of such a name that is not a regular file (a FIFO, a device, a symbolic link) is
 * taken too, as if named: the guarded read refuses it at its name (file_not_regular,
 * file_outside_project) or reads it, never skips it unsaid. Links to folders are not followed.
 */
async function findYamlFiles(folder: string, search: { found: string[]; testFiles: number }, given: string): Promise<void> {
  const entries = await listSearchedFolder(folder, given, 'manifests');
  for (const entry of entries.sort((a, b) => byCodeUnits(a.name, b.name))) {
    if (entry.isDirectory()) {
      if (folderSearchEnters(entry.name)) await findYamlFiles(path.join(folder, entry.name), search, path.join(given, entry.name));
    } else {
      const kind = folderSearchTakes(entry.name);
      if (kind === 'test') search.testFiles++;
      else if (kind === 'manifest') search.found.push(path.join(folder, entry.name));
    }
  }
}

/**
 * The entries of a folder a search walks (for manifests, for test files), `shown` its name as the user
 * gave it. One removed since its parent was listed holds nothing to read; one that cannot be listed
 * (no permission) is an error at its name, as an unreadable file is: it may hold what was searched for.
 */
export async function listSearchedFolder(folder: string, shown: string, searchedFor: string): Promise<Dirent[]> {
  try {
    return await readdir(folder, { withFileTypes: true });
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === 'ENOENT') return [];
    const { why, hint } = unlistableFolder(code ?? String(error));
    throw new VoxformError('file_unreadable', `Cannot search the folder ${shorten(printable(shown), SHOWN_FOLDER_CHARS)} for ${searchedFor}: ${why}.`, { hint, cause: error });
  }
}

/** The most of a searched folder's path an error quotes: a folder nested thousands deep has a path of as many names. */
const SHOWN_FOLDER_CHARS = 200;

/** Why a folder of a search cannot be listed, by the system's code, and what to do about it. */
function unlistableFolder(code: string): { why: string; hint: string } {
  const nameTheFiles = 'name the files to read instead of a folder above it (a folder is searched through every subfolder)';
  if (code === 'ENAMETOOLONG') return { why: 'its path is longer than the system takes (ENAMETOOLONG)', hint: `Move what it holds to a folder nested less deep, or ${nameTheFiles}.` };
  if (code === 'ELOOP') return { why: 'its path leads through too many symbolic links (ELOOP)', hint: `Name the folder by a path without links, or ${nameTheFiles}.` };
  const why = code === 'EACCES' || code === 'EPERM' ? 'voxform may not list it' : `the system refused it (${code})`;
  return { why, hint: `Make the folder readable for this user, or ${nameTheFiles}.` };
}

/**
 * Reads many files once each per policy (root and size cap), under the guards of guarded-read.ts
 * and the rule of `checkout` (checkout-files.ts).
 * A read under a budget (prompt files) is charged to that budget once per cache, whether the bytes
 * are read or taken from those another cache of the same load kept: each `share()` (an environment)
 * pays for every file it uses, as a load of it alone would. What is kept for the others is bounded
 * (`keptLimit`): past it, files are read and not kept, so the memory held does not grow with the
 * number of caches.
 */
export class FileCache {
  private readonly asked = new Set<string>();
  /** This cache's budgeted reads: a file asked twice is charged once. */
  private readonly budgeted = new Map<string, Promise<ReadOutcome>>();

  constructor(
    /** Which files may be read: in a CI job, only what the commit under review holds. */
    readonly checkout: CheckoutFiles,
    /** The most bytes of budgeted reads kept for the caches shared from this one. */
    private readonly keptLimit = 0,
    private readonly shared: SharedReads = { pending: new Map(), kept: new Map(), keptBytes: 0 },
  ) {}

  /** A cache answering from this one's reads (and adding to them), whose `files` and budget charges are its own. */
  share(): FileCache {
    return new FileCache(this.checkout, this.keptLimit, this.shared);
  }

  read(file: string, policy: ReadPolicy): Promise<ReadOutcome> {
    const key = `${policy.root}\0${policy.maxBytes}\0${file}`;
    const reads = policy.budget ? this.budgeted : this.shared.pending;
    let outcome = reads.get(key);
    if (!outcome) {
      outcome = policy.budget ? this.readBudgeted(key, file, policy) : readProjectFile(file, policy, this.checkout);
      reads.set(key, outcome);
    }
    this.asked.add(file);
    return outcome;
  }

  /** The bytes of budgeted reads kept for the caches shared from this one. */
  keptBytes(): number {
    return this.shared.keptBytes;
  }

  private async readBudgeted(key: string, file: string, policy: ReadPolicy): Promise<ReadOutcome> {
    const budget = policy.budget as NonNullable<ReadPolicy['budget']>;
    const kept = this.shared.kept.get(key);
    // Charged in a slice, as a read is: the budget is taken in the order the files are asked for, kept or not.
    if (kept) return inSlice(() => chargeBudget(budget, kept.length) ?? { ok: true, bytes: kept });
    const outcome = await readProjectFile(file, policy, this.checkout);
    if (outcome.ok && !this.shared.kept.has(key) && this.shared.keptBytes + outcome.bytes.length <= this.keptLimit) {
      this.shared.kept.set(key, outcome.bytes);
      this.shared.keptBytes += outcome.bytes.length;
    }
    return outcome;
  }

  /** Every file asked for, once each, in the order first asked. */
  files(): string[] {
    return [...this.asked];
  }

  /**
   * Reads a file that is used once (a manifest: hashed and decoded), keeping nothing of it, so that
   * its bytes go once the caller is done with them. A budget in the policy is charged before the
   * file is read, as `read` charges it, but only this once.
   */
  readOnce(file: string, policy: ReadPolicy): Promise<ReadOutcome> {
    this.asked.add(file);
    return readProjectFile(file, policy, this.checkout);
  }
}

/** What a cache and those shared from it hold together, for one load (its environments together). */
interface SharedReads {
  /** Reads under no budget (templates), each file once. */
  pending: Map<string, Promise<ReadOutcome>>;
  /** The bytes of budgeted reads kept, `keptBytes` in all. */
  kept: Map<string, Buffer>;
  keptBytes: number;
}
