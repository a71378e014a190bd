// The call report over 100,000 call records: `voxform report --since 30d --format json` (the calls
// span the last 14 days) as a whole process,
// against an emulator seeded with the records in a separate process (as the service would be).
// Goals: wall time ≤ 10 s, peak RSS of the report process ≤ 300 MB. The records belong to three
// agents, each deployed in two versions (apply history records written beside the state file); a
// third of the calls carry a prefetch webhook's extra prompt, every one a planted tool header.
// The report must find every call and attribute each one to its version. Run `npm run build` first.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { FileHistoryStore } from '../dist/history/file-store.js';
import { configurationHash } from '../dist/history/config-hash.js';
import { ledgerSealKey } from '../dist/history/seal.js';
import { fingerprintKey } from '../dist/util/hash.js';
import { defaultSeed } from '../dist/emulator/default-seed.js';
import { createClient } from '../dist/api/index.js';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { loadAverage, median, verdict } from './lib/report.mjs';

const CALLS = 100_000;
const WALL_GOAL_S = 10;
const RSS_GOAL_MB = 300;
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STATUSES = ['user-ended', 'user-ended', 'agent-ended', 'api-ended', 'voicemail-hangup', 'timeout', 'error'];

const dir = await mkdtemp(path.join(tmpdir(), 'voxform-bench-report-'));
const seed = defaultSeed();
const agents = seed.agents.slice(0, 3);
const T0 = Math.floor(Date.now() / 1000) - 14 * 86_400;
const DEPLOY_GAP = 7 * 86_400;

/** Version v (0 or 1) of an agent: its config with the prompt of that version and a tool with a header. */
function versionConfig(agent, v) {
  const tools = [{ name: 'lookup', description: 'find a booking', webhook: 'https://hooks.example.test/lookup', header: { authorization: 'bench-planted-header' } }];
  return { ...agent.config, prompt: `${agent.config.prompt ?? ''}${v === 1 ? ' Offer the earliest slot first.' : ''}`, tools };
}

