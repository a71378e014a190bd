/**
 * Hostile conversation-test files, made by a seeded generator: a pull request writes them, and
 * `voxform test` reads them before review. Whatever a file holds — nesting past the limits, alias
 * bombs, huge scalars, controls and bidi marks, wrong types, caps crossed, catastrophic regular
 * expressions — loading ends in a clean verdict: tests, or diagnostics that each name the file and
 * a position in it; never an unexpected error. Case i is drawn from the run's seed + i, and a failing
 * case prints its own; the run's seed is in the test name, and VOXFORM_FUZZ_SEED repeats a run.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTestFiles } from '../../src/conversations/load-tests.js';
import { isVoxformError } from '../../src/errors.js';
import { seededRandom } from '../../src/util/seeded-random.js';
import { useTempDirs } from '../helpers/cli.js';
import { fuzzSeed } from '../helpers/fuzz-seed.js';

const tempDir = useTempDirs();
const AGENTS = new Set(['front-desk']);
const SEED = fuzzSeed(0);
const CASES = 150;

type Random = () => number;
const pick = <T>(random: Random, items: readonly T[]): T => items[Math.floor(random() * items.length)]!;

const ODD_TEXT = ['\u001b[31m', '\u009b2J', '\u0085', '\u007f', '\u202e', '\u2066', '\u0000', '\ud800', '@team', '<img src=x>', '|', '`', '"', "'", ': ', '# ', '&a', '*a', '!!js/function', '\t'];

function scalar(random: Random): string {
  switch (Math.floor(random() * 7)) {
    case 0:
      return JSON.stringify(pick(random, ODD_TEXT).repeat(1 + Math.floor(random() * 5)));
    case 1:
      return JSON.stringify('x'.repeat(Math.floor(random() * 200_000)));
    case 2:
      return String(Math.floor(random() * 1e9) - 5e8);
    case 3:
      return pick(random, ['null', 'true', '~', '[]', '{}', '.nan', '-.inf', '0x1F']);
    case 4:
      return JSON.stringify(pick(random, ['(a+)+$', '(a|a)*b', '^(\\w+\\s?)*$', '[', '(?<n>a)\\k<n>', '.*'.repeat(50)]));
    case 5:
      return `${pick(random, ODD_TEXT)}plain${pick(random, ODD_TEXT)}`;
    default:
      return 'When are you open?';
  }
}

function nested(random: Random, depth: number): string {
  return depth === 0 ? scalar(random) : random() < 0.5 ? `[${nested(random, depth - 1)}]` : `{ k: ${nested(random, depth - 1)} }`;
}

function aliasBomb(levels: number): string {
  const lines = ['a0: &a0 [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < levels; i++) lines.push(`a${i}: &a${i} [${Array.from({ length: 10 }, () => `*a${i - 1}`).join(', ')}]`);
  return lines.join('\n');
}

/** One test entry, valid or bent in one place. */
function testEntry(random: Random, index: number): string[] {
  const turns = Math.floor(random() * 4) === 0 ? 40 + Math.floor(random() * 30) : 1 + Math.floor(random() * 4);
  const lines = [`  - name: ${random() < 0.2 ? scalar(random) : `case ${index}`}`];
  if (random() < 0.2) {
    lines.push(`    simulate: { persona: ${scalar(random)}, goal: ${scalar(random)}, max_turns: ${pick(random, ['5', '51', '-1', '1e9', '"ten"'])} }`);
  } else {
    lines.push('    turns:');
    for (let t = 0; t < turns; t++) {
      lines.push(`      - user: ${scalar(random)}`);
      lines.push(`        expect: [{ ${pick(random, ['contains', 'regex', 'equals', 'not_contains', 'judge', 'unknown_check'])}: ${scalar(random)} }]`);
    }
  }
  if (random() < 0.3) lines.push(`    repeat: ${pick(random, ['3', '21', '0', '-2', '1e12', '"5"'])}`);
  if (random() < 0.2) lines.push(`    pass_rate: ${pick(random, ['0.8', '2', '-1', 'x'])}`);
  return lines;
}

function hostileFile(seed: number): string {
  const random = seededRandom(seed);
  const head = [`agent: ${random() < 0.8 ? 'front-desk' : scalar(random)}`];
  switch (Math.floor(random() * 6)) {
    case 0:
      head.push(`metadata: ${nested(random, 10 + Math.floor(random() * 200))}`);
      break;
    case 1:
      head.push(aliasBomb(3 + Math.floor(random() * 5)));
      break;
    case 2:
      head.push(`metadata: { ${Array.from({ length: 50 }, (_, i) => `k${i % 7}: ${scalar(random)}`).join(', ')} }`);
      break;
    case 3:
      head.push(`tests: ${scalar(random)}`);
      return head.join('\n');
    default:
      break;
  }
  const tests = Array.from({ length: 1 + Math.floor(random() * 6) }, (_, i) => testEntry(random, i)).flat();
  let text = [...head, 'tests:', ...tests].join('\n');
  // Now and then a byte-level cut or splice, as a broken editor or a hostile hand would leave it.
  if (random() < 0.2) text = text.slice(0, Math.floor(random() * text.length));
  if (random() < 0.1) text = text.replace(/\n/, '\n\t');
  return text;
}

describe(`conversation-test files from a seeded generator of hostile inputs (seed ${SEED})`, () => {
  it(`loads ${CASES} hostile files, each to tests or to diagnostics with a file and a position`, async () => {
    for (let seed = SEED + 1; seed <= SEED + CASES; seed++) {
      const text = hostileFile(seed);
      const dir = await tempDir({ 'tests/a.test.yaml': text });
      const file = path.join(dir, 'tests/a.test.yaml');
      let result;
      try {
        result = await loadTestFiles({ files: [file], cwd: dir, agents: AGENTS });
      } catch (error) {
        // A refusal of the whole file (too large, say) is a clean verdict too; anything else is a bug.
        expect(isVoxformError(error), `seed ${seed}: ${String(error)}`).toBe(true);
        continue;
      }
      expect(result.files !== undefined || result.diagnostics.length > 0, `seed ${seed}: neither tests nor diagnostics`).toBe(true);
      for (const d of result.diagnostics) {
        expect(d.file, `seed ${seed}: ${d.message}`).toBeTruthy();
        expect(d.line, `seed ${seed}: ${d.message}`).toBeGreaterThanOrEqual(1);
        expect(d.col, `seed ${seed}: ${d.message}`).toBeGreaterThanOrEqual(1);
      }
    }
  }, 120_000);
});
