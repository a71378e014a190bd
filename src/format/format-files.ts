import { readFile } from 'node:fs/promises';
import { isVoxformError, VoxformError } from '../errors.js';
import { writeFileAtomic } from '../util/atomic-write.js';
import { formatManifest } from './format-manifest.js';

export interface FormattedFile {
  /** Absolute path. */
  file: string;
  /** `changed`: not in the canonical layout (rewritten unless checking); `error`: left untouched. */
  status: 'unchanged' | 'changed' | 'error';
  error?: VoxformError;
}

/**
 * Formats files one by one, each on its own: a file with a syntax error is reported and left
 * untouched while the others are still formatted. With `write`, a changed file is replaced
 * atomically (readers never see half of it); without, nothing is written (`--check`).
 */
export async function formatFiles(files: readonly string[], options: { write: boolean; displayName?: (file: string) => string }): Promise<FormattedFile[]> {
  const results: FormattedFile[] = [];
  const name = options.displayName ?? ((file: string) => file);
  for (const file of files) {
    try {
      const source = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
        throw new VoxformError('file_unreadable', `Cannot read ${name(file)}: ${error.message}.`);
      });
      const { text, changed } = formatManifest(source, name(file));
      if (changed && options.write) await writeFileAtomic(file, text);
      results.push({ file, status: changed ? 'changed' : 'unchanged' });
    } catch (error) {
      if (!isVoxformError(error)) throw error;
      results.push({ file, status: 'error', error });
    }
  }
  return results;
}