// Deterministic records: call i belongs to agent i % 3, to its second version in the second week.
let state = 42;
const random = () => ((state = (state * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31);
const expected = new Map();
seed.call_logs = Array.from({ length: CALLS }, (_, i) => {
  const agent = agents[i % agents.length];
  const ts = T0 + 60 + (i / CALLS) * 2 * DEPLOY_GAP - 120;
  const v = ts >= T0 + DEPLOY_GAP ? 1 : 0;
  const key = `${agent.id}#${v}`;
  expected.set(key, (expected.get(key) ?? 0) + 1);
  const config = versionConfig(agent, v);
  if (i % 3 === 0) config.prompt = `${config.prompt}\n\nThe caller is customer ${i}.`;
  return {
    call_id: `bench-${i}`,
    agent_id: agent.id,
    ts: Math.max(T0 + 1, ts),
    call_status: STATUSES[Math.floor(random() * STATUSES.length)],
    duration: Math.round(20 + random() * 400),
    agent_config: config,
    cost_breakdown: [{ type: 'llm', credit: Math.round(random() * 1000) / 1000 }, { type: 'tts', credit: 0.05 }],
    function_calls: random() < 0.2 ? [{ name: random() < 0.5 ? 'transfer_call' : 'lookup', params: {}, ...(random() < 0.1 ? { error: 'HTTP 500' } : {}) }] : [],
  };
});

console.log(`seeding the emulator with ${CALLS.toLocaleString('en-US')} call records (not measured)…`);
const emulator = await startEmulatorProcess({ seed, seedFile: path.join(dir, 'seed.json') });
seed.call_logs = [];
try {
  const history = new FileHistoryStore(path.join(dir, '.voxform/history'));
  // Sealed under the API key the report runs with, as an apply of it seals its records.
  const sealKey = ledgerSealKey(fingerprintKey(emulator.apiKey));
  const records = [];
  for (const v of [0, 1]) {
    const entries = Object.fromEntries(
      agents.map((agent) => {
        const config = versionConfig(agent, v);
        return [agent.name.toLowerCase().replace(/[^a-z0-9]+/g, '-'), { id: agent.id, config: {}, configHash: configurationHash(config), maskedPaths: [], promptLength: config.prompt.length }];
      }),
    );
    records.push(
      await history.append({
        workspace: `default@${emulator.url}`,
        at: new Date((T0 + v * DEPLOY_GAP) * 1000).toISOString(),
        by: 'bench@report',
        command: 'voxform apply',
        outcome: 'applied',
        source: { commit: String(v + 1).repeat(40), pullRequest: 40 + v },
        summary: { create: 0, update: agents.length, unchanged: 0, drifted: 0, applied: agents.length, failed: 0, skipped: 0 },
        agents: entries,
      }, sealKey),
    );
  }
  console.log(`start: ${loadAverage()} (a shared machine: figures include its load)`);
  const runs = [];
  const bare = [];
  for (let run = 1; run <= RUNS; run++) {
    bare.push(await bareRead(emulator));
    const emulatorCpuBefore = emulator.cpuMs();
    const result = await runReport(dir, emulator);
    result.emulatorCpuMs = emulatorCpuBefore === null ? null : emulator.cpuMs() - emulatorCpuBefore;
    checkReport(JSON.parse(await readFile(path.join(dir, 'report.json'), 'utf8')), records);
    runs.push(result);
    const emulatorCpu = result.emulatorCpuMs === null ? '' : `; the emulator serving it: CPU ${(result.emulatorCpuMs / 1000).toFixed(2)} s`;
    console.log(`run ${run}: ${(result.wallMs / 1000).toFixed(2)} s whole, peak RSS ${result.rssMb.toFixed(0)} MB, CPU ${(result.cpuMs / 1000).toFixed(2)} s${emulatorCpu}  (${loadAverage()})`);
  }
  const wallS = median(runs.map((r) => r.wallMs)) / 1000;
  const rssMb = Math.max(...runs.map((r) => r.rssMb));
  const cpuS = median(runs.map((r) => r.cpuMs)) / 1000;
  const emulatorCpuS = runs.some((r) => r.emulatorCpuMs === null) ? null : median(runs.map((r) => r.emulatorCpuMs)) / 1000;
  console.log(`calls:      ${CALLS.toLocaleString('en-US')} records, 3 agents × 2 versions, every call attributed to its version (checked)`);
  console.log(`wall time:  ${wallS.toFixed(2)} s (median of ${RUNS}), goal ≤ ${WALL_GOAL_S} s, ratio to goal ${(wallS / WALL_GOAL_S).toFixed(2)} ${verdict(wallS <= WALL_GOAL_S)}`);
  console.log(`peak RSS:   ${rssMb.toFixed(0)} MB (max of the runs), goal ≤ ${RSS_GOAL_MB} MB, ratio to goal ${(rssMb / RSS_GOAL_MB).toFixed(2)} ${verdict(rssMb <= RSS_GOAL_MB)}`);
  console.log(`CPU time:   report ${cpuS.toFixed(2)} s${emulatorCpuS === null ? '' : `, emulator ${emulatorCpuS.toFixed(2)} s`} (medians): on a loaded machine the wall time is mostly waiting for a core`);
  const bareS = median(bare) / 1000;
  console.log(`bare read:  ${bareS.toFixed(2)} s (median of ${RUNS}): the whole log walked in one chain by the client alone, in the bench process; report/bare ${(wallS / bareS).toFixed(2)}`);
  console.log(`throughput: ${Math.round(CALLS / wallS).toLocaleString('en-US')} calls/s`);
  console.log(`end: ${loadAverage()}`);
  if (wallS > WALL_GOAL_S || rssMb > RSS_GOAL_MB) process.exitCode = 1;
} finally {
  await emulator.close();
  await rm(dir, { recursive: true, force: true });
}

/** The call log walked by the bare client, nothing else done: what reading the pages costs. */
async function bareRead(emulator) {
  const client = createClient({ baseUrl: emulator.url, apiKey: emulator.apiKey });
  const started = performance.now();
  let count = 0;
  for await (const record of client.iterateCallLogs()) if (record) count++;
  const ms = performance.now() - started;
  await client.close();
  if (count !== CALLS) throw new Error(`the bare read found ${count} calls, not ${CALLS}`);
  return ms;
}

/** Every call found, each version with exactly the calls made for it. */
function checkReport(report, records) {
  if (report.calls !== CALLS) throw new Error(`the report counted ${report.calls} calls, not ${CALLS}`);
  for (const agent of report.agents) {
    for (const [v, record] of records.entries()) {
      const version = agent.versions.find((candidate) => candidate.key === record.id);
      const want = expected.get(`${agent.agent_id}#${v}`) ?? 0;
      if ((version?.metrics.calls ?? 0) !== want) throw new Error(`${agent.agent_id} version ${v + 1}: ${version?.metrics.calls ?? 0} calls, not ${want}`);
    }
    if (agent.versions.length !== 2) throw new Error(`${agent.agent_id}: ${agent.versions.length} versions, not 2 (${agent.versions.map((x) => x.key).join(', ')})`);
  }
}

/** `voxform report` as a whole process, with the probe preloaded for its peak RSS and CPU time. */
function runReport(cwd, emulator) {
  const probeFile = path.join(cwd, 'probe.json');
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // BENCH_CPU_PROF=DIR: a CPU profile of each run in DIR (open it in Chrome's DevTools).
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_CPU_PROF)] : [];
    const args = [...profile, '--import', path.join(root, 'bench/lib/probe.mjs'), path.join(root, 'bin/voxform.cjs'), 'report', '--base-url', emulator.url, '--since', '30d', '--format', 'json', '--out', 'report.json'];
    const child = spawn(process.execPath, args, { cwd, env: { ...process.env, NO_COLOR: '1', VOXFORM_API_KEY: emulator.apiKey, BENCH_PROBE_FILE: probeFile }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', async (code) => {
      const wallMs = performance.now() - started;
      if (code !== 0) return reject(new Error(`voxform report exited ${code}: ${stderr.slice(-2000)}`));
      const probe = JSON.parse(await readFile(probeFile, 'utf8'));
      await rm(probeFile);
      resolve({ wallMs, rssMb: probe.maxRssBytes / 2 ** 20, cpuMs: probe.cpuMs });
    });
  });
}
