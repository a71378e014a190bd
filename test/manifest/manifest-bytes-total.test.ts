/**
 * The manifest files of one load are held to a total of bytes (src/project-files/limits.ts), charged
 * before each file is read: each file's text is kept until the load ends, and comments hold no YAML
 * token, so files each within the per-file cap that parse to little (one long comment each) grew
 * memory with their number. The total is lowered here so that the files stay small.
 */
import { describe, expect, it, vi } from 'vitest';
import { loadTree, summarize } from './helpers.js';

vi.mock('../../src/project-files/limits.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/project-files/limits.js')>()),
  MAX_MANIFEST_BYTES_PER_LOAD: 1000,
}));

/** A manifest file of `bytes` bytes: one comment line. */
function comment(bytes: number): string {
  return `# ${'x'.repeat(bytes - 3)}\n`;
}

const PAST = 'file_too_large manifest m/c.yaml would take the manifest files read past 1000 bytes together, the most voxform reads in one run, so it was not read and no file after it was loaded; load fewer or smaller manifest files';

describe('bytes of all manifest files together', () => {
  it('stops the load at the file passing the total, before reading it, and uses no file after it', async () => {
    const result = await loadTree({
      'm/a.yaml': comment(400),
      'm/b.yaml': comment(400),
      'm/c.yaml': comment(300),
      // Never used: its mistake is not reported.
      'm/d.yaml': 'version: 2\n',
    }, { paths: ['m'] });
    expect(result.state).toBeUndefined();
    expect(summarize(result).filter((line) => !line.includes('empty_file'))).toEqual([`m/c.yaml:1:1 ${PAST}`]);
    expect(summarize(result).some((line) => line.startsWith('m/d.yaml'))).toBe(false);
  });

  it('takes files up to the total', async () => {
    const result = await loadTree({ 'm/a.yaml': comment(400), 'm/b.yaml': comment(300), 'm/c.yaml': `${comment(200)}version: 1\n${comment(100 - 'version: 1\n'.length)}` }, { paths: ['m'] });
    expect(summarize(result).filter((line) => !line.includes('empty_file'))).toEqual([]);
    expect(result.state).toBeDefined();
  });
});
