// `npm run fuzz -- [--count N] [--seed S]`: the long run of the manifest fuzzer over the built
// package (test/fuzz/manifest-fuzzer.mjs; the test suite runs a few hundred cases of it). Prints the
// seed first (a failure is reproduced with it), then clean verdicts / total, the slowest case and the
// process's peak memory; exits 1 when any case was not a clean verdict.
import { generateCase, runCase } from '../test/fuzz/manifest-fuzzer.mjs';
import { loadManifests } from '../dist/manifest/index.js';

function option(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = Number(process.argv[at + 1]);
  if (!Number.isInteger(value) || value < 0) {
    console.error(`--${name} takes a whole number`);
    process.exit(1);
  }
  return value;
}

const count = option('count', 1000);
const seed = option('seed', Date.now() % 1_000_000);
console.log(`manifest fuzzer: ${count} cases, seed ${seed} (repeat with --seed ${seed})`);

let clean = 0;
let slowest = { ms: 0, name: '' };
const failures = [];
const started = Date.now();
for (let index = 0; index < count; index++) {
  const testCase = generateCase(seed, index);
  const verdict = await runCase(testCase, loadManifests);
  if (verdict.clean) clean++;
  else failures.push(`${testCase.name}: ${verdict.why}`);
  if (verdict.ms > slowest.ms) slowest = { ms: verdict.ms, name: testCase.name };
  if ((index + 1) % 500 === 0) console.log(`  ${index + 1} cases, ${clean} clean`);
}
const peak = process.resourceUsage().maxRSS / 1024;
console.log(`clean verdicts: ${clean} / ${count}`);
console.log(`slowest case: ${(slowest.ms / 1000).toFixed(2)} s (${slowest.name})`);
console.log(`peak memory (RSS): ${peak.toFixed(0)} MB`);
console.log(`total: ${((Date.now() - started) / 1000).toFixed(0)} s`);
for (const failure of failures.slice(0, 20)) console.log(`NOT CLEAN ${failure}`);
process.exitCode = failures.length === 0 ? 0 : 1;
