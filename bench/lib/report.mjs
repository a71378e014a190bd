// What every benchmark prints beside its figures: the machine's load (figures from a busy machine
// are not the code's alone), medians, and the verdict against a goal.
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { performance } from 'node:perf_hooks';

export function loadAverage() {
  const [one, five, fifteen] = os.loadavg();
  return `load average ${one.toFixed(2)}, ${five.toFixed(2)}, ${fifteen.toFixed(2)} on ${os.cpus().length} cores`;
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

export const verdict = (ok) => (ok ? 'PASS' : 'MISS');

export const seconds = (ms) => `${(ms / 1000).toFixed(2)} s`;

/**
 * The environment the benchmarks run voxform in: PATH and what the benchmark sets, nothing of the
 * shell's. A variable such as NODE_EXTRA_CA_CERTS (a CA bundle every Node process loads as it
 * starts: 80 ms of each start on the machine these figures were first taken on) is the machine's
 * cost, not the command's; `nodeStartup` shows what it would add.
 */
export function benchEnvironment(extra) {
  return { PATH: process.env.PATH, ...extra };
}

/** Median wall time (ms) of a bare `node -e 0` in `env`, over `runs` starts. */
export function nodeStartup(env, runs = 5) {
  const times = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { env, stdio: 'ignore' });
    times.push(performance.now() - started);
  }
  return median(times);
}
