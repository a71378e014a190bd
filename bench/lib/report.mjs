// What every benchmark prints beside its figures: the machine's load (figures from a busy machine
// are not the code's alone), medians, and each figure against its guardrail.
import { spawn } from 'node:child_process';
import { readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

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
 * Collects guardrail checks and prints each as one line: the figure, its guardrail, the ratio of
 * the figure to the guardrail, and PASS (at most the guardrail) or MISS.
 */
export function guardrails() {
  const results = [];
  return {
    check(name, value, limit, unit, limitText) {
      const ok = value <= limit;
      results.push(ok);
      const shown = unit === 'MB' ? `${value.toFixed(0)} MB` : `${value.toFixed(3)} ${unit}`;
      console.log(`  ${name.padEnd(34)} ${shown.padStart(10)}   guardrail ${limitText}   ratio ${(value / limit).toFixed(2)}   ${verdict(ok)}`);
      return ok;
    },
    get passed() {
      return results.every(Boolean);
    },
  };
}

/**
 * The environment the benchmarks run voxform in: PATH and what the benchmark sets, nothing of the
 * shell's, so that a variable every Node process acts on as it starts (a CA bundle, preloaded
 * modules) is not counted as the command's.
 */
export function benchEnvironment(extra = {}) {
  return { PATH: process.env.PATH, NO_COLOR: '1', ...extra };
}

/**
 * Runs `node [nodeArgs] bin/voxform.cjs args` as a whole process with bench/lib/probe.mjs preloaded.
 * Resolves with its exit code, stderr, wall time (ms), when it started and ended (epoch ms), and the
 * probe's peak memory (MB) and CPU time (ms).
 */
export function runVoxform(args, { cwd, env = {} }) {
  const probeFile = path.join(cwd, `probe-${process.pid}-${performance.now().toFixed(0)}.json`);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // BENCH_CPU_PROF=DIR: a CPU profile of each measured command in DIR.
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_CPU_PROF)] : [];
    const child = spawn(process.execPath, [...profile, '--import', path.join(root, 'bench/lib/probe.mjs'), path.join(root, 'bin/voxform.cjs'), ...args], {
      cwd,
      env: benchEnvironment({ ...env, BENCH_PROBE_FILE: probeFile }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', async (code) => {
      const ended = performance.now();
      try {
        const probe = JSON.parse(await readFile(probeFile, 'utf8'));
        await rm(probeFile);
        resolve({
          code,
          stderr,
          wallMs: ended - started,
          startedAt: performance.timeOrigin + started,
          endedAt: performance.timeOrigin + ended,
          rssMb: probe.maxRssBytes / 2 ** 20,
          cpuMs: probe.cpuMs,
        });
      } catch (error) {
        reject(new Error(`voxform ${args.join(' ')} exited ${code} without the probe's report: ${stderr.slice(-2000)}`, { cause: error }));
      }
    });
  });
}

/** Throws when a run exited with a code it should not have, or printed a warning of Node's own (a defect the user would see). */
export function expectClean(label, run, codes = [0]) {
  if (!codes.includes(run.code)) throw new Error(`${label} exited ${run.code}: ${run.stderr.slice(-2000)}`);
  // As Node prints one, or as the CLI prints a warning of a kind (src/cli/main.ts).
  const nodeWarning = /\(node:\d+\) \w*Warning: .*|^warning: \w+Warning: .*/m.exec(run.stderr);
  if (nodeWarning) throw new Error(`${label} printed a warning of Node's: ${nodeWarning[0]}`);
}
