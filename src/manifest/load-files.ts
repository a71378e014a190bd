/**
 * Which files a load reads, and reading them: explicit files, folders (every *.yaml / *.yml in
 * them, recursively, sorted), or by default `voxform.yaml`, else `agents.yaml`, in the working
 * directory. Reads run concurrently, bounded so a thousand prompt files do not exhaust descriptors.
 */
import { readFile } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { didYouMean } from '../util/did-you-mean.js';
import { mapBounded } from '../util/semaphore.js';

export const DEFAULT_MANIFESTS = ['voxform.yaml', 'agents.yaml'] as const;

const MANIFEST_EXTENSIONS = new Set(['.yaml', '.yml']);
/** Folders a recursive search never enters: tool state, dependencies, version control. */
const SKIPPED_FOLDERS = new Set(['node_modules']);

/** The manifest files to load, absolute, in load order (each at most once). */
export async function findManifestFiles(paths: readonly string[], cwd: string): Promise<string[]> {
  if (paths.length === 0) return [await findDefaultManifest(cwd)];
  const files: string[] = [];
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    const info = await stat(absolute).catch(() => undefined);
    if (!info) throw await notFound(given, absolute);
    if (info.isDirectory()) {
      const found = await findYamlFiles(absolute);
      if (found.length === 0) {
        throw new VoxformError('manifest_not_found', `The folder ${given} holds no .yaml or .yml files.`, {
          hint: 'Point -f at a manifest file or at a folder of manifests.',
        });
      }
      files.push(...found);
    } else {
      files.push(absolute);
    }
  }
  return [...new Set(files)];
}

async function findDefaultManifest(cwd: string): Promise<string> {
  for (const name of DEFAULT_MANIFESTS) {
    const candidate = path.join(cwd, name);
    const info = await stat(candidate).catch(() => undefined);
    if (info?.isFile()) return candidate;
  }
  throw new VoxformError('manifest_not_found', `No manifest found: neither ${DEFAULT_MANIFESTS.join(' nor ')} exists in ${cwd}.`, {
    hint: 'Name a manifest with -f PATH (a file or a folder), or start one with `voxform init`.',
  });
}

async function notFound(given: string, absolute: string): Promise<VoxformError> {
  const siblings = await readdir(path.dirname(absolute)).catch(() => [] as string[]);
  const suggestion = didYouMean(path.basename(absolute), siblings);
  const instead = suggestion ? path.join(path.dirname(given), suggestion) : undefined;
  return new VoxformError('manifest_not_found', `${given} does not exist${instead ? `; did you mean ${instead}?` : '.'}`);
}

/** Every *.yaml and *.yml under a folder, recursively, in a stable order (by path, code point order). */
async function findYamlFiles(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { withFileTypes: true });
  const found: string[] = [];
  for (const entry of entries.sort((a, b) => compareNames(a.name, b.name))) {
    const full = path.join(folder, entry.name);
    if (entry.isDirectory()) {
      if (entry.name.startsWith('.') || SKIPPED_FOLDERS.has(entry.name)) continue;
      found.push(...(await findYamlFiles(full)));
    } else if (entry.isFile() && MANIFEST_EXTENSIONS.has(path.extname(entry.name).toLowerCase())) {
      found.push(full);
    }
  }
  return found;
}

function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export type ReadOutcome = { ok: true; bytes: Buffer } | { ok: false; reason: 'missing' | 'folder' | 'unreadable'; message: string };

/**
 * Reads one file, answering why it could not be read instead of throwing. (The callback API: for
 * a thousand small files it costs a fraction of what `fs/promises` readFile does.)
 */
export function readBytes(file: string): Promise<ReadOutcome> {
  return new Promise((resolve) => {
    readFile(file, (error, bytes) => {
      if (!error) {
        resolve({ ok: true, bytes });
        return;
      }
      const code = error.code;
      if (code === 'ENOENT' || code === 'ENOTDIR') resolve({ ok: false, reason: 'missing', message: 'does not exist' });
      else if (code === 'EISDIR') resolve({ ok: false, reason: 'folder', message: 'is a folder, not a file' });
      else resolve({ ok: false, reason: 'unreadable', message: `cannot be read (${code ?? error.message})` });
    });
  });
}

export { mapBounded };

/** Reads many files once each (the same prompt file named by a hundred agents is read once). */
export class FileCache {
  private readonly pending = new Map<string, Promise<ReadOutcome>>();

  read(file: string): Promise<ReadOutcome> {
    let outcome = this.pending.get(file);
    if (!outcome) {
      outcome = readBytes(file);
      this.pending.set(file, outcome);
    }
    return outcome;
  }

  async readAll(files: readonly string[], limit = 64): Promise<Map<string, ReadOutcome>> {
    const unique = [...new Set(files)];
    const outcomes = await mapBounded(unique, limit, (file) => this.read(file));
    return new Map(unique.map((file, i) => [file, outcomes[i] as ReadOutcome]));
  }
}
