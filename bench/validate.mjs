// `voxform validate` as a whole process on realistic projects: each agent with a 2 KB prompt file,
// a phone per agent, campaigns, knowledge files, defaults and a staging overlay, the agents in
// files of a thousand. Guardrails
// (bench/README.md): 1,000 agents ≤ 0.4 s; 10,000 agents ≤ 1.5 s and ≤ 250 MB of peak memory.
// Figures are medians of the runs (peak memory: the largest). Run `npm run build` first: this runs
// bin/voxform.cjs over dist/.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expectClean, guardrails, loadAverage, median, runVoxform } from './lib/report.mjs';
import { writeProject } from './lib/validate-project.mjs';

const RUNS = 5;
/** Each project size and its guardrails: wall time in seconds, and peak memory in MB where there is one. */
const POINTS = [
  { agents: 1_000, seconds: 0.4 },
  { agents: 10_000, seconds: 1.5, peakMb: 250 },
];

const checks = guardrails();
console.log(`start: ${loadAverage()}`);
for (const point of POINTS) {
  const dir = await mkdtemp(path.join(tmpdir(), 'voxform-bench-validate-'));
  try {
    writeProject(dir, point.agents);
    // A failing validate would time the error path: check the generated project first (and warm the disk cache).
    expectClean(`validate of ${point.agents} agents`, await runVoxform(['validate', '-f', '.'], { cwd: dir }));
    const runs = [];
    for (let i = 0; i < RUNS; i++) runs.push(await runVoxform(['validate', '-f', '.'], { cwd: dir }));
    for (const run of runs) expectClean(`validate of ${point.agents} agents`, run);
    console.log(`\nvalidate, ${point.agents.toLocaleString('en-US')} agents (${RUNS} runs: ${runs.map((run) => (run.wallMs / 1000).toFixed(3)).join(', ')} s; CPU ${(median(runs.map((run) => run.cpuMs)) / 1000).toFixed(3)} s)`);
    checks.check('whole process', median(runs.map((run) => run.wallMs)) / 1000, point.seconds, 's', `≤ ${point.seconds} s`);
    if (point.peakMb) checks.check('peak memory (max of the runs)', Math.max(...runs.map((run) => run.rssMb)), point.peakMb, 'MB', `≤ ${point.peakMb} MB`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
console.log(`\nend: ${loadAverage()}`);
console.log(checks.passed ? 'validate: PASS (every guardrail held)' : 'validate: MISS (a guardrail was crossed)');
if (!checks.passed) process.exitCode = 1;
