import path from 'node:path';
import { loadManifests } from '../../src/manifest/index.js';
import type { LoadOptions, LoadResult } from '../../src/manifest/types.js';
import { useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

/** Loads manifests from a temporary tree (removed after the test); a relative templatesDir is inside the tree. */
export async function loadTree(
  files: Record<string, string | Uint8Array>,
  options: Partial<Omit<LoadOptions, 'cwd'>> = {},
): Promise<LoadResult & { dir: string }> {
  const dir = await tempDir(files);
  const templatesDir = options.templatesDir === undefined ? undefined : path.resolve(dir, options.templatesDir);
  const result = await loadManifests({ paths: [], env: {}, ...options, templatesDir, cwd: dir });
  return { ...result, dir };
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

/** An environment that records the name of every variable looked up in it: a refused value must never be read. */
export function watchedEnv(values: Record<string, string>): { env: Record<string, string | undefined>; looked: Set<string> } {
  const looked = new Set<string>();
  const env = new Proxy(values, {
    get(target, key) {
      if (typeof key === 'string') looked.add(key);
      return Reflect.get(target, key);
    },
  });
  return { env, looked };
}
