/**
 * Which files `voxform fmt` looks at: the files named, the manifests under the folders named, or by
 * default the manifest of the current folder (`voxform.yaml`, else `agents.yaml`, as the loader
 * picks it).
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { isMap, isScalar, parseDocument } from 'yaml';
import { VoxformError } from '../errors.js';
import { knownProperties, schemaNode } from '../schema/introspect.js';

export const DEFAULT_MANIFESTS = ['voxform.yaml', 'agents.yaml'];

/** Folders never searched: dependencies, version control, editor and tool folders (all dot-folders). */
const SKIPPED_DIRS = new Set(['node_modules']);

/**
 * Absolute paths of the manifests to format, each once, in a stable order. A path that does not
 * exist is an error; a file named explicitly is always taken, while inside a folder only YAML files
 * that look like manifests are (see `looksLikeManifest`), so `voxform fmt .` does not rewrite a
 * docker-compose.yaml or a template.
 */
export function findManifestFiles(paths: readonly string[], cwd: string): string[] {
  if (paths.length === 0) {
    const found = DEFAULT_MANIFESTS.map((name) => path.join(cwd, name)).find((file) => existsSync(file));
    if (!found) {
      throw new VoxformError('manifest_not_found', `There is no voxform.yaml or agents.yaml in ${cwd}.`, {
        hint: 'Name the files or folders to format, e.g. `voxform fmt manifests/`.',
      });
    }
    return [found];
  }
  const files: string[] = [];
  for (const given of paths) {
    const absolute = path.resolve(cwd, given);
    let isDir: boolean;
    try {
      isDir = statSync(absolute).isDirectory();
    } catch {
      throw new VoxformError('path_not_found', `${given} does not exist.`, { hint: 'Pass manifest files or folders holding them.' });
    }
    if (isDir) files.push(...yamlFilesUnder(absolute).filter(looksLikeManifest));
    else files.push(absolute);
  }
  return [...new Set(files)];
}

function yamlFilesUnder(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    if (entry.name.startsWith('.') || SKIPPED_DIRS.has(entry.name)) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) found.push(...yamlFilesUnder(full));
    else if (entry.isFile() && /\.ya?ml$/i.test(entry.name)) found.push(full);
  }
  return found;
}

/**
 * A manifest's top level is a mapping whose keys are all manifest keys (the schema allows no
 * others). A file that does not parse is taken too: formatting it reports the syntax error, which
 * is what its author needs to hear.
 */
export function looksLikeManifest(file: string): boolean {
  const doc = parseDocument(readFileSync(file, 'utf8'));
  if (doc.errors.length > 0) return true;
  const root = doc.contents;
  if (!isMap(root) || root.items.length === 0) return false;
  const known = new Set(knownProperties(schemaNode('Manifest', 'manifest')));
  return root.items.every((pair) => isScalar(pair.key) && known.has(String(pair.key.value)));
}
