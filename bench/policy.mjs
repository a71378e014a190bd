// What the policy adds to `voxform validate`: 500 agents with 2 KB prompt files (the project of
// bench/validate.mjs). Two kinds of process run in turn — one loads the manifests as validate does,
// the other loads them and checks the built-in policy pack — and the figure is the difference of
// their median wall times (module loading included). Goal: ≤ 150 ms. Run `npm run build` first.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { benchEnvironment, guardrails, loadAverage, median, root } from './lib/report.mjs';
import { writeProject } from './lib/validate-project.mjs';

const AGENTS = 500;
const PAIRS = 7;
const GOAL_MS = 150;

function timed(dir, mode) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [path.join(root, 'bench/lib/policy-worker.mjs'), dir, mode], { cwd: dir, env: benchEnvironment(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ ms: performance.now() - started, ...JSON.parse(stdout) }) : reject(new Error(`${mode} exited ${code}: ${stderr.slice(-2000)}`))));
  });
}

const checks = guardrails();
console.log(`start: ${loadAverage()}`);
const dir = await mkdtemp(path.join(tmpdir(), 'voxform-bench-policy-'));
try {
  writeProject(dir, AGENTS);
  const first = await timed(dir, 'policy'); // warms the disk cache; shows what the pack found
  const load = [];
  const withPolicy = [];
  for (let i = 0; i < PAIRS; i++) {
    load.push(await timed(dir, 'load'));
    withPolicy.push(await timed(dir, 'policy'));
  }
  const wall = (runs) => median(runs.map((run) => run.ms));
  const cpu = (runs) => median(runs.map((run) => run.cpuMs));
  console.log(`\npolicy, ${AGENTS} agents with 2 KB prompts (findings ${JSON.stringify(first.summary)}; ${PAIRS} pairs)`);
  console.log(`  load only (median)                 ${wall(load).toFixed(0)} ms wall, ${cpu(load).toFixed(0)} ms CPU`);
  console.log(`  load + policy (median)             ${wall(withPolicy).toFixed(0)} ms wall, ${cpu(withPolicy).toFixed(0)} ms CPU`);
  console.log(`  added by policy, CPU               ${(cpu(withPolicy) - cpu(load)).toFixed(0)} ms`);
  checks.check('added by policy, wall', (wall(withPolicy) - wall(load)) / 1000, GOAL_MS / 1000, 's', `≤ ${GOAL_MS} ms`);
} finally {
  await rm(dir, { recursive: true, force: true });
}
console.log(`\nend: ${loadAverage()}`);
console.log(checks.passed ? 'policy: PASS' : 'policy: MISS');
if (!checks.passed) process.exitCode = 1;
