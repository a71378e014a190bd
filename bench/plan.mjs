// Plan and apply against the emulator with 20 ms of latency on every request, each command run as
// a whole `voxform` process, asserting the guardrails (bench/README.md).
//
//   node bench/plan.mjs            default point: 500 agents + 500 phones + 50 campaigns, parallelism 8
//   node bench/plan.mjs --scale    scale point: 5,000 agents + 5,000 phones, parallelism 32
//   --runs N                       rounds of plan → apply → plan (default 3; figures are medians)
//
// A command's floor is its requests × latency / parallelism: the time its requests need on the
// wire when nothing else costs anything. The requests are counted from the emulator's request log,
// not assumed. The network phase is the service's view, from that log: from the arrival of the
// first request to the moment the last answer left. The emulator runs in its own process, as the
// service would. Run `npm run build` first (this uses dist/ and bin/voxform.cjs).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { bareReads } from './lib/bare-reads.mjs';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { benchProject } from './lib/project.mjs';
import { expectClean, guardrails, loadAverage, median, runVoxform, seconds } from './lib/report.mjs';

const LATENCY_MS = 20;

/**
 * Each point's commands and the guardrails on their figures: `network` and `whole` are
 * [× floor, + seconds]; `peakMb` bounds each command's peak memory. A figure without a guardrail
 * is printed, not asserted.
 */
const POINTS = {
  default: {
    agents: 500,
    phones: 500,
    campaigns: 50,
    parallelism: 8,
    guardrails: { 'plan (first)': { whole: [1.3, 0.5] } },
  },
  scale: {
    agents: 5_000,
    phones: 5_000,
    campaigns: 0,
    parallelism: 32,
    guardrails: {
      'plan (first)': { network: [1.3, 0], whole: [1.3, 1.5], peakMb: 500 },
      apply: { whole: [1.3, 0], peakMb: 500 },
      'plan (after)': { network: [1.3, 0], whole: [1.3, 1.5], peakMb: 500 },
    },
  },
};

const COMMANDS = [
  { label: 'plan (first)', args: ['plan'], codes: [0] },
  { label: 'apply', args: ['apply', '--auto-approve'], codes: [0] },
  { label: 'plan (after)', args: ['plan', '--detailed-exitcode'], codes: [0] },
];

const args = process.argv.slice(2);
const point = args.includes('--scale') ? POINTS.scale : POINTS.default;
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
if (!(Number.isInteger(RUNS) && RUNS > 0)) throw new Error('--runs takes a whole number of rounds, 1 or more');

const { buildSeed, writeProject, API_KEY, agentId } = benchProject(point);

