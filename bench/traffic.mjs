#!/usr/bin/env node
/**
 * Synthetic traffic at scale: seeds 100,000 call records into an emulator (from dist/, in a child
 * process, in memory) with one POST /_emulator/traffic, then reads every one of them back through
 * GET /call-logs pages of 100, as a report would.
 * Goals: seeding ≤ 3 s; every page read in ≤ 15 s in all; the last pages (deepest cursor) no slower
 * than 2 × the first (a cursor is a binary search, not a scan); the emulator's peak RSS ≤ 400 MB.
 * Wall-clock figures include the machine's load: the emulator's CPU time is printed beside them.
 *
 *   npm run build && node bench/traffic.mjs [--calls N]
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Pool } from 'undici';
import { loadAverage, median, seconds, verdict } from './lib/report.mjs';
import { seedTraffic } from './lib/traffic.mjs';

const entry = new URL('../dist/emulator/index.js', import.meta.url);
if (!existsSync(fileURLToPath(entry))) {
  console.error('bench/traffic: dist/ is missing; run `npm run build` first.');
  process.exit(1);
}
const args = process.argv.slice(2);
const CALLS = Number(args[args.indexOf('--calls') + 1] || 100_000);
const GOALS = { seedMs: 3000, readMs: 15_000, deepRatio: 2, rssMb: 400 };

function startChild() {
  const script = `
    const { startEmulator } = await import(${JSON.stringify(entry.href)});
    const emulator = await startEmulator({ port: 0, quiet: true });
    process.stdout.write(JSON.stringify({ url: emulator.url, apiKey: emulator.apiKey }) + '\\n');
    process.on('SIGTERM', () => emulator.close().then(() => process.exit(0)));
  `;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      if (out.includes('\n')) resolve({ child, ...JSON.parse(out.split('\n')[0]) });
    });
    child.on('exit', (code) => reject(new Error(`the emulator exited (${code})`)));
  });
}

/** CPU time the child has used so far (Linux: utime + stime of /proc/PID/stat, in clock ticks of 10 ms), ms. */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** The child's peak resident memory so far (Linux: VmHWM), in MB. */
const peakRssMb = (pid) => Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;

const { child, url, apiKey } = await startChild();
try {
  const seedStart = performance.now();
  const seedCpuStart = cpuMs(child.pid);
  const summary = await seedTraffic(url, { total: CALLS, until: 1_780_272_000 });
  const seedMs = performance.now() - seedStart;
  const seedCpuMs = cpuMs(child.pid) - seedCpuStart;

  const pool = new Pool(url, { connections: 1 });
  const pageMs = [];
  let records = 0;
  let cursor = 0;
  const readStart = performance.now();
  const readCpuStart = cpuMs(child.pid);
  do {
    const started = performance.now();
    const res = await pool.request({ method: 'GET', path: `/call-logs?limit=100${cursor ? `&start_after_ts=${cursor}` : ''}`, headers: { authorization: apiKey } });
    const page = await res.body.json();
    pageMs.push(performance.now() - started);
    records += page.histories.length;
    cursor = page.next_cursor;
  } while (cursor);
  const readMs = performance.now() - readStart;
  const readCpuMs = cpuMs(child.pid) - readCpuStart;
  await pool.close();

  const first = median(pageMs.slice(0, 50));
  const last = median(pageMs.slice(-50));
  const rss = peakRssMb(child.pid);
  console.log(`traffic: ${summary.calls.toLocaleString('en-US')} calls for ${summary.agents.length} agents seeded in ${seconds(seedMs)} (emulator CPU ${seconds(seedCpuMs)}; goal ≤ ${seconds(GOALS.seedMs)}, ${(seedMs / GOALS.seedMs).toFixed(2)} of it) ${verdict(seedMs <= GOALS.seedMs)}`);
  console.log(`  read ${records.toLocaleString('en-US')} records in ${pageMs.length} pages of 100: ${seconds(readMs)} (emulator CPU ${seconds(readCpuMs)}; goal ≤ ${seconds(GOALS.readMs)}, ${(readMs / GOALS.readMs).toFixed(2)} of it) ${verdict(readMs <= GOALS.readMs)}`);
  console.log(`  median page: first 50 ${first.toFixed(2)} ms, last 50 ${last.toFixed(2)} ms (ratio ${(last / first).toFixed(2)}, goal ≤ ${GOALS.deepRatio}) ${verdict(last / first <= GOALS.deepRatio)}`);
  console.log(`  emulator peak RSS ${rss.toFixed(0)} MB (goal ≤ ${GOALS.rssMb} MB, ${(rss / GOALS.rssMb).toFixed(2)} of it) ${verdict(rss <= GOALS.rssMb)}`);
  console.log(`  ${loadAverage()}`);
  if (records !== summary.calls + 40) throw new Error(`read ${records} records, expected ${summary.calls + 40}`);
} finally {
  child.kill('SIGTERM');
}
