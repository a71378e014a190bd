/**
 * What voxform ships is in its own canonical layout: a user who copies agents.example.yaml (or
 * anything else of the package's manifests) and runs `voxform fmt --check` in CI gets no failure
 * from voxform's own files. The manifests `voxform init` writes from the templates are checked in
 * test/cli/init.test.ts.
 */
import { readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isVoxformError } from '../../src/errors.js';
import { looksLikeManifest } from '../../src/format/format-files.js';
import { findManifestFiles } from '../../src/project-files/manifest-files.js';
import { repoRoot, runCliInProcess } from '../helpers/cli.js';

/** The package's YAML files and the folders holding manifests, as package.json's `files` ships them. */
async function shippedManifestPaths(): Promise<string[]> {
  const { files } = JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { files: string[] };
  const paths: string[] = [];
  for (const entry of files) {
    const stat = statSync(path.join(repoRoot, entry), { throwIfNoEntry: false });
    // A file named is formatted whatever it holds: only one that fmt would take in a folder's search is a manifest (action.yml is not).
    if (stat?.isFile() && /\.ya?ml$/.test(entry) && looksLikeManifest(readFileSync(path.join(repoRoot, entry), 'utf8'))) paths.push(entry);
    if (!stat?.isDirectory() || entry === 'dist' || entry === 'bin') continue;
    const found = await findManifestFiles([entry], repoRoot).catch((error: unknown) => {
      if (isVoxformError(error) && error.code === 'manifest_not_found') return [];
      throw error;
    });
    if (found.length > 0) paths.push(entry);
  }
  return paths;
}

describe('the shipped manifests', () => {
  it('pass `voxform fmt --check`', async () => {
    const paths = await shippedManifestPaths();
    expect(paths).toContain('agents.example.yaml');
    const result = await runCliInProcess(['fmt', '--check', ...paths], { cwd: repoRoot });
    expect(result.stdout).toBe('');
    expect(result.code).toBe(0);
  });
});
