// Plan and apply against the emulator with 20 ms of latency on every request, each command run as
// a whole `voxform` process.
//
//   node bench/plan.mjs            500 agents + 500 phones + 50 campaigns, parallelism 8
//   node bench/plan.mjs --scale    5,000 agents + 5,000 phones, parallelism 32
//   --runs N                       rounds of plan → apply → plan (default 3; figures are medians)
//
// The floor of a command is (its requests × latency / parallelism): the time its requests need on
// the wire when nothing else costs anything. The requests are counted from the emulator's request
// log, not assumed. Goals:
//   plan   network phase ≤ 1.15 × floor; whole process ≤ 1.25 × floor + 0.3 s
//   apply  whole process ≤ 1.2 × floor (its fresh plan's reads included in requests and floor)
//   peak RSS of the voxform process ≤ 250 MB (≤ 500 MB at --scale)
// The network phase is the service's view, from the emulator's request log: from the arrival of the
// first request to the moment the last answer left. Before it: from the process's start (as the
// benchmark spawned it) to that first arrival; after it: from the last answer to the process's
// exit. The emulator runs in its own process, as the service would; peak memory and CPU time come
// from bench/lib/probe.mjs inside the voxform process. The commands run with PATH and the
// benchmark's variables only (bench/lib/report.mjs says why). Each round first sends the agents' reads from
// a bare socket pool (bench/lib/wire-reference.mjs): the network ratio this machine and emulator
// allow any client. Run `npm run build` first (this uses dist/ and bin/voxform.js).
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { benchProject } from './lib/project.mjs';
import { benchEnvironment, loadAverage, median, nodeStartup, seconds, verdict } from './lib/report.mjs';
import { wireReference } from './lib/wire-reference.mjs';

const POINTS = {
  default: { agents: 500, phones: 500, campaigns: 50, parallelism: 8, latencyMs: 20, rssGoalMb: 250 },
  scale: { agents: 5_000, phones: 5_000, campaigns: 0, parallelism: 32, latencyMs: 20, rssGoalMb: 500 },
};
const GOALS = { planNetwork: 1.15, planWhole: 1.25, planWholeFixedMs: 300, apply: 1.2 };

const args = process.argv.slice(2);
const point = args.includes('--scale') ? POINTS.scale : POINTS.default;
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
if (!(Number.isInteger(RUNS) && RUNS > 0)) throw new Error('--runs takes a whole number of rounds, 1 or more');

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const { buildSeed, writeProject, API_KEY, agentId } = benchProject(point);

/** Runs one CLI command as a whole process, with the probe preloaded; resolves with its wall time and the probe's report. */
function runCli(dir, cliArgs, env) {
  const probeFile = path.join(dir, 'probe.json');
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const startedAt = performance.timeOrigin + started;
    // BENCH_CPU_PROF=DIR: a CPU profile of each command in DIR (open it in Chrome's DevTools).
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_CPU_PROF)] : [];
    const child = spawn(process.execPath, [...profile, '--import', path.join(root, 'bench/lib/probe.mjs'), path.join(root, 'bin/voxform.js'), ...cliArgs], {
      cwd: dir,
      env: benchEnvironment({ ...env, NO_COLOR: '1', BENCH_PROBE_FILE: probeFile }),
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', async (code) => {
      const ended = performance.now();
      const probe = JSON.parse(await readFile(probeFile, 'utf8'));
      await rm(probeFile);
      resolve({ code, wallMs: ended - started, startedAt, endedAt: performance.timeOrigin + ended, probe, stderr });
    });
  });
}

