import { isMap, isScalar } from 'yaml';
import { isVoxformError, VoxformError } from '../errors.js';
import { BYTE_ORDER_MARK, decodeUtf8 } from '../project-files/decode.js';
import { MAX_MANIFEST_BYTES } from '../project-files/limits.js';
import type { ManifestFile } from '../project-files/manifest-files.js';
import { readProjectFile, UNCOMMITTED_HINT, type CheckoutFiles } from '../project-files/checkout-files.js';
import { projectWriteRefusal } from '../project-files/guarded-write.js';
import { printable } from '../util/printable.js';
import { knownProperties, schemaNode } from '../schema/introspect.js';
import { parseYamlDocuments } from '../yaml/documents.js';
import { describeWriteFailure, isFileSystemError, writeFileAtomic } from '../util/atomic-write.js';
import { formatManifest, isEmptyDocument } from './format-manifest.js';

interface FormattedFile {
  /** Absolute path. */
  file: string;
  /** `changed`: not in the canonical layout (rewritten unless checking); `error`: left untouched. */
  status: 'unchanged' | 'changed' | 'error';
  error?: VoxformError;
}

/**
 * Formats files each on its own: a file with an error is reported and left untouched. Each is read
 * under the loader's guards; a YAML file found in a folder is skipped when it is no manifest. With
 * `write`, a changed file is replaced atomically; without, nothing is written (`--check`). `onFile`
 * hears of each file as soon as it is done (replaced), before the next is read.
 */
export async function formatFiles(
  files: readonly ManifestFile[],
  options: { write: boolean; checkout: CheckoutFiles; displayName?: (file: string) => string; onFile?: (result: FormattedFile) => void },
): Promise<FormattedFile[]> {
  const results: FormattedFile[] = [];
  const done = (result: FormattedFile) => {
    results.push(result);
    options.onFile?.(result);
  };
  const name = options.displayName ?? ((file: string) => file);
  for (const { file, root, fromFolder } of files) {
    try {
      const { text: source, byteOrderMark } = await readManifestText(file, root, name(file), options.checkout);
      if (fromFolder && !looksLikeManifest(source)) continue;
      const { text, changed } = formatManifest(source, name(file));
      // The decoder drops a byte-order mark; the file keeps its own, as it keeps its line endings.
      if (changed && options.write) await rewrite(file, byteOrderMark ? `${BYTE_ORDER_MARK}${text}` : text, { root, shown: name });
      done({ file, status: changed ? 'changed' : 'unchanged' });
    } catch (error) {
      if (!isVoxformError(error)) throw error;
      done({ file, status: 'error', error });
    }
  }
  return results;
}

/**
 * Replaces a manifest atomically; a file that cannot be written is that file's error, never a crash.
 * It is replaced only inside the project (projectWriteRefusal): a manifest read through a link of the
 * checkout can sit in a folder that leads out of it.
 */
async function rewrite(file: string, text: string, where: { root: string; shown: (file: string) => string }): Promise<void> {
  const shown = where.shown(file);
  const refusal = await projectWriteRefusal(file, where.root, (link) => printable(where.shown(link)));
  if (refusal !== undefined) {
    throw new VoxformError('file_unwritable', `Cannot rewrite ${shown}: ${refusal.problem}; it was left as it was.`, {
      hint: 'fmt writes only inside the project: remove the link, or format the file where it lies.',
    });
  }
  try {
    await writeFileAtomic(file, text);
  } catch (error) {
    if (!isFileSystemError(error)) throw error;
    throw new VoxformError('file_unwritable', `Cannot rewrite ${shown}: ${describeWriteFailure(error)}; it was left as it was.`, {
      hint: 'fmt replaces a file through a new file beside it: make the file and its folder writable for this user.',
    });
  }
}

async function readManifestText(file: string, root: string, shown: string, checkout: CheckoutFiles): Promise<{ text: string; byteOrderMark: boolean }> {
  const outcome = await readProjectFile(file, { root, maxBytes: MAX_MANIFEST_BYTES }, checkout);
  if (!outcome.ok && outcome.reason === 'uncommitted') throw new VoxformError('file_not_committed', `Cannot read ${shown}: it ${outcome.message}.`, { hint: UNCOMMITTED_HINT });
  if (!outcome.ok) throw new VoxformError('file_unreadable', `Cannot read ${shown}: it ${outcome.message}.`, { hint: 'Check the path and its permissions; keep manifests inside the project.' });
  const { text, problem } = decodeUtf8(outcome.bytes);
  if (problem !== undefined) throw new VoxformError('file_unreadable', `Cannot read ${shown}: it ${problem.message}.`, { hint: 'fmt rewrites only UTF-8 text files.' });
  const byteOrderMark = outcome.bytes[0] === 0xef && outcome.bytes[1] === 0xbb && outcome.bytes[2] === 0xbf;
  return { text, byteOrderMark };
}

/**
 * A manifest's documents are mappings whose keys are all manifest keys, besides empty ones (a last
 * `---`). A file that does not parse is taken too: formatting it reports the error its author needs to hear.
 */
export function looksLikeManifest(text: string): boolean {
  const { documents: docs, tooLargeAt } = parseYamlDocuments(text);
  if (tooLargeAt !== undefined || docs.some((doc) => doc.errors.length > 0)) return true;
  const known = new Set(knownProperties(schemaNode('Manifest', 'manifest')));
  const roots = docs.filter((doc) => !isEmptyDocument(doc)).map((doc) => doc.contents);
  if (roots.length === 0) return false;
  return roots.every((root) => isMap(root) && root.items.length > 0 && root.items.every((pair) => isScalar(pair.key) && known.has(String(pair.key.value))));
}
