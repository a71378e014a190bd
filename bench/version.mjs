// `voxform --version` against a bare `node -e 0`: what starting the command costs beyond starting
// Node. Guardrail (bench/README.md): the median of `voxform --version` ≤ 2 × the median of
// `node -e 0`, the two run in turn (paired) so that the machine's load falls on both alike.
// Run `npm run build` first: this runs bin/voxform.cjs over dist/.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { benchEnvironment, guardrails, loadAverage, median, root } from './lib/report.mjs';

const PAIRS = 15;
const LIMIT = 2;

function timed(args) {
  const started = performance.now();
  const result = spawnSync(process.execPath, args, { env: benchEnvironment(), stdio: ['ignore', 'pipe', 'pipe'], encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return performance.now() - started;
}

const bin = path.join(root, 'bin/voxform.cjs');
console.log(`start: ${loadAverage()}`);
// One of each first, unmeasured: the disk cache warm for both.
timed(['-e', '0']);
timed([bin, '--version']);
const bare = [];
const version = [];
for (let i = 0; i < PAIRS; i++) {
  bare.push(timed(['-e', '0']));
  version.push(timed([bin, '--version']));
}
const ms = (values) => `${median(values).toFixed(0)} ms`;
console.log(`\n${PAIRS} pairs: node -e 0 ${ms(bare)}, voxform --version ${ms(version)} (medians)`);
const checks = guardrails();
checks.check('--version / node -e 0', median(version) / median(bare), LIMIT, '×', `≤ ${LIMIT} ×`);
console.log(`\nend: ${loadAverage()}`);
console.log(checks.passed ? 'version: PASS (every guardrail held)' : 'version: MISS (a guardrail was crossed)');
if (!checks.passed) process.exitCode = 1;
