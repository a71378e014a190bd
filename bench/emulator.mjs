#!/usr/bin/env node
/**
 * Emulator benchmark: 20,000 mixed requests at concurrency 64 over loopback, with undici.
 * Goals: ≥ 5,000 req/s and p99 ≤ 20 ms, so the emulator never limits the plan/apply benchmarks.
 *
 *   npm run build && node bench/emulator.mjs [--requests N] [--concurrency N] [--data FILE [--shared]] [--in-process]
 *
 * The emulator runs from dist/ in a child process (so the load generator does not share its event
 * loop) unless --in-process is given. With --data it persists to that file (group commit); with
 * --shared too, as `--local` does (batches under a cross-process lock, `sharedDataFile`).
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { loadAverage, verdict } from './lib/report.mjs';

const root = fileURLToPath(new URL('../', import.meta.url));
const entry = new URL('../dist/emulator/index.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('bench/emulator: dist/ is missing; run `npm run build` first.');
  process.exit(1);
}

const args = process.argv.slice(2);
const flag = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const TOTAL = Number(flag('--requests', 20000));
const CONCURRENCY = Number(flag('--concurrency', 64));
const WARMUP = Math.min(2000, Math.floor(TOTAL / 10));
const DATA = flag('--data', undefined);
const IN_PROCESS = args.includes('--in-process');
const SHARED = args.includes('--shared');
if (SHARED && !DATA) {
  console.error('bench/emulator: --shared needs --data FILE.');
  process.exit(1);
}
const dataOptions = DATA ? { dataFile: DATA, sharedDataFile: SHARED } : {};
const GOAL_RPS = 5000;
const GOAL_P99_MS = 20;

async function startChild() {
  const script = `
    const { startEmulator } = await import(${JSON.stringify(entry.href)});
    const e = await startEmulator({ port: 0, quiet: true, ...${JSON.stringify(dataOptions)} });
    process.stdout.write(JSON.stringify({ url: e.url, apiKey: e.apiKey }) + '\\n');
    process.stdin.on('end', () => e.close().then(() => process.exit(0)));
    process.stdin.resume();
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { cwd: root, stdio: ['pipe', 'pipe', 'inherit'] });
  const info = await new Promise((resolve, reject) => {
    let text = '';
    child.stdout.on('data', (chunk) => {
      text += chunk;
      if (text.includes('\n')) resolve(JSON.parse(text.split('\n')[0]));
    });
    child.on('exit', (code) => reject(new Error(`the emulator exited with ${code}`)));
  });
  return { ...info, stop: () => new Promise((resolve) => { child.on('exit', resolve); child.stdin.end(); }) };
}

async function startInProcess() {
  const { startEmulator } = await import(entry.href);
  const e = await startEmulator({ port: 0, quiet: true, ...dataOptions });
  return { url: e.url, apiKey: e.apiKey, stop: () => e.close() };
}

const AGENTS = ['-OKdqbqetEcM4ak369ym', '-OKdqbqetEcM4ak369yn', '-OKspareAgent0000001', '-OKspareAgent0000002', '-OKspareAgent0000003'];

/** The i-th request of the mix: 30 % GET agent, 20 % PUT agent, 20 % GET phones, 15 % GET call-logs, 15 % set_agent. */
function requestFor(i) {
  const agent = AGENTS[i % AGENTS.length];
  const slot = i % 20;
  if (slot < 6) return { op: 'GET /agents/{id}', method: 'GET', path: `/agents/${agent}` };
  if (slot < 10) {
    const body = { name: `Agent ${i % 7}`, config: { prompt: `Prompt revision ${i}`, llm: { temperature: (i % 10) / 10 }, flow: { response_delay: 100 + (i % 400) } } };
    return { op: 'PUT /agents/{id}', method: 'PUT', path: `/agents/${agent}`, body: JSON.stringify(body) };
  }
  if (slot < 14) return { op: 'GET /phones', method: 'GET', path: '/phones' };
  if (slot < 17) return { op: 'GET /call-logs', method: 'GET', path: `/call-logs?limit=20${i % 2 ? '&agent_id=-OKdqbqetEcM4ak369ym' : ''}` };
  return { op: 'POST set_agent', method: 'POST', path: '/phones/%2B15551230001/set_agent', body: JSON.stringify({ agent_id: agent }) };
}

async function drive(pool, apiKey, count, offset, record) {
  let next = 0;
  const worker = async () => {
    for (;;) {
      const i = next++;
      if (i >= count) return;
      const req = requestFor(offset + i);
      const started = performance.now();
      const res = await pool.request({
        method: req.method,
        path: req.path,
        headers: { authorization: apiKey, ...(req.body ? { 'content-type': 'application/json' } : {}) },
        body: req.body,
      });
      await res.body.dump();
      record?.(req.op, res.statusCode, performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
const fmt = (n, digits = 1) => n.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });

const emulator = IN_PROCESS ? await startInProcess() : await startChild();
const pool = new Pool(emulator.url, { connections: CONCURRENCY, pipelining: 1 });
try {
  await drive(pool, emulator.apiKey, WARMUP, 1_000_000, undefined);
  const latencies = [];
  const byOp = new Map();
  const statuses = new Map();
  const started = performance.now();
  await drive(pool, emulator.apiKey, TOTAL, 0, (op, status, ms) => {
    latencies.push(ms);
    const list = byOp.get(op) ?? [];
    list.push(ms);
    byOp.set(op, list);
    statuses.set(status, (statuses.get(status) ?? 0) + 1);
  });
  const wall = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const rps = TOTAL / wall;
  const p50 = percentile(latencies, 50);
  const p99 = percentile(latencies, 99);

  console.log(`emulator bench: ${TOTAL.toLocaleString('en-US')} mixed requests, concurrency ${CONCURRENCY}, loopback, undici; emulator ${IN_PROCESS ? 'in this process' : 'in a child process'}${DATA ? `, data file ${DATA}${SHARED ? ' (shared, as --local)' : ''}` : ', in memory'}`);
  console.log(`  wall        ${fmt(wall, 2)} s`);
  console.log(`  throughput  ${fmt(rps, 0)} req/s    goal ≥ ${GOAL_RPS.toLocaleString('en-US')}   ratio ${fmt(rps / GOAL_RPS, 2)}× the goal ${verdict(rps >= GOAL_RPS)}`);
  console.log(`  latency     p50 ${fmt(p50, 2)} ms, p99 ${fmt(p99, 2)} ms, max ${fmt(latencies[latencies.length - 1], 2)} ms    p99 goal ≤ ${GOAL_P99_MS} ms   ratio ${fmt(p99 / GOAL_P99_MS, 2)} of the limit ${verdict(p99 <= GOAL_P99_MS)}`);
  console.log(`  machine     ${loadAverage()} (a shared machine: figures include its load)`);
  for (const [op, list] of [...byOp].sort()) {
    list.sort((a, b) => a - b);
    console.log(`    ${op.padEnd(18)} ${String(list.length).padStart(6)} requests   p50 ${fmt(percentile(list, 50), 2)} ms   p99 ${fmt(percentile(list, 99), 2)} ms`);
  }
  console.log(`  statuses    ${[...statuses].map(([s, n]) => `${s}: ${n}`).join(', ')}`);
  if ([...statuses.keys()].some((s) => s !== 200) || rps < GOAL_RPS || p99 > GOAL_P99_MS) process.exitCode = 1;
} finally {
  await pool.close();
  await emulator.stop();
}
