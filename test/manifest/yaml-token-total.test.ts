/**
 * The manifest files of one load are held to a total of YAML tokens (src/yaml/limits.ts), checked as
 * each file is read: every file's values are kept until all are combined, so files each within the
 * per-file limit took gigabytes once there were enough of them. The total is lowered here so that
 * the files stay small.
 */
import { describe, expect, it, vi } from 'vitest';
import { loadTree, summarize } from './helpers.js';
import { yamlTokenCount } from '../../src/yaml/documents.js';

vi.mock('../../src/yaml/limits.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../src/yaml/limits.js')>()),
  MAX_YAML_TOKENS_PER_LOAD: 1000,
}));

/** A manifest of `phones` phone numbers, in block style (the fast reader) or with an anchor (the general parser). */
function phones(first: number, count: number, anchored = false): string {
  const lines = Array.from({ length: count }, (_, i) => `  "+1555${String(first + i).padStart(7, '0')}":\n    agent: desk\n`);
  return `${anchored ? 'x-note: &note phones\n' : ''}phones:\n${lines.join('')}`;
}

const TOO_MANY = 'yaml_too_large the manifest files read up to here have more than 1,000 YAML tokens together (keys, values, punctuation and lines; ten thousand agents have about 2,100,000), the most voxform reads in one run, so the files after this one were not parsed; load fewer or smaller manifest files';

describe('YAML tokens of all manifest files together', () => {
  it.each([
    ['the fast reader', false],
    ['the general parser', true],
  ])('stops the load at the file passing the total, read by %s, and reads no file after it', async (_reader, anchored) => {
    const file = phones(0, 40, anchored);
    expect(yamlTokenCount(file)).toBeGreaterThan(250);
    expect(yamlTokenCount(file)).toBeLessThan(334);
    const result = await loadTree({
      'm/a.yaml': file,
      'm/b.yaml': phones(100, 40, anchored),
      'm/c.yaml': phones(200, 40, anchored),
      'm/d.yaml': phones(300, 40, anchored),
      // Never read: its mistake is not reported.
      'm/e.yaml': 'version: 2\n',
    }, { paths: ['m'] });
    expect(result.state).toBeUndefined();
    const passed = summarize(result).filter((line) => line.includes('yaml_too_large'));
    expect(passed).toHaveLength(1);
    expect(passed[0]).toMatch(/^m\/d\.yaml:\d+:\d+ /);
    expect(passed[0]).toContain(TOO_MANY);
    expect(summarize(result).some((line) => line.startsWith('m/e.yaml'))).toBe(false);
  });

  it('takes files up to the total', async () => {
    const files = { 'm/a.yaml': phones(0, 40), 'm/b.yaml': phones(100, 40, true), 'm/c.yaml': phones(200, 40) };
    expect(Object.values(files).reduce((sum, text) => sum + yamlTokenCount(text), 0)).toBeLessThanOrEqual(1000);
    const result = await loadTree(files, { paths: ['m'] });
    expect(summarize(result).filter((line) => line.includes('yaml_too_large'))).toEqual([]);
  });
});
