// `voxform webhook send` as a whole process, to a receiver on loopback that answers at once: the
// end-of-call POST and the prefetch GET with a sample payload, and the end-of-call POST with an
// agent's headers (which loads the manifest). Goal on a 2-core machine: ≤ 0.3 s per run (median of
// 10), for each. `voxform --version` is printed as the floor of process start-up, and each run's CPU
// time beside its wall time: on a busy machine the wall time is mostly waiting for a core.
// Run `npm run build` first (this uses dist/ and bin/voxform.cjs).
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { loadAverage, median, verdict } from './lib/report.mjs';

const RUNS = 10;
const GOAL_SECONDS = 0.3;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const bin = path.join(root, 'bin/voxform.cjs');

const MANIFEST = `agents:
  front-desk:
    id: "-OKdqbqetEcM4ak369ym"
    config:
      prompt: You are the front desk of Acme Dental.
      session_data_webhook:
        url: https://hooks.example.com/voice/end-of-call
        headers: { x-hook-token: "\${env:HOOK_TOKEN}" }
`;

// The receiver runs in a child process: a spawnSync here would block this process's event loop.
const receiverSource = `
const http = require('node:http');
const server = http.createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end(req.method === 'GET' ? '{"metadata":{"tier":"gold"}}' : '{}'));
});
server.listen(0, '127.0.0.1', () => console.log(server.address().port));
`;

function startReceiver() {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', receiverSource], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.stdout.setEncoding('utf8').once('data', (port) => resolve({ url: `http://127.0.0.1:${port.trim()}`, close: () => child.kill() }));
    child.on('error', reject);
  });
}

// Preloaded into each run: its CPU time (user + system) on exit, which the machine's load barely changes.
const CPU_REPORTER = `data:text/javascript,process.on('exit', () => { const u = process.cpuUsage(); process.stderr.write('\\ncpu-ms ' + (u.user + u.system) / 1000 + '\\n'); });`;

/** Medians of the wall time and CPU time of `RUNS` runs, in seconds. */
function timeRuns(args, cwd, env, expect) {
  const times = [];
  const cpu = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    const result = spawnSync(process.execPath, ['--import', CPU_REPORTER, bin, ...args], { cwd, env: { PATH: process.env.PATH, NO_COLOR: '1', ...env }, encoding: 'utf8' });
    times.push((performance.now() - started) / 1000);
    if (result.status !== 0 || !result.stdout.includes(expect)) throw new Error(`voxform ${args.join(' ')} exited ${result.status}:\n${result.stdout}${result.stderr}`);
    cpu.push(Number(/cpu-ms ([\d.]+)/.exec(result.stderr)?.[1] ?? Number.NaN) / 1000);
  }
  return { wall: median(times), cpu: median(cpu) };
}

const dir = mkdtempSync(path.join(tmpdir(), 'voxform-bench-webhook-'));
const receiver = await startReceiver();
let missed = false;
try {
  writeFileSync(path.join(dir, 'voxform.yaml'), MANIFEST);
  const env = { HOOK_TOKEN: 'bench-hook-token-0123456789' };
  const version = timeRuns(['--version'], dir, env, '.');
  console.log(`${loadAverage()} (a shared machine: figures include its load)`);
  console.log(`voxform --version (start-up floor)  median of ${RUNS}  ${version.wall.toFixed(3)} s  (CPU ${version.cpu.toFixed(3)} s)`);
  const cases = [
    ['end-of-call, sample payload', ['webhook', 'send', '--to', `${receiver.url}/hook`, '--event', 'end-of-call']],
    ['prefetch, sample payload', ['webhook', 'send', '--to', `${receiver.url}/hook`, '--event', 'prefetch']],
    ['end-of-call, --agent headers', ['webhook', 'send', '--to', `${receiver.url}/hook`, '--event', 'end-of-call', '--agent', 'front-desk']],
  ];
  for (const [label, args] of cases) {
    const { wall, cpu } = timeRuns(args, dir, env, 'PASS');
    const ratio = wall / GOAL_SECONDS;
    missed ||= ratio > 1;
    console.log(`webhook send  ${label.padEnd(30)}  median of ${RUNS}  ${wall.toFixed(3)} s  (goal ≤ ${GOAL_SECONDS} s; ratio to goal ${ratio.toFixed(2)}) ${verdict(ratio <= 1)}  CPU ${cpu.toFixed(3)} s`);
  }
} finally {
  receiver.close();
  rmSync(dir, { recursive: true, force: true });
}
if (missed) process.exitCode = 1;
