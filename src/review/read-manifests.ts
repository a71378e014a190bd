/**
 * The manifests as the base revision had them and as the pull request has them, for the relaxation
 * detectors. The base is chosen by the operator (`plan --base REF`, else VOXFORM_BASE_REF) and read
 * only through the hardened git module (`git show REF:PATH`): the repository chooses nothing.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { VoxformError } from '../errors.js';
import { DiagnosticList } from '../manifest/diagnostics.js';
import { parseYaml } from '../manifest/parse-yaml.js';
import { SourceRegistry } from '../manifest/source.js';
import { MAX_MANIFEST_BYTES } from '../project-files/limits.js';
import { isPlainObject } from '../util/json-object.js';
import { openGitRepository } from '../project-files/git.js';
import type { ManifestDocuments } from './relaxations.js';

export const BASE_REF_VARIABLE = 'VOXFORM_BASE_REF';

/** The operator's base revision: the flag, else the environment; undefined when neither names one. */
export function baseRefOf(flag: string | undefined, env: Readonly<Record<string, string | undefined>>): string | undefined {
  const ref = (flag ?? env[BASE_REF_VARIABLE] ?? '').trim();
  return ref === '' ? undefined : ref;
}

async function parseDocuments(file: string, display: string, text: string, sources: SourceRegistry): Promise<ManifestDocuments> {
  // Problems were reported when the pull request's manifests were loaded; the base's are not the reviewer's concern.
  const parsed = await parseYaml(sources.forYaml(file, text), new DiagnosticList());
  return { file: display, documents: parsed.documents.map((doc) => doc.value).filter(isPlainObject) };
}

/** The pull request's manifest files (absolute; already read and checked by the loader), parsed with their positions. */
export async function readHeadManifests(files: readonly string[], cwd: string): Promise<ManifestDocuments[]> {
  const sources = new SourceRegistry(cwd);
  return Promise.all(files.map(async (file) => parseDocuments(file, sources.display(file), await readFile(file, 'utf8'), sources)));
}

function unreadable(ref: string, why: string): VoxformError {
  return new VoxformError('policy_base_unreadable', `the base revision "${ref}" ${why}, so voxform cannot tell whether this change relaxes the policy.`, {
    hint: `Fetch the base branch (in CI: fetch-depth: 0) or name a revision that exists with --base or ${BASE_REF_VARIABLE}.`,
  });
}

/** The same files at the base revision; a file the base did not have is left out. */
export async function readBaseManifests(ref: string, files: readonly string[], cwd: string, env: Readonly<Record<string, string | undefined>>): Promise<ManifestDocuments[]> {
  // A revision starting with "-" would be read by git as an option.
  if (ref.startsWith('-')) throw unreadable(ref, 'starts with "-"');
  const repository = await openGitRepository(cwd, env);
  if (!repository) throw unreadable(ref, 'cannot be read: the project is not a git checkout (or git is not installed)');
  const commit = await repository.run(['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  if (!commit || commit.lines.length === 0) throw unreadable(ref, 'is not a commit of this repository');
  const sources = new SourceRegistry(cwd);
  const out: ManifestDocuments[] = [];
  for (const file of files) {
    const inRepository = path.relative(repository.root, file).split(path.sep).join('/');
    const shown = await repository.run(['show', `${commit.lines[0]}:${inRepository}`], { maxOutput: MAX_MANIFEST_BYTES, keepBlankLines: true });
    if (!shown) continue;
    if (shown.cut) throw unreadable(ref, `has a ${inRepository} larger than a manifest may be`);
    out.push(await parseDocuments(file, sources.display(file), shown.lines.join('\n'), sources));
  }
  return out;
}
