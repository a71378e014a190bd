/**
 * The manifests as the base revision had them and as the pull request has them, for the relaxation
 * detectors. The base is chosen by the operator (`plan --base REF`, else VOXFORM_BASE_REF) and read
 * only through the hardened git module (`git ls-tree`, `git show`): the repository chooses nothing.
 */
import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { DiagnosticList } from '../manifest/diagnostics.js';
import { parseYaml } from '../manifest/parse-yaml.js';
import { SourceRegistry } from '../manifest/source.js';
import { MAX_MANIFEST_BYTES } from '../project-files/limits.js';
import { isPlainObject } from '../util/json-object.js';
import { printable } from '../util/printable.js';
import { BASE_REF_VARIABLE } from '../project-files/base-revision.js';
import { isRegularFile, listTree, openCommit, pathFromRoot, type GitRepository } from '../project-files/git.js';
import { DEFAULT_MANIFESTS, folderSearchEnters, folderSearchTakes, manifestProjectRoot } from '../project-files/manifest-files.js';
import { CheckoutFiles, readProjectFile } from '../project-files/checkout-files.js';
import { decodeUtf8 } from '../project-files/decode.js';
import { byCodeUnits } from '../util/compare.js';
import type { ManifestDocuments } from './relaxations.js';

async function parseDocuments(file: string, display: string, text: string, sources: SourceRegistry): Promise<ManifestDocuments> {
  // Problems were reported when the pull request's manifests were loaded; the base's are not the reviewer's concern.
  const parsed = await parseYaml(sources.forYaml(file, text), new DiagnosticList());
  return { file: display, documents: parsed.documents.map((doc) => doc.value).filter(isPlainObject) };
}

/**
 * The pull request's manifest files (absolute; already read and checked by the loader), parsed with
 * their positions. Read again as the loader reads them, under the rule of every project file (a
 * file changed since is refused as it would have been then).
 */
export async function readHeadManifests(files: readonly string[], cwd: string, env: Readonly<Record<string, string | undefined>>): Promise<ManifestDocuments[]> {
  const sources = new SourceRegistry(cwd);
  const checkout = CheckoutFiles.forRun(env);
  return Promise.all(
    files.map(async (file) => {
      const read = await readProjectFile(file, { root: await manifestProjectRoot([file], cwd), maxBytes: MAX_MANIFEST_BYTES }, checkout);
      if (!read.ok) {
        throw new VoxformError('file_unreadable', `${sources.display(file)} ${read.message}, read again for the policy's base comparison.`, { hint: 'Run the command again once nothing changes the manifests while it runs.' });
      }
      return parseDocuments(file, sources.display(file), decodeUtf8(read.bytes).text, sources);
    }),
  );
}

function unreadable(ref: string, why: string, hint = `Fetch the base branch (in CI: fetch-depth: 0) or name a revision that exists with --base or ${BASE_REF_VARIABLE}.`): VoxformError {
  return new VoxformError('policy_base_unreadable', `the base revision "${printable(ref)}" ${why}, so voxform cannot tell whether this change relaxes the policy.`, { hint });
}

/** The regular files at `commit` whose paths (from the repository's root) are `at` or under it; everything when `at` is empty. */
async function filesAt(repository: GitRepository, commit: string, at: string, ref: string): Promise<string[]> {
  const where = at === '' ? 'the repository\'s root' : at;
  const entries = await listTree(repository, commit, { at: at === '' ? [] : [at], recursive: true, where }, (why) => unreadable(ref, why));
  return entries.filter(isRegularFile).map((entry) => entry.path);
}

/** Whether a folder's search (findManifestFiles) takes the file at `relative` (parts joined by `/`) below the folder searched. */
function foundByFolderSearch(relative: string): boolean {
  const parts = relative.split('/');
  return folderSearchTakes(parts[parts.length - 1] ?? '') === 'manifest' && parts.slice(0, -1).every(folderSearchEnters);
}

function comparePaths(a: string, b: string): number {
  const left = a.split('/');
  const right = b.split('/');
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const order = byCodeUnits(left[i] as string, right[i] as string);
    if (order !== 0) return order;
  }
  return left.length - right.length;
}

/**
 * The manifest files (paths from the repository's root) the operator's `-f` paths find at `commit`,
 * found as the loader finds them in the work tree (findManifestFiles): a file, a folder's manifests,
 * or with no path the default (voxform.yaml, else agents.yaml) in the working directory. A path
 * outside the repository, or that the base did not have, finds nothing.
 */
async function baseManifestPaths(repository: GitRepository, commit: string, ref: string, paths: readonly string[], cwd: string): Promise<string[]> {
  const workingDirectory = await realpath(cwd);
  if (paths.length === 0) {
    for (const name of DEFAULT_MANIFESTS) {
      const candidate = pathFromRoot(repository.root, path.join(workingDirectory, name));
      if (candidate !== undefined && (await filesAt(repository, commit, candidate, ref)).includes(candidate)) return [candidate];
    }
    return [];
  }
  const found: string[] = [];
  for (const given of paths) {
    const at = pathFromRoot(repository.root, path.resolve(workingDirectory, given));
    if (at === undefined) continue;
    const files = await filesAt(repository, commit, at, ref);
    const named = files.includes(at) ? [at] : files.filter((file) => foundByFolderSearch(at === '' ? file : file.slice(at.length + 1))).sort(comparePaths);
    for (const file of named) if (!found.includes(file)) found.push(file);
  }
  return found;
}

/**
 * The manifests at the base revision: what the operator's `-f` paths (the same the pull request's
 * manifests were found with) find there, so a manifest the pull request renames, moves or deletes
 * is still compared.
 */
export async function readBaseManifests(ref: string, paths: readonly string[], cwd: string, env: Readonly<Record<string, string | undefined>>): Promise<ManifestDocuments[]> {
  const { repository, commit: id } = await openCommit(cwd, env, ref, (why, hint) => unreadable(ref, why, hint), {
    why: 'cannot be read: the project is not a git checkout, git cannot open it, or git is not installed',
    hint: 'Install git, or put it on PATH, for voxform reads the base revision with it; if it is there, check that `git status` works in this checkout.',
  });
  const sources = new SourceRegistry(cwd);
  const out: ManifestDocuments[] = [];
  for (const inRepository of await baseManifestPaths(repository, id, ref, paths, cwd)) {
    const shown = await repository.run(['show', `${id}:${inRepository}`], { maxOutput: MAX_MANIFEST_BYTES, keepBlankLines: true });
    if (!shown) throw unreadable(ref, `has a ${inRepository} git cannot show`);
    if (shown.cut) throw unreadable(ref, `has a ${inRepository} larger than a manifest may be`);
    const file = path.join(repository.root, ...inRepository.split('/'));
    out.push(await parseDocuments(file, sources.display(file), shown.lines.join('\n'), sources));
  }
  return out;
}
