import path from 'node:path';
import { afterEach } from 'vitest';
import { loadManifests } from '../../src/manifest/index.js';
import type { LoadOptions, LoadResult } from '../../src/manifest/types.js';
import { makeTree } from '../helpers/cli.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** Loads manifests from a temporary tree (removed after the test); a relative templatesDir is inside the tree. */
export async function loadTree(
  files: Record<string, string | Uint8Array>,
  options: Partial<Omit<LoadOptions, 'cwd'>> = {},
): Promise<LoadResult & { dir: string }> {
  const tree = await makeTree(files);
  cleanups.push(tree.cleanup);
  const templatesDir = options.templatesDir === undefined ? undefined : path.resolve(tree.dir, options.templatesDir);
  const result = await loadManifests({ paths: [], env: {}, ...options, templatesDir, cwd: tree.dir });
  return { ...result, dir: tree.dir };
}

/** The diagnostics as `file:line:col code message` lines: compact, exact expectations. */
export function summarize(result: LoadResult): string[] {
  return result.diagnostics.map((d) => `${d.file}:${d.line}:${d.col} ${d.code} ${d.message}`);
}

/** A minimal valid agent entry, indented for `agents:`. */
export const AGENT = `agents:
  front-desk:
    id: ag_1
    name: Front desk
`;
