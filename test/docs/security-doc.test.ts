import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot } from '../helpers/cli.js';

/** docs/security.md says how each promise is tested: the tests it names must exist. */
describe('docs/security.md', () => {
  const text = readFileSync(path.join(repoRoot, 'docs/security.md'), 'utf8');
  const named = [...new Set([...text.matchAll(/`(test\/[^`\s]+)`/g)].map((match) => match[1] as string))];

  it('names the tests behind its promises', () => {
    expect(named.length).toBeGreaterThan(15);
  });

  it.each(named)('%s exists', (file) => {
    expect(existsSync(path.join(repoRoot, file.replace(/\/$/, ''))), file).toBe(true);
  });
});
