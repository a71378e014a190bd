/**
 * The manifests the docs show are in the layout `voxform fmt` writes: a user who copies one into
 * a project that runs `voxform fmt --check` in CI gets no failure from the copy.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { formatManifest } from '../../src/format/format-manifest.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { documentedManifests } from '../helpers/doc-example.js';

const tempDir = useTempDirs();
const documented = documentedManifests();

describe('the manifests of README.md and docs/', () => {
  it('are found, the promotion gates among them', () => {
    expect(documented.length).toBeGreaterThanOrEqual(10);
    expect(documented.map(([name]) => name)).toContain('docs/promotion.md example 1');
  });

  it.each(documented)('%s passes `voxform fmt --check`', async (name, yaml) => {
    const dir = await tempDir({ 'voxform.yaml': yaml });
    const result = await runCliInProcess(['fmt', '--check', 'voxform.yaml'], { cwd: dir });
    // On a failure, the layout fmt would write instead, as a diff against the example.
    if (result.code !== 0) expect(yaml, `${name}: ${result.stdout}${result.stderr}`).toBe(formatManifest(yaml, name).text);
    expect(result.code).toBe(0);
  });

  it('the flow map of docs/fmt.md\'s layout rules is written in the key order fmt writes', () => {
    const fmtDoc = readFileSync(new URL('../../docs/fmt.md', import.meta.url), 'utf8');
    const gates = /`(gates: \{[^`]*\})`/.exec(fmtDoc)?.[1];
    expect(gates, 'docs/fmt.md shows a gates flow map').toBeDefined();
    const yaml = `environments:\n  production:\n    promote_from: staging\n    ${gates}\n`;
    expect(formatManifest(yaml, 'docs/fmt.md').text).toBe(yaml);
  });
});