/** `GET /agents/{id}` × 500 and the like: the requests a command sent, by operation, from the emulator's log. */
function countByOperation(entries) {
  const counts = new Map();
  for (const entry of entries) {
    const shape = entry.path.replace(/^\/agents\/[^/]+/, '/agents/{id}').replace(/^\/phones\/[^/]+/, '/phones/{number}').replace(/^\/campaigns\/[^/]+/, '/campaigns/{id}');
    const key = `${entry.method} ${shape}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([key, n]) => `${n} × ${key}`).join(', ');
}

async function measure(emulator, dir, label, cliArgs, env, expectedCodes) {
  const before = await emulator.lastRequestSeq();
  const result = await runCli(dir, cliArgs, env);
  if (!expectedCodes.includes(result.code)) throw new Error(`${label} exited ${result.code}: ${result.stderr.slice(-2000)}`);
  // A warning of Node's own (a listener leak, a deprecation) is a defect the user would see.
  const nodeWarning = /\(node:\d+\) \w*Warning: .*/.exec(result.stderr);
  if (nodeWarning) throw new Error(`${label} printed a warning of Node's: ${nodeWarning[0]}`);
  const entries = await emulator.requestsSince(before);
  const requests = entries.length;
  if (requests >= emulator.requestLogLimit) throw new Error(`${label}: the emulator's log is full (${requests} entries), some requests may be missing: raise requestLogLimit`);
  const { maxRssBytes, cpuMs } = result.probe;
  // The log's clock is the emulator's wall clock (ms), this one's too: both are this machine's.
  const firstArrival = Math.min(...entries.map((entry) => Date.parse(entry.at)));
  const lastAnswer = Math.max(...entries.map((entry) => Date.parse(entry.at) + entry.duration_ms));
  return {
    cpuMs,
    // Arrival to answer inside the emulator (its latency included): far above the latency, the
    // emulator (or the machine under it) is what the requests waited on.
    emulatorMs: median(entries.map((entry) => entry.duration_ms)),
    label,
    requests,
    operations: countByOperation(entries),
    wallMs: result.wallMs,
    networkMs: lastAnswer - firstArrival,
    beforeNetworkMs: firstArrival - result.startedAt,
    afterNetworkMs: result.endedAt - lastAnswer,
    rssMb: maxRssBytes / 2 ** 20,
  };
}

const COMMANDS = [
  { label: 'plan (first)', args: ['plan'], codes: [0] },
  { label: 'apply', args: ['apply', '--auto-approve'], codes: [0] },
  { label: 'plan (after)', args: ['plan', '--detailed-exitcode'], codes: [0] },
];

/** One verdict line per goal of a command, from the medians of its runs. */
function report(label, runs, referenceRatio) {
  const requests = runs[0].requests;
  if (runs.some((r) => r.requests !== requests)) throw new Error(`${label}: the runs sent different numbers of requests (${runs.map((r) => r.requests).join(', ')})`);
  const floorMs = (requests * point.latencyMs) / point.parallelism;
  const wallMs = median(runs.map((r) => r.wallMs));
  const networkMs = median(runs.map((r) => r.networkMs));
  const rssMb = Math.max(...runs.map((r) => r.rssMb));
  const isPlan = label.startsWith('plan');
  console.log(`\n${label}: ${requests} requests (${runs[0].operations})`);
  console.log(`  floor           ${seconds(floorMs)} (${requests} × ${point.latencyMs} ms / ${point.parallelism})`);
  console.log(
    `  phases          before the first request ${seconds(median(runs.map((r) => r.beforeNetworkMs)))}, network ${seconds(networkMs)}, ` +
      `after the last answer ${seconds(median(runs.map((r) => r.afterNetworkMs)))} (medians; runs: ${runs.map((r) => seconds(r.wallMs)).join(', ')} whole)`,
  );
  console.log(
    `  waiting         CPU time ${seconds(median(runs.map((r) => r.cpuMs)))} of ${seconds(wallMs)} whole; ` +
      `the emulator answered in ${median(runs.map((r) => r.emulatorMs)).toFixed(1)} ms (median, ${point.latencyMs} ms latency included)`,
  );
  // The reference is this machine's and this emulator's share of the floor; what a command's network
  // phase shows above it is voxform's own (its CPU beside the wire thread's, its gaps between requests).
  console.log(`  own share       network phase ${(networkMs / floorMs / referenceRatio).toFixed(2)} × the wire reference (${referenceRatio.toFixed(2)} × floor), no goal of its own`);
  const checks = [];
  const line = (name, value, goal, goalText) => {
    const ok = value <= goal;
    checks.push(ok);
    console.log(`  ${name.padEnd(15)} ${value.toFixed(name === 'peak RSS' ? 0 : 2).padStart(7)}${name === 'peak RSS' ? ' MB' : ' s '}  ${goalText}  ratio to goal ${(value / goal).toFixed(2)}  ${verdict(ok)}`);
  };
  const ratio = (ms) => `${(ms / floorMs).toFixed(2)} × floor`;
  if (isPlan) {
    line('network phase', networkMs / 1000, (GOALS.planNetwork * floorMs) / 1000, `= ${ratio(networkMs)}, goal ≤ ${GOALS.planNetwork} × floor (${seconds(GOALS.planNetwork * floorMs)})`);
    const wholeGoalMs = GOALS.planWhole * floorMs + GOALS.planWholeFixedMs;
    line('whole process', wallMs / 1000, wholeGoalMs / 1000, `= ${ratio(wallMs)}, goal ≤ ${GOALS.planWhole} × floor + ${GOALS.planWholeFixedMs / 1000} s (${seconds(wholeGoalMs)})`);
  } else {
    console.log(`  network phase   ${(networkMs / 1000).toFixed(2).padStart(7)} s   = ${ratio(networkMs)} (no goal of its own)`);
    line('whole process', wallMs / 1000, (GOALS.apply * floorMs) / 1000, `= ${ratio(wallMs)}, goal ≤ ${GOALS.apply} × floor (${seconds(GOALS.apply * floorMs)})`);
  }
  line('peak RSS', rssMb, point.rssGoalMb, `(max of the runs), goal ≤ ${point.rssGoalMb} MB`);
  return checks.every(Boolean);
}

const dir = await mkdtemp(path.join(tmpdir(), 'voxform-bench-plan-'));
try {
  const manifestBytes = await writeProject(dir);
  const emulator = await startEmulatorProcess({ seed: buildSeed(), seedFile: path.join(dir, 'seed.json'), latencyMs: point.latencyMs, requestLogLimit: 4 * (point.agents + point.phones + point.campaigns) + 1_000 });
  try {
    const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: API_KEY };
    const parallelism = ['--parallelism', String(point.parallelism)];
    console.log(
      `${point.agents} agents + ${point.phones} phones + ${point.campaigns} campaigns (manifest ${(manifestBytes / 2 ** 20).toFixed(1)} MiB); ` +
        `${point.latencyMs} ms latency per request; parallelism ${point.parallelism}; ${RUNS} rounds of plan → apply → plan`,
    );
    console.log(`start: ${loadAverage()} (a shared machine: figures include its load)`);
    console.log(
      `commands run with PATH and the benchmark's own variables only; a bare \`node -e 0\` starts in ${nodeStartup(benchEnvironment({})).toFixed(0)} ms so, ` +
        `${nodeStartup(process.env).toFixed(0)} ms in the environment this benchmark was given (a whole process would take the difference longer)`,
    );
    const runs = new Map(COMMANDS.map((command) => [command.label, []]));
    const references = [];
    for (let round = 1; round <= RUNS; round++) {
      // Each round starts from the seed: the emulator's account and an empty state file.
      await emulator.reset();
      await rm(path.join(dir, '.voxform'), { recursive: true, force: true });
      const reference = await wireReference(emulator, { count: point.agents, parallelism: point.parallelism, agentId, apiKey: API_KEY });
      references.push(reference.networkMs / ((reference.requests * point.latencyMs) / point.parallelism));
      console.log(`round ${round}: wire reference ${seconds(reference.networkMs)} network, ${reference.requests} requests (a bare socket pool)`);
      for (const command of COMMANDS) {
        const row = await measure(emulator, dir, command.label, [...command.args, ...parallelism], env, command.codes);
        runs.get(command.label).push(row);
        console.log(`round ${round}: ${command.label.padEnd(12)} ${seconds(row.wallMs)} whole, ${seconds(row.networkMs)} network, ${row.requests} requests, ${row.rssMb.toFixed(0)} MB`);
      }
    }
    console.log(
      `\nwire reference: the same ${point.agents} agent reads from a bare undici pool in this process, ${point.parallelism} at a time: ` +
        `${median(references).toFixed(2)} × floor (median; runs: ${references.map((r) => r.toFixed(2)).join(', ')}). ` +
        'No client gets below this here: above 1 × is the emulator, loopback and the machine.',
    );
    let ok = true;
    for (const [label, rows] of runs) ok = report(label, rows, median(references)) && ok;
    console.log(`\nend: ${loadAverage()}`);
    console.log(ok ? 'plan/apply: PASS (every goal met)' : 'plan/apply: MISS (a goal was missed)');
    if (!ok) process.exitCode = 1;
  } finally {
    await emulator.close();
  }
} finally {
  if (!process.env.BENCH_KEEP) await rm(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}
