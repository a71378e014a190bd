// `npm run bench`: every benchmark in turn (after the build). Each prints its figures, each
// guardrail with the ratio of the figure to it and PASS or MISS, and the machine's load average.
// Benchmarks are not tests: they are run by hand on a quiet machine, never in CI (bench/README.md).
//
//   npm run bench                      every benchmark but the scale point
//   npm run bench -- --scale           the 5,000-agent points too (plan-scale, drift)
//   npm run bench -- plan plan-scale   only the benchmarks named
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const BENCHES = [
  { name: 'validate', script: 'validate.mjs', args: [] },
  { name: 'version', script: 'version.mjs', args: [] },
  { name: 'emulator', script: 'emulator.mjs', args: [] },
  { name: 'client', script: 'client.mjs', args: [] },
  { name: 'plan', script: 'plan.mjs', args: [] },
  { name: 'plan-scale', script: 'plan.mjs', args: ['--scale'], onRequest: true },
  { name: 'drift', script: 'drift.mjs', args: [], onRequest: true },
  { name: 'test-conversations', script: 'test-conversations.mjs', args: [] },
  { name: 'state-backend', script: 'state-backend.mjs', args: [] },
  { name: 'webhook-send', script: 'webhook-send.mjs', args: [] },
  { name: 'traffic', script: 'traffic.mjs', args: [] },
  { name: 'report', script: 'report.mjs', args: [] },
  { name: 'policy', script: 'policy.mjs', args: [] },
];

const argv = process.argv.slice(2);
const named = argv.filter((arg) => !arg.startsWith('--'));
const unknown = named.filter((name) => !BENCHES.some((bench) => bench.name === name));
if (unknown.length > 0) {
  console.error(`bench: no benchmark named ${unknown.join(', ')} (there are ${BENCHES.map((bench) => bench.name).join(', ')})`);
  process.exit(1);
}
const chosen = BENCHES.filter((bench) => (named.length > 0 ? named.includes(bench.name) : !bench.onRequest || argv.includes('--scale')));

let failed = false;
for (const bench of chosen) {
  console.log(`\n== ${bench.name}: bench/${[bench.script, ...bench.args].join(' ')}`);
  const result = spawnSync(process.execPath, [path.join(here, bench.script), ...bench.args], { stdio: 'inherit' });
  if (result.status !== 0) {
    failed = true;
    console.log(`bench/${bench.script} exited ${result.status}`);
  }
}
process.exitCode = failed ? 1 : 0;
