/**
 * Which test files a run reads: the paths given (files, or folders searched for `*.test.yaml` and
 * `*.test.yml`), else the `tests/` folder beside the first manifest (in it, when that is a folder
 * of manifests named with -f). Links to folders, hidden folders and node_modules are not entered,
 * so a search stays inside the folder it was given, and that folder is searched only inside the
 * project (one linked out of it is refused at its name, as `-f` refuses a folder of manifests); an
 * entry with a test file's name that is no regular file is taken, and the read's guards refuse it at
 * its name or read it.
 */
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { isInside } from '../project-files/guarded-read.js';
import { folderSearchEnters, folderSearchTakes, isSearchableFolder, listSearchedFolder, manifestProjectRoot } from '../project-files/manifest-files.js';
import { byCodeUnits } from '../util/compare.js';

/** Whether a run searching a folder reads a file of this name: `*.test.yaml` or `*.test.yml`. */
export function isTestFileName(file: string): boolean {
  return folderSearchTakes(file) === 'test';
}

/** The name a run would read for `file`: `tests/captured.yaml` as `tests/captured.test.yaml` (`.yml` kept). */
export function testFileNamed(file: string): string {
  const yml = /\.yml$/i.test(file);
  return `${file.replace(/\.ya?ml$/i, '')}.test.${yml ? 'yml' : 'yaml'}`;
}

/** The suite: what a run without paths reads, the test files of the `tests/` folder beside the first manifest (none when it is missing). */
export interface TestSuite {
  /** The `tests/` folder (absolute), whether it exists or not. */
  folder: string;
  /** Its test files (absolute, sorted as a search finds them); empty when it holds none or is no folder. */
  files: string[];
}

/** `manifests`: the manifest files read, or the files and folders named with -f (absolute). */
export async function findTestSuite(cwd: string, manifests: readonly string[]): Promise<TestSuite> {
  const first = manifests[0] ?? path.join(cwd, 'voxform.yaml');
  const folder = path.join((await isFolder(first)) ? first : path.dirname(first), 'tests');
  return { folder, files: (await isFolder(folder)) ? await searchGivenFolder(folder, path.relative(cwd, folder) || folder, await manifestProjectRoot(manifests, cwd)) : [] };
}

/** Whether a search of `folder` would find `file` (both absolute), by its path alone: a test file under it, in no hidden or skipped folder. */
export function isFoundIn(folder: string, file: string): boolean {
  if (!isInside(folder, file)) return false;
  const folders = path.relative(folder, file).split(path.sep);
  const name = folders.pop() ?? '';
  return isTestFileName(name) && folders.every(folderSearchEnters);
}

/** `manifests`: the manifest files read, or the files and folders named with -f (absolute). */
export async function findTestFiles(paths: readonly string[], cwd: string, manifests: readonly string[]): Promise<string[]> {
  if (paths.length === 0) {
    const { folder, files: found } = await findTestSuite(cwd, manifests);
    const shown = path.relative(cwd, folder) || folder;
    if (found.length === 0) {
      const info = await stat(folder).catch(() => undefined);
      const why = !info ? `the folder ${shown} does not exist` : !info.isDirectory() ? `${shown} is not a folder` : `${shown} holds no *.test.yaml files`;
      throw new VoxformError('tests_not_found', `No test files: ${why}.`, {
        hint: `Write a test as ${path.join(shown, 'NAME.test.yaml')}, beside the manifest (see docs/testing.md), or name files or folders: voxform test PATH…`,
      });
    }
    return found;
  }
  const files: string[] = [];
  const root = await manifestProjectRoot(manifests, cwd);
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const info = await stat(absolute).catch(() => undefined);
    if (!info) throw new VoxformError('tests_not_found', `${given} does not exist.`, { hint: 'Name a test file or a folder of *.test.yaml files.' });
    if (!info.isDirectory()) {
      files.push(absolute);
      continue;
    }
    const found = await searchGivenFolder(absolute, given, root);
    if (found.length === 0) throw new VoxformError('tests_not_found', `The folder ${given} holds no *.test.yaml files.`, { hint: 'Test files end in .test.yaml (or .test.yml).' });
    for (const file of found) files.push(file);
  }
  return [...new Set(files)];
}

async function isFolder(folder: string): Promise<boolean> {
  return (await stat(folder).catch(() => undefined))?.isDirectory() ?? false;
}

/**
 * The test files under a folder a run was given or the suite's (absolute); a folder outside the
 * project (`root`: the manifests', manifestProjectRoot), or linked out of it, is not searched but
 * taken as a file, which the read refuses at its name (as for -f).
 */
async function searchGivenFolder(folder: string, shown: string, root: string): Promise<string[]> {
  return (await isSearchableFolder(root, folder)) ? searchFolder(folder, shown) : [folder];
}

/** The test files under `folder` (absolute), `shown` its name as the user gave it (or as the suite names it). */
async function searchFolder(folder: string, shown: string): Promise<string[]> {
  const entries = await listSearchedFolder(folder, shown, 'test files');
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => byCodeUnits(a.name, b.name))) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (folderSearchEnters(entry.name)) for (const file of await searchFolder(full, path.join(shown, entry.name))) found.push(file);
    } else if (isTestFileName(entry.name)) {
      // Whatever else holds a test file's name is taken as if named: a link inside the project is read,
      // a FIFO, a device or a link out of it is refused at its name — never left out of a run unsaid.
      found.push(full);
    }
  }
  return found;
}
