// Client throughput: 5,000 GET /agents/{id} against the emulator with 10 ms of injected
// latency, 32 requests in flight. The floor is 5,000 × 10 ms / 32 ≈ 1.56 s; the goal is a wall
// time within 1.2 × that floor. The emulator runs in its own process, as the service would: the
// measured process is the client alone. Run `npm run build` first (this uses dist/).
import { performance } from 'node:perf_hooks';
import { createClient } from '../dist/api/index.js';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { loadAverage, verdict } from './lib/report.mjs';

const REQUESTS = 5_000;
const IN_FLIGHT = 32;
const LATENCY_MS = 10;

const emulator = await startEmulatorProcess({ latencyMs: LATENCY_MS });
const ids = (await (await fetch(`${emulator.url}/_emulator/state`)).json()).agents.map((agent) => agent.id);
if (ids.length === 0) throw new Error('the default seed has no agents to read');

let retries = 0;
const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, maxInFlight: IN_FLIGHT, onRetry: () => void retries++ });

const RUNS = 3;
console.log(`start: ${loadAverage()} (a shared machine: figures include its load)`);

try {
  // Warm-up: open the sockets and let the JIT compile the hot paths, outside the measurement.
  await Promise.all(Array.from({ length: 1_000 }, (_, i) => client.getAgent(ids[i % ids.length])));

  const limitMs = (REQUESTS * LATENCY_MS) / IN_FLIGHT;
  const walls = [];
  for (let run = 1; run <= RUNS; run++) {
    const started = performance.now();
    const results = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => client.getAgent(ids[i % ids.length])));
    const wallMs = performance.now() - started;
    if (results.length !== REQUESTS) throw new Error('missing answers');
    walls.push(wallMs);
    console.log(`run ${run}:      ${(wallMs / 1000).toFixed(3)} s, ratio ${(wallMs / limitMs).toFixed(3)}`);
  }
  const median = walls.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
  const ratio = median / limitMs;
  console.log(`requests:   ${REQUESTS} × GET /agents/{id} (${ids.length} distinct ids), ${IN_FLIGHT} in flight, ${LATENCY_MS} ms injected latency`);
  console.log(`wall time:  ${(median / 1000).toFixed(3)} s (median of ${RUNS})`);
  console.log(`floor:      ${(limitMs / 1000).toFixed(3)} s (${REQUESTS} × ${LATENCY_MS} ms / ${IN_FLIGHT})`);
  console.log(`ratio:      ${ratio.toFixed(3)} × floor (goal ≤ 1.2; ratio to goal ${(ratio / 1.2).toFixed(2)}) ${verdict(ratio <= 1.2)}`);
  if (ratio > 1.2) process.exitCode = 1;
  console.log(`throughput: ${Math.round(REQUESTS / (median / 1000))} requests/s; retries: ${retries}`);
  console.log(`end: ${loadAverage()}`);
} finally {
  await client.close();
  await emulator.close();
}