/** `500 × GET /agents/{id}, …`: the requests a command sent, by operation, from the emulator's log. */
function countByOperation(entries) {
  const counts = new Map();
  for (const entry of entries) {
    const shape = entry.path.replace(/^\/agents\/[^/]+/, '/agents/{id}').replace(/^\/phones\/[^/]+/, '/phones/{number}').replace(/^\/campaigns\/[^/]+/, '/campaigns/{id}');
    const key = `${entry.method} ${shape}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].sort((a, b) => b[1] - a[1]).map(([key, n]) => `${n} × ${key}`).join(', ');
}

async function measure(emulator, dir, command, env) {
  const before = await emulator.lastRequestSeq();
  const run = await runVoxform([...command.args, '--parallelism', String(point.parallelism)], { cwd: dir, env });
  expectClean(command.label, run, command.codes);
  const entries = await emulator.requestsSince(before);
  if (entries.length >= emulator.requestLogLimit) throw new Error(`${command.label}: the emulator's log is full, some requests may be missing: raise requestLogLimit`);
  // The log's clock is the emulator's wall clock, this one's too: both are this machine's.
  const firstArrival = Math.min(...entries.map((entry) => Date.parse(entry.at)));
  const lastAnswer = Math.max(...entries.map((entry) => Date.parse(entry.at) + entry.duration_ms));
  return {
    requests: entries.length,
    operations: countByOperation(entries),
    wallMs: run.wallMs,
    networkMs: lastAnswer - firstArrival,
    beforeMs: firstArrival - run.startedAt,
    afterMs: run.endedAt - lastAnswer,
    cpuMs: run.cpuMs,
    rssMb: run.rssMb,
  };
}

/** Prints a command's figures (medians of its rounds) and checks its guardrails. */
function report(label, rows, checks) {
  const requests = rows[0].requests;
  if (rows.some((row) => row.requests !== requests)) throw new Error(`${label}: the rounds sent different numbers of requests (${rows.map((row) => row.requests).join(', ')})`);
  const floorMs = (requests * LATENCY_MS) / point.parallelism;
  const of = (key) => median(rows.map((row) => row[key]));
  const rssMb = Math.max(...rows.map((row) => row.rssMb));
  console.log(`\n${label}: ${requests} requests (${rows[0].operations})`);
  console.log(`  floor ${seconds(floorMs)} (${requests} × ${LATENCY_MS} ms / ${point.parallelism})`);
  console.log(
    `  before the first request ${seconds(of('beforeMs'))}, network ${seconds(of('networkMs'))} (${(of('networkMs') / floorMs).toFixed(2)} × floor), ` +
      `after the last answer ${seconds(of('afterMs'))}; whole ${seconds(of('wallMs'))}, CPU ${seconds(of('cpuMs'))}, peak ${rssMb.toFixed(0)} MB`,
  );
  const limits = point.guardrails[label];
  if (!limits) return console.log('  (no guardrail at this point)');
  const bound = ([times, plus]) => (times * floorMs) / 1000 + plus;
  const text = ([times, plus]) => `≤ ${times} × floor${plus ? ` + ${plus} s` : ''} = ${bound([times, plus]).toFixed(2)} s`;
  if (limits.network) checks.check('network phase', of('networkMs') / 1000, bound(limits.network), 's', text(limits.network));
  if (limits.whole) checks.check('whole process', of('wallMs') / 1000, bound(limits.whole), 's', text(limits.whole));
  if (limits.peakMb) checks.check('peak memory (max of the rounds)', rssMb, limits.peakMb, 'MB', `≤ ${limits.peakMb} MB`);
}

const dir = await mkdtemp(path.join(tmpdir(), 'voxform-bench-plan-'));
try {
  const manifestBytes = await writeProject(dir);
  const emulator = await startEmulatorProcess({
    seed: buildSeed(),
    seedFile: path.join(dir, 'seed.json'),
    latencyMs: LATENCY_MS,
    requestLogLimit: 4 * (point.agents + point.phones + point.campaigns) + 1_000,
  });
  try {
    const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: API_KEY };
    console.log(
      `${point.agents} agents + ${point.phones} phones + ${point.campaigns} campaigns (manifest ${(manifestBytes / 2 ** 20).toFixed(1)} MiB); ` +
        `${LATENCY_MS} ms latency per request; parallelism ${point.parallelism}; ${RUNS} rounds of plan → apply → plan`,
    );
    console.log(`start: ${loadAverage()}`);
    // Printed, not asserted: how near the floor this machine lets any client come.
    const bare = await bareReads(emulator, { apiKey: API_KEY, agentIds: Array.from({ length: point.agents }, (_, i) => agentId(i)), parallelism: point.parallelism });
    const bareFloorMs = (bare.requests * LATENCY_MS) / point.parallelism;
    console.log(`bare reads (a client that only reads, same parallelism): ${bare.requests} × GET /agents/{id}, network ${seconds(bare.networkMs)} (${(bare.networkMs / bareFloorMs).toFixed(2)} × floor)`);
    const rows = new Map(COMMANDS.map((command) => [command.label, []]));
    for (let round = 1; round <= RUNS; round++) {
      // Each round starts from the seed: the emulator's account and no state.
      await emulator.reset();
      await rm(path.join(dir, '.voxform'), { recursive: true, force: true });
      for (const command of COMMANDS) {
        const row = await measure(emulator, dir, command, env);
        rows.get(command.label).push(row);
        console.log(`round ${round}: ${command.label.padEnd(12)} ${seconds(row.wallMs)} whole, ${seconds(row.networkMs)} network, ${row.requests} requests, ${row.rssMb.toFixed(0)} MB`);
      }
    }
    const checks = guardrails();
    for (const [label, commandRows] of rows) report(label, commandRows, checks);
    console.log(`\nend: ${loadAverage()}`);
    console.log(checks.passed ? 'plan/apply: PASS (every guardrail held)' : 'plan/apply: MISS (a guardrail was crossed)');
    if (!checks.passed) process.exitCode = 1;
  } finally {
    await emulator.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
