/**
 * docs/manifest.md describes `voxform validate --format json` key by key: each key the command
 * writes, at the top and in `summary` and `policy`, is named there, so a key added to the output
 * without a word in the doc fails here.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

/** The paragraph of the Diagnostics section that describes the JSON. */
function jsonParagraph(): string {
  const text = readFileSync(path.join(repoRoot, 'docs/manifest.md'), 'utf8');
  const start = text.indexOf('`--format json` prints', text.indexOf('## Diagnostics'));
  expect(start, 'docs/manifest.md describes validate --format json under Diagnostics').toBeGreaterThan(0);
  return text.slice(start, text.indexOf('\n\n', start));
}

describe('docs/manifest.md on validate --format json', () => {
  it('names every key of the report, its summary and its policy', async () => {
    const dir = await tempDir({ 'voxform.yaml': 'agents:\n  front-desk:\n    id: -OKdqbqetEcM4ak369ym\n    config:\n      prompt: You answer the phone.\n' });
    const result = await runCliInProcess(['validate', '--format', 'json'], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as { summary: Record<string, unknown>; policy: { summary: Record<string, unknown> } };
    const keys = [...Object.keys(report), ...Object.keys(report.summary), ...Object.keys(report.policy), ...Object.keys(report.policy.summary)];
    const paragraph = jsonParagraph();
    const unnamed = keys.filter((key) => !new RegExp(`\\b${key}\\b`).test(paragraph));
    expect(unnamed, 'keys validate --format json writes that the doc does not name').toEqual([]);
  });
});
