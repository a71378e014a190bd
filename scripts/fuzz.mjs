// `npm run fuzz -- [--count N] [--seed S]`: the long run of the manifest fuzzer over the built
// package (test/fuzz/manifest-fuzzer.mjs; the test suite runs a few hundred cases of it). Prints the
// seed first (a failure is reproduced with it), then clean verdicts / total, the slowest case, the
// process's peak memory, and the heaviest cases run again through the CLI, each with its own time and
// peak memory; exits 1 when any case was not a clean verdict.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCase, openWorkspace, runCase, writeCase } from '../test/fuzz/manifest-fuzzer.mjs';
import { loadManifests } from '../dist/manifest/index.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The heaviest cases (by time in process) are run again through the CLI, each in a process of its own, for its own peak memory. */
const CLI_CASES = 5;

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
let heaviest = [];
const failures = [];
const started = Date.now();
const workspace = await openWorkspace();
for (let index = 0; index < count; index++) {
  const testCase = generateCase(seed, index);
  const verdict = await runCase(testCase, loadManifests, workspace);
  if (verdict.clean) clean++;
  else failures.push(`${testCase.name}: ${verdict.why}`);
  if (verdict.ms > slowest.ms) slowest = { ms: verdict.ms, name: testCase.name };
  heaviest = [...heaviest, { index, ms: verdict.ms }].sort((a, b) => b.ms - a.ms).slice(0, CLI_CASES);
  if ((index + 1) % 500 === 0) console.log(`  ${index + 1} cases, ${clean} clean`);
}
await workspace.close();
const peak = process.resourceUsage().maxRSS / 1024;
console.log(`clean verdicts: ${clean} / ${count}`);
console.log(`slowest case: ${(slowest.ms / 1000).toFixed(2)} s (${slowest.name})`);
console.log(`peak memory (RSS) of this process, over all cases: ${peak.toFixed(0)} MB`);
for (const { index } of heaviest) {
  const testCase = generateCase(seed, index);
  const { project, cleanup } = await writeCase(testCase);
  const probeFile = path.join(tmpdir(), `voxform-fuzz-probe-${process.pid}`);
  const begun = Date.now();
  const run = spawnSync(process.execPath, ['--import', path.join(root, 'bench/lib/probe.mjs'), path.join(root, 'bin/voxform.cjs'), 'validate'], {
    cwd: project,
    env: { PATH: process.env.PATH, NO_COLOR: '1', BENCH_PROBE_FILE: probeFile },
    encoding: 'utf8',
    timeout: 60_000,
  });
  const rss = JSON.parse(readFileSync(probeFile, 'utf8')).maxRssBytes / 1024 / 1024;
  rmSync(probeFile, { force: true });
  const crashed = /unexpected problem|\n\s+at /.test(run.stderr) || ![0, 1].includes(run.status);
  if (crashed) failures.push(`${testCase.name} through the CLI: exit ${run.status}`);
  console.log(`  through the CLI: ${testCase.name}: exit ${run.status}, ${((Date.now() - begun) / 1000).toFixed(2)} s, peak ${rss.toFixed(0)} MB`);
  await cleanup();
}
console.log(`total: ${((Date.now() - started) / 1000).toFixed(0)} s`);
for (const failure of failures.slice(0, 20)) console.log(`NOT CLEAN ${failure}`);
process.exitCode = failures.length === 0 ? 0 : 1;
