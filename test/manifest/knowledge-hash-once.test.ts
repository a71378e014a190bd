/**
 * Knowledge files are hashed once per distinct file in a load: 10,000 entries (the cap) naming one
 * 50 MB file would otherwise read it 10,000 times. The work is counted as the opens of the file.
 */
import { link, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadManifests } from '../../src/manifest/index.js';
import { useTempDirs } from '../helpers/cli.js';
import { loadTree } from './helpers.js';

const opened: string[] = [];
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    open: (file: Parameters<typeof actual.open>[0], ...rest: Array<string | number | undefined>) => {
      opened.push(String(file));
      return actual.open(file, ...(rest as [string | number | undefined]));
    },
  };
});

const tempDir = useTempDirs();
afterEach(() => void opened.splice(0));

const entries = (count: number, file: (i: number) => string) =>
  `knowledge:\n${Array.from({ length: count }, (_, i) => `  k${i}: { file: ${file(i)} }`).join('\n')}\n`;

describe('knowledge files are hashed once per distinct file', () => {
  it('100 entries naming one file open it once, and each gets its hash', async () => {
    const result = await loadTree({ 'voxform.yaml': entries(100, () => 'kb/faq.md'), 'kb/faq.md': '# FAQ\nOpen 9 to 5.\n' });
    expect(result.diagnostics).toEqual([]);
    const hashes = new Set([...(result.state?.knowledge.values() ?? [])].map((k) => k.contentHash));
    expect(hashes.size).toBe(1);
    expect(result.state?.knowledge.size).toBe(100);
    expect(opened.filter((file) => file.endsWith('faq.md'))).toHaveLength(1);
  });

  it('other names of the same file (symbolic and hard links) do not read it again; another file is read', async () => {
    const dir = await tempDir({ 'kb/faq.md': '# FAQ\n', 'kb/other.md': '# Other\n' });
    for (let i = 0; i < 20; i++) {
      await symlink('faq.md', path.join(dir, `kb/soft${i}.md`));
      await link(path.join(dir, 'kb/faq.md'), path.join(dir, `kb/hard${i}.md`));
    }
    const names = ['faq.md', 'other.md', ...Array.from({ length: 20 }, (_, i) => [`soft${i}.md`, `hard${i}.md`]).flat()];
    await writeFile(path.join(dir, 'voxform.yaml'), entries(names.length, (i) => `kb/${names[i]}`));
    const result = await loadManifests({ paths: [], env: {}, cwd: dir });
    expect(result.diagnostics).toEqual([]);
    expect(opened.filter((file) => file.includes(`${path.sep}kb${path.sep}`))).toHaveLength(2);
  });
});
