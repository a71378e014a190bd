/**
 * Whatever the manifest holds, loading it reports diagnostics and never throws: mutated copies of
 * the example manifest must all load to a result.
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile, mkdir, cp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/index.js';
import { repoRoot } from '../helpers/cli.js';
import { seededRandom } from '../../src/util/seeded-random.js';

const PIECES = [' ', '\n', '  ', ':', '- ', '"', '{', '}', '[', ']', 'null', '~', '${env:X}', '{{v}}', '12', 'agents', 'id', 'config', '\t', '&a ', '*a', '<<: ', '---\n'];

describe('loadManifests on mutated manifests', () => {
  it('always returns diagnostics instead of throwing', async () => {
    const example = readFileSync(path.join(repoRoot, 'agents.example.yaml'), 'utf8');
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-robust-'));
    try {
      await mkdir(path.join(dir, 'example'));
      await cp(path.join(repoRoot, 'example'), path.join(dir, 'example'), { recursive: true });
      const next = seededRandom(7);
      for (let round = 0; round < 300; round++) {
        let text = example;
        for (let e = 0; e < 1 + Math.floor(next() * 4); e++) {
          const at = Math.floor(next() * text.length);
          text = next() < 0.5 ? text.slice(0, at) + PIECES[Math.floor(next() * PIECES.length)] + text.slice(at) : text.slice(0, at) + text.slice(at + 1 + Math.floor(next() * 8));
        }
        await writeFile(path.join(dir, 'voxform.yaml'), text);
        const result = await loadManifests({ paths: [], cwd: dir, env: {}, environment: next() < 0.3 ? 'staging' : undefined });
        expect(result.state !== undefined || result.diagnostics.some((d) => d.severity === 'error'), `round ${round}:\n${text}`).toBe(true);
        for (const d of result.diagnostics) expect(d.line, `round ${round}`).toBeGreaterThan(0);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
