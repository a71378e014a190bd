// `voxform drift` over 5,000 agents against the emulator with 20 ms of latency on every request, as a
// whole `voxform` process, asserting its guardrail (bench/README.md): the check reads what plan
// reads, so its network phase stays within 1.3 × the plan's network floor.
//
//   node bench/drift.mjs           5,000 agents, parallelism 32, 50 of them edited on the service
//   --runs N                       rounds of apply → edit → drift → plan (default 3; figures are medians)
//
// Each round applies the manifest (not measured), edits the prompt of 50 agents through the
// service's own API (as a dashboard would), then runs `voxform drift`, which must find those 50 as
// changed outside voxform (exit 2). The floor is the drift's requests × latency / parallelism,
// counted from the emulator's request log; the network phase is the service's view, from the
// first request's arrival to the last answer. Run `npm run build` first.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { benchProject } from './lib/project.mjs';
import { expectClean, guardrails, loadAverage, median, runVoxform, seconds } from './lib/report.mjs';

const LATENCY_MS = 20;
const POINT = { agents: 5_000, phones: 0, campaigns: 0, parallelism: 32 };
const EDITED = 50;
/** [× floor, + seconds]: the network phase, and the whole process (start-up and loading the manifest included). */
const GUARDRAILS = { network: [1.3, 0], whole: [1.3, 1.5], peakMb: 500 };

const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 3;
if (!(Number.isInteger(RUNS) && RUNS > 0)) throw new Error('--runs takes a whole number of rounds, 1 or more');

const { buildSeed, writeProject, API_KEY, agentId } = benchProject(POINT);

/** Changes `EDITED` agents' prompts behind voxform's back, through the service's API. */
async function editOnService(url) {
  for (let i = 0; i < EDITED; i++) {
    const id = encodeURIComponent(agentId(i * Math.floor(POINT.agents / EDITED)));
    const headers = { authorization: API_KEY, 'content-type': 'application/json' };
    const live = await (await fetch(`${url}/agents/${id}`, { headers })).json();
    const response = await fetch(`${url}/agents/${id}`, { method: 'PUT', headers, body: JSON.stringify({ name: live.name, config: { prompt: 'Edited in the dashboard.' } }) });
    if (!response.ok) throw new Error(`editing agent ${id} on the service: HTTP ${response.status}`);
  }
}

/** One command's figures: `voxform ARGS` with the point's parallelism, its requests from the emulator's log. */
async function measure(emulator, dir, env, args, codes) {
  const before = await emulator.lastRequestSeq();
  const run = await runVoxform([...args, '--parallelism', String(POINT.parallelism)], { cwd: dir, env });
  expectClean(args[0], run, codes);
  const entries = await emulator.requestsSince(before);
  if (entries.length >= emulator.requestLogLimit) throw new Error(`${args[0]}: the emulator's log is full, some requests may be missing: raise requestLogLimit`);
  const firstArrival = Math.min(...entries.map((entry) => Date.parse(entry.at)));
  const lastAnswer = Math.max(...entries.map((entry) => Date.parse(entry.at) + entry.duration_ms));
  return { requests: entries.length, wallMs: run.wallMs, networkMs: lastAnswer - firstArrival, rssMb: run.rssMb, cpuMs: run.cpuMs };
}

const dir = await mkdtemp(path.join(tmpdir(), 'voxform-bench-drift-'));
try {
  await writeProject(dir);
  const emulator = await startEmulatorProcess({ seed: buildSeed(), seedFile: path.join(dir, 'seed.json'), latencyMs: LATENCY_MS, requestLogLimit: 4 * POINT.agents + 1_000 });
  try {
    const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: API_KEY };
    console.log(`${POINT.agents} agents, ${EDITED} edited on the service; ${LATENCY_MS} ms latency per request; parallelism ${POINT.parallelism}; ${RUNS} rounds of apply → edit → drift, then plan for comparison`);
    console.log(`start: ${loadAverage()}`);
    const rows = [];
    const planRows = [];
    for (let round = 1; round <= RUNS; round++) {
      await emulator.reset();
      await rm(path.join(dir, '.voxform'), { recursive: true, force: true });
      expectClean('apply', await runVoxform(['apply', '--auto-approve', '--parallelism', String(POINT.parallelism)], { cwd: dir, env }), [0]);
      await editOnService(emulator.url);
      const row = await measure(emulator, dir, env, ['drift'], [2]);
      rows.push(row);
      // The plan of the same state, right after: a paired figure, printed, not asserted.
      const plan = await measure(emulator, dir, env, ['plan'], [0]);
      planRows.push(plan);
      console.log(`round ${round}: drift ${seconds(row.wallMs)} whole, ${seconds(row.networkMs)} network, ${row.requests} requests, ${row.rssMb.toFixed(0)} MB; plan ${seconds(plan.wallMs)} whole, ${seconds(plan.networkMs)} network`);
    }
    const requests = rows[0].requests;
    if (rows.some((row) => row.requests !== requests)) throw new Error(`drift: the rounds sent different numbers of requests (${rows.map((row) => row.requests).join(', ')})`);
    const floorMs = (requests * LATENCY_MS) / POINT.parallelism;
    const of = (key) => median(rows.map((row) => row[key]));
    const rssMb = Math.max(...rows.map((row) => row.rssMb));
    console.log(`\ndrift: ${requests} requests; floor ${seconds(floorMs)} (${requests} × ${LATENCY_MS} ms / ${POINT.parallelism})`);
    console.log(`  network ${seconds(of('networkMs'))} (${(of('networkMs') / floorMs).toFixed(2)} × floor); whole ${seconds(of('wallMs'))}, CPU ${seconds(of('cpuMs'))}, peak ${rssMb.toFixed(0)} MB`);
    console.log(`  plan of the same state (paired, not asserted): network ${seconds(median(planRows.map((row) => row.networkMs)))}, whole ${seconds(median(planRows.map((row) => row.wallMs)))}; drift ÷ plan network ${(of('networkMs') / median(planRows.map((row) => row.networkMs))).toFixed(2)}`);
    const checks = guardrails();
    const bound = ([times, plus]) => (times * floorMs) / 1000 + plus;
    const text = ([times, plus]) => `≤ ${times} × floor${plus ? ` + ${plus} s` : ''} = ${bound([times, plus]).toFixed(2)} s`;
    checks.check('network phase', of('networkMs') / 1000, bound(GUARDRAILS.network), 's', text(GUARDRAILS.network));
    checks.check('whole process', of('wallMs') / 1000, bound(GUARDRAILS.whole), 's', text(GUARDRAILS.whole));
    checks.check('peak memory (max of the rounds)', rssMb, GUARDRAILS.peakMb, 'MB', `≤ ${GUARDRAILS.peakMb} MB`);
    console.log(`\nend: ${loadAverage()}`);
    console.log(checks.passed ? 'drift: PASS (every guardrail held)' : 'drift: MISS (a guardrail was crossed)');
    if (!checks.passed) process.exitCode = 1;
  } finally {
    await emulator.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
