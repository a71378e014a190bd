// Client throughput: 5,000 GET /agents/{id} against the in-process emulator with 10 ms of injected
// latency, 32 requests in flight. The floor is 5,000 × 10 ms / 32 ≈ 1.56 s; the goal is a wall
// time within 1.2 × that floor. Run `npm run build` first (this uses dist/).
import { performance } from 'node:perf_hooks';
import { createClient } from '../dist/api/index.js';
import { startEmulator } from '../dist/emulator/index.js';

const REQUESTS = 5_000;
const IN_FLIGHT = 32;
const LATENCY_MS = 10;

const emulator = await startEmulator({ port: 0, latencyMs: LATENCY_MS });
const ids = emulator.control.state().agents.map((agent) => agent.id);
if (ids.length === 0) throw new Error('the default seed has no agents to read');

let retries = 0;
const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey, maxInFlight: IN_FLIGHT, onRetry: () => void retries++ });

try {
  // Warm-up: open the sockets and compile the hot paths, outside the measurement.
  await Promise.all(Array.from({ length: IN_FLIGHT * 2 }, (_, i) => client.getAgent(ids[i % ids.length])));

  const started = performance.now();
  const results = await Promise.all(Array.from({ length: REQUESTS }, (_, i) => client.getAgent(ids[i % ids.length])));
  const wallMs = performance.now() - started;

  const limitMs = (REQUESTS * LATENCY_MS) / IN_FLIGHT;
  const ratio = wallMs / limitMs;
  console.log(`requests:   ${results.length} × GET /agents/{id} (${ids.length} distinct ids), ${IN_FLIGHT} in flight, ${LATENCY_MS} ms injected latency`);
  console.log(`wall time:  ${(wallMs / 1000).toFixed(3)} s`);
  console.log(`limit:      ${(limitMs / 1000).toFixed(3)} s (${REQUESTS} × ${LATENCY_MS} ms / ${IN_FLIGHT})`);
  console.log(`ratio:      ${ratio.toFixed(3)} (goal ≤ 1.2) ${ratio <= 1.2 ? 'ok' : 'OVER GOAL'}`);
  console.log(`throughput: ${Math.round(results.length / (wallMs / 1000))} requests/s; retries: ${retries}`);
} finally {
  await client.close();
  await emulator.close();
}
