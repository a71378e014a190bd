/**
 * `fmt` checks that its layout keeps the meaning by comparing values, which walked every path
 * through the aliases: a "billion laughs" file took time exponential in its levels. It is held to the loader's alias limits first, counted without expanding anything.
 */
import { describe, expect, it, vi } from 'vitest';
import { Alias, parseDocument } from 'yaml';
import { aliasesWithinLimits } from '../../src/yaml/documents.js';
import { formatManifest } from '../../src/format/format-manifest.js';
import { isVoxformError, type VoxformError } from '../../src/errors.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const tempDir = useTempDirs();

/** `a0: &a0 [x ×10]`, then each level ten aliases of the one before: 10^levels values. */
function laughs(levels: number): string {
  const lines = [`a0: &a0 [${Array.from({ length: 10 }, () => 'x').join(', ')}]`];
  for (let i = 1; i < levels; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

function refusal(source: string): unknown {
  try {
    formatManifest(source, 'voxform.yaml');
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('fmt and YAML aliases', () => {
  it('refuses a billion-laughs file with the loader’s limit, leaving it as it is', () => {
    const error = refusal(laughs(7));
    expect(isVoxformError(error) && error.code).toBe('yaml_syntax');
    const problems = ((error as VoxformError).details as { diagnostics: Array<{ code: string }> }).diagnostics;
    expect(problems.map((problem) => problem.code)).toEqual(['yaml_alias_limit']);
  });

  it('counts the expansion without expanding or walking the document per alias', () => {
    const resolve = vi.spyOn(Alias.prototype, 'resolve');
    try {
      expect(aliasesWithinLimits(parseDocument(laughs(40)))).toBe(false);
      // Ten aliases each of 1,000 small anchors: 10,000 expansions, within the limit.
      const anchors = Array.from({ length: 1_000 }, (_, i) => `k${i}: &k${i} v`);
      const uses = Array.from({ length: 1_000 }, (_, i) => `u${i}: [${Array.from({ length: 10 }, () => `*k${i}`).join(', ')}]`);
      expect(aliasesWithinLimits(parseDocument([...anchors, ...uses].join('\n')))).toBe(true);
      expect(aliasesWithinLimits(parseDocument([...anchors, ...uses, 'one_more: *k0'].join('\n')))).toBe(false);
      expect(resolve).not.toHaveBeenCalled();
    } finally {
      resolve.mockRestore();
    }
  });

  it('still lays out a manifest whose aliases stay within the limits', () => {
    const source = 'agents:\n  a: { id: ag_1, config: { first_message: &m Hello, prompt: *m } }\n';
    const error = refusal(source);
    // Sorting would move the alias above its anchor: refused as before, for that reason.
    expect(isVoxformError(error) && error.code).toBe('fmt_unsafe');
    expect(formatManifest('agents:\n  a: { id: ag_1, config: { first_message: &m Hello } }\n  b: { id: ag_2, config: { first_message: *m } }\n', 'voxform.yaml').changed).toBe(false);
  });

  it('fmt --check on 12 levels: exit 1 with the reason, not a hang', async () => {
    const dir = await tempDir({ 'voxform.yaml': laughs(12) });
    const result = await runCliInProcess(['fmt', '--check'], { cwd: dir });
    expect(result.stderr).toContain('error[yaml_alias_limit]: with this alias, the aliases of this document expand to more than 100,000 values (the limit per document)');
    expect(result.code).toBe(1);
  });
});
