/**
 * A folder that files are missing from is listed once a load for the names they could have meant,
 * its names put in NFC form once: listed again for each missing file, many files named missing
 * from a full folder cost their product. The work is counted as the names `readdir` lists.
 */
import { describe, expect, it, vi } from 'vitest';
import { loadTree, summarize } from './helpers.js';

let listed = 0;
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...actual,
    readdir: async (...args: Parameters<typeof actual.readdir>) => {
      const names = await actual.readdir(...args);
      if (String(args[0]).endsWith('docs')) listed += names.length;
      return names;
    },
  };
});

const FILES = 300;

describe('a folder files are missing from is listed once', () => {
  it(`${FILES} knowledge files missing from a folder of ${FILES}: one listing, each still told the name it could have meant`, async () => {
    const composed = 'caf\u00e9.md';
    const decomposed = 'cafe\u0301.md';
    const files: Record<string, string> = { [`docs/${decomposed}`]: 'y' };
    for (let i = 0; i < FILES; i++) files[`docs/file-${i}.md`] = `# ${i}\n`;
    const missing = Array.from({ length: FILES }, (_, i) => `  m${i}: { file: docs/missing-${i}.md }`);
    const manifest = ['knowledge:', '  cafe: { file: "docs/caf\\u00e9.md" }', '  typo: { file: docs/file-7.mdx }', ...missing].join('\n');
    const result = await loadTree({ ...files, 'voxform.yaml': `${manifest}\n` });
    const reports = summarize(result);
    expect(reports).toHaveLength(FILES + 2);
    expect(reports.slice(0, 3)).toEqual([
      `voxform.yaml:2:17 file_missing knowledge file "docs/${composed}" does not exist (looked for docs/${composed}: paths are relative to the file that names them); a file of the same name in another Unicode form (NFD) exists: "docs/${decomposed}"; write the name as the file system holds it`,
      'voxform.yaml:3:17 file_missing knowledge file "docs/file-7.mdx" does not exist (looked for docs/file-7.mdx: paths are relative to the file that names them); did you mean "docs/file-7.md"?',
      'voxform.yaml:4:15 file_missing knowledge file "docs/missing-0.md" does not exist (looked for docs/missing-0.md: paths are relative to the file that names them)',
    ]);
    // Listed for each missing file: about (FILES + 2) × (FILES + 1) names.
    expect(listed).toBeLessThan(50 * FILES);
  });
});
