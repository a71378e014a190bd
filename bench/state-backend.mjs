// What the PostgreSQL state backend costs an apply, against the state file: each apply is run as a
// whole `voxform apply --auto-approve` process against the emulator (20 ms latency per request),
// alternating file and PostgreSQL, from the same starting point each round.
//
//   node bench/state-backend.mjs            both points below, 5 rounds each (medians)
//   --runs N                                rounds per point
//   BENCH_POSTGRES_URL=postgres://…         use this server (superuser: it creates a database per
//                                           round); by default one is started as the tests do
// Each round runs the two applies back to back; the figures compared with the goals are the medians
// of the rounds' differences (and ratios). Goals:
//   one agent changed         PostgreSQL adds ≤ 50 ms to the apply
//   1,050 resources           PostgreSQL adds ≤ 5 % (500 agents + 500 phones + 50 campaigns, parallelism 8)
// The database's tables are created before the measured apply (as in a team's database, where the
// first run made them long ago).
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { startPostgres } from '../test/helpers/postgres-server.mjs';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { benchProject } from './lib/project.mjs';
import { loadAverage, median, verdict } from './lib/report.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const POINTS = [
  { label: 'one agent changed', agents: 1, phones: 0, campaigns: 0, parallelism: 8, goal: { addedMs: 50 } },
  { label: '1,050 resources', agents: 500, phones: 500, campaigns: 50, parallelism: 8, goal: { ratio: 1.05 } },
];
const LATENCY_MS = 20;
const args = process.argv.slice(2);
const runsAt = args.indexOf('--runs');
const RUNS = runsAt >= 0 ? Number(args[runsAt + 1]) : 5;
if (!(Number.isInteger(RUNS) && RUNS > 0)) throw new Error('--runs takes a whole number of rounds, 1 or more');

function runCli(dir, cliArgs, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [path.join(root, 'bin/voxform.cjs'), ...cliArgs], { cwd: dir, env: { ...process.env, ...env, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`voxform ${cliArgs.join(' ')} exited ${code}: ${stderr.slice(-2000)}`))));
  });
}

/** A new, empty database with voxform's tables made (`voxform state list` makes them). */
async function freshDatabase(adminUrl, dir, env) {
  const name = `bench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  await runCli(dir, ['state', 'list', '--state', url.href], env);
  return url.href;
}

async function measurePoint(point, adminUrl) {
  const project = benchProject(point);
  const dir = await mkdtemp(path.join(tmpdir(), 'voxform-bench-state-'));
  const emulator = await startEmulatorProcess({ seed: project.buildSeed(), seedFile: path.join(dir, 'seed.json'), latencyMs: LATENCY_MS, requestLogLimit: 4 * (point.agents + point.phones + point.campaigns) + 1_000 });
  try {
    await project.writeProject(dir);
    const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: project.API_KEY };
    const apply = ['apply', '--auto-approve', '--parallelism', String(point.parallelism)];
    const times = { file: [], postgres: [] };
    for (let round = 1; round <= RUNS; round++) {
      for (const kind of round % 2 ? ['file', 'postgres'] : ['postgres', 'file']) {
        await emulator.reset();
        await rm(path.join(dir, '.voxform'), { recursive: true, force: true });
        const state = kind === 'file' ? path.join(dir, '.voxform/state.json') : await freshDatabase(adminUrl, dir, env);
        const ms = await runCli(dir, [...apply, '--state', state], env);
        times[kind].push(ms);
        console.log(`round ${round}: ${point.label}, ${kind.padEnd(8)} ${(ms / 1000).toFixed(3)} s`);
      }
    }
    // Paired: each round's two applies ran back to back, so a difference within a round is less
    // moved by the machine's load than a difference of medians.
    const added = times.postgres.map((ms, i) => ms - times.file[i]);
    const ratios = times.postgres.map((ms, i) => ms / times.file[i]);
    return { file: median(times.file), postgres: median(times.postgres), addedMs: median(added), ratio: median(ratios) };
  } finally {
    await emulator.close();
    await rm(dir, { recursive: true, force: true });
  }
}

function report(point, { file, postgres, addedMs, ratio }) {
  console.log(`\n${point.label}: apply with the state file ${(file / 1000).toFixed(3)} s, with PostgreSQL ${(postgres / 1000).toFixed(3)} s (medians of ${RUNS}); the rounds' differences below (median)`);
  if (point.goal.addedMs !== undefined) {
    const ok = addedMs <= point.goal.addedMs;
    console.log(`  PostgreSQL adds ${addedMs.toFixed(0)} ms, goal ≤ ${point.goal.addedMs} ms, ratio to goal ${(Math.max(0, addedMs) / point.goal.addedMs).toFixed(2)}  ${verdict(ok)}`);
    return ok;
  }
  const ok = ratio <= point.goal.ratio;
  console.log(`  PostgreSQL adds ${((ratio - 1) * 100).toFixed(1)} % (${addedMs.toFixed(0)} ms), goal ≤ ${((point.goal.ratio - 1) * 100).toFixed(0)} %, ratio to goal ${(Math.max(0, ratio - 1) / (point.goal.ratio - 1)).toFixed(2)}  ${verdict(ok)}`);
  return ok;
}

const server = process.env.BENCH_POSTGRES_URL ? undefined : await startPostgres();
const adminUrl = process.env.BENCH_POSTGRES_URL ?? server.adminUrl;
try {
  console.log(`PostgreSQL: ${server ? server.source : 'BENCH_POSTGRES_URL'}; ${LATENCY_MS} ms latency per request; ${RUNS} rounds per point, file and PostgreSQL alternating`);
  console.log(`start: ${loadAverage()} (a shared machine: figures include its load)`);
  let ok = true;
  for (const point of POINTS) ok = report(point, await measurePoint(point, adminUrl)) && ok;
  console.log(`\nend: ${loadAverage()}`);
  console.log(ok ? 'state-backend: PASS (every goal met)' : 'state-backend: MISS (a goal was missed)');
  if (!ok) process.exitCode = 1;
} finally {
  await server?.stop();
}
