/**
 * The `.gitignore` entries of a voxform project: the files under `.voxform/` that belong to one
 * machine. Not the state file (no secret, and the next plan needs it) nor the editor schema.
 */
export const GITIGNORE_HEADER = '# voxform: local-only files (the embedded emulator\'s data, the state lock, temporary files)';

/**
 * At any depth (`**` first): voxform keeps `.voxform/` in the folder it runs in, and a pattern with a
 * slash inside it would match at the project's top only.
 */
export const GITIGNORE_ENTRIES: readonly string[] = ['**/.voxform/local.json', '**/.voxform/*.lock', '**/.voxform/*.tmp'];

/** Lines that already ignore every `.voxform/` folder, at any depth: then nothing needs adding. */
const WHOLE_FOLDER = new Set(['.voxform', '.voxform/', '**/.voxform', '**/.voxform/', '**/.voxform/*']);

/**
 * The `.gitignore` text with the entries it lacks appended (under the header, after a blank line),
 * or `undefined` when it already has them all. Existing lines are never touched or reordered.
 */
export function mergeGitignore(existing: string | undefined, entries: readonly string[] = GITIGNORE_ENTRIES): string | undefined {
  const present = new Set((existing ?? '').split(/\r?\n/).map((line) => line.trim()));
  if ([...present].some((line) => WHOLE_FOLDER.has(line))) return undefined;
  const missing = entries.filter((entry) => !present.has(entry));
  if (missing.length === 0) return undefined;
  const block = [...(present.has(GITIGNORE_HEADER) ? [] : [GITIGNORE_HEADER]), ...missing].join('\n');
  if (!existing || existing.trim() === '') return `${block}\n`;
  const base = existing.endsWith('\n') ? existing : `${existing}\n`;
  return `${base}\n${block}\n`;
}
