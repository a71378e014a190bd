/**
 * The manifest fuzzer in the suite: a few hundred seeded hostile projects must each end in a clean
 * verdict (manifest-fuzzer.mjs says what that is), a handful of them through the real CLI too, and
 * the inputs that once broke the loader are kept as fixtures. The seed is printed in the test name;
 * VOXFORM_FUZZ_SEED repeats a run. The long run: `npm run fuzz -- --count 10000`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadManifests } from '../../src/manifest/index.js';
import { runCliInProcess } from '../helpers/cli.js';
import { fuzzSeed } from '../helpers/fuzz-seed.js';
import { generateCase, openWorkspace, PLANTED, runCase, writeCase } from './manifest-fuzzer.mjs';

const SEED = fuzzSeed(20_261_123);
const CASES = 250;
const fixtures = path.join(path.dirname(fileURLToPath(import.meta.url)), 'fixtures');

describe(`manifest fuzzer, seed ${SEED}`, () => {
  it(`ends each of ${CASES} generated cases in a clean verdict`, { timeout: 600_000 }, async () => {
    const failures: string[] = [];
    const workspace = await openWorkspace();
    try {
      for (let index = 0; index < CASES; index++) {
        const testCase = generateCase(SEED, index);
        const verdict = await runCase(testCase, loadManifests, workspace);
        if (!verdict.clean) failures.push(`${testCase.name}: ${verdict.why}`);
      }
    } finally {
      await workspace.close();
    }
    expect(failures).toEqual([]);
  });

  it('ends a handful of cases in a clean verdict through the real CLI', { timeout: 300_000 }, async () => {
    for (let index = 0; index < 6; index++) {
      const testCase = generateCase(SEED + 1, index);
      const { project, cleanup } = await writeCase(testCase);
      try {
        for (const args of [['validate'], ['plan', '--format', 'markdown', '--local']]) {
          const result = await runCliInProcess(args, { cwd: project, env: { PLANTED_VALUE: PLANTED } });
          const where = `${testCase.name}, voxform ${args.join(' ')}`;
          expect(result.stderr, where).not.toMatch(/unexpected problem|\n\s+at /);
          expect(result.stdout + result.stderr, where).not.toContain(PLANTED);
          if (args[0] === 'validate') {
            expect([0, 1], where).toContain(result.code);
            if (result.code === 1) expect(result.stderr, where).toMatch(/^(voxform\.yaml:\d+:\d+ {2}|error\[\w+\]: )/m);
          }
        }
      } finally {
        await cleanup();
      }
    }
  });
});

describe('inputs that once broke the loader (test/fuzz/fixtures)', () => {
  const expected: Record<string, string[]> = {
    'alias-cycle.yaml': ['3:20 yaml_alias_cycle'],
    'billion-laughs.yaml': ['yaml_alias_limit'],
    'deep-flow.yaml': ['yaml_too_deep'],
    'large-anchor.yaml': ['yaml_alias_limit'],
    'misindented.yaml': ['6:6 yaml_indentation'],
    'proc-environ.yaml': ['6:23 file_outside_project'],
  };

  it('keeps exactly the fixtures listed here', () => {
    expect(readdirSync(fixtures).sort()).toEqual(Object.keys(expected).sort());
  });

  for (const [name, codes] of Object.entries(expected)) {
    it(`${name}: ${codes.join(', ')}`, async () => {
      const testCase = { ...generateCase(SEED, 0), manifest: readFileSync(path.join(fixtures, name)), environment: undefined };
      const { project, cleanup } = await writeCase(testCase);
      try {
        const result = await loadManifests({ paths: [], cwd: project, env: {} });
        expect(result.diagnostics.map((d) => (codes[0]?.includes(':') ? `${d.line}:${d.col} ${d.code}` : d.code))).toEqual(codes);
        // Through the CLI as well: exit 1 and the place, never a crash.
        await writeFile(path.join(project, 'voxform.yaml'), testCase.manifest);
        const cli = await runCliInProcess(['validate'], { cwd: project });
        expect(cli.code).toBe(1);
        expect(cli.stderr).toMatch(/^voxform\.yaml:\d+:\d+ {2}/m);
      } finally {
        await cleanup();
      }
    });
  }
});
