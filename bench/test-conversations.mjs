// Conversation tests at scale: 200 scripted tests of 3 turns each against the emulator, whose chat
// requests take 200 ms each, with parallelism 8. The floor is (600 requests × 0.2 s / 8) = 15 s;
// the goal is a wall time within 1.2 × that floor.
// Run `npm run build` first (this uses dist/ and bin/voxform.js).
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { loadAverage, verdict } from './lib/report.mjs';

const TESTS = 200;
const TURNS = 3;
const CHAT_LATENCY_MS = 200;
const PARALLELISM = 8;
const GOAL_RATIO = 1.2;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

async function writeProject(dir) {
  // The default seed's front desk, as agents.example.yaml names it.
  await writeFile(
    path.join(dir, 'voxform.yaml'),
    ['version: 1', 'agents:', '  front-desk:', '    id: "-OKdqbqetEcM4ak369ym"', '    name: Front desk', '    config:', '      prompt: You are the front desk of Acme Dental.', '      first_message: Thanks for calling Acme Dental!', ''].join('\n'),
  );
  const lines = ['agent: front-desk', 'tests:'];
  for (let i = 0; i < TESTS; i++) {
    lines.push(
      `  - name: conversation ${i}`,
      '    turns:',
      '      - expect: [{ contains: acme dental }]',
      `      - user: Question ${i} about opening hours`,
      `        expect: [{ contains: "question ${i}" }, { regex: "opening hours$" }]`,
      `      - user: And the price of a cleaning, please (${i})?`,
      '        expect: [{ not_contains: error }]',
    );
  }
  await mkdir(path.join(dir, 'tests'), { recursive: true });
  await writeFile(path.join(dir, 'tests', 'bench.test.yaml'), `${lines.join('\n')}\n`);
}

function runCli(dir, args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [path.join(root, 'bin/voxform.js'), ...args], { cwd: dir, env: { ...process.env, ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, wallMs: performance.now() - started, stdout, stderr }));
  });
}

const dir = await mkdtemp(path.join(tmpdir(), 'voxform-bench-test-'));
const emulator = await startEmulatorProcess({});
try {
  await writeProject(dir);
  // Latency on chat requests only: reading the agent stays instant, as the goal counts chat requests.
  const faults = await fetch(`${emulator.url}/_emulator/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rules: [{ path: '/chat/completions', latencyMs: CHAT_LATENCY_MS }] }),
  });
  if (!faults.ok) throw new Error(`setting the latency failed: ${faults.status} ${await faults.text()}`);
  const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: emulator.apiKey };
  const before = await emulator.lastRequestSeq();
  const result = await runCli(dir, ['test', '--parallelism', String(PARALLELISM)], env);
  if (result.code !== 0) throw new Error(`voxform test exited ${result.code}: ${result.stderr.slice(-2000)}${result.stdout.slice(-2000)}`);
  const requests = (await emulator.lastRequestSeq()) - before;
  const chatRequests = TESTS * TURNS;
  const floorMs = (chatRequests * CHAT_LATENCY_MS) / PARALLELISM;
  const ratio = result.wallMs / floorMs;
  console.log(`${loadAverage()} (a shared machine: figures include its load)`);
  console.log(`${TESTS} scripted tests × ${TURNS} turns; ${CHAT_LATENCY_MS} ms per chat request; parallelism ${PARALLELISM}`);
  console.log(
    `voxform test  ${requests} requests (${chatRequests} chat)  wall ${(result.wallMs / 1000).toFixed(2)} s  ` +
      `floor ${(floorMs / 1000).toFixed(2)} s  ratio ${ratio.toFixed(2)} × floor (goal ≤ ${GOAL_RATIO}; ratio to goal ${(ratio / GOAL_RATIO).toFixed(2)}) ${verdict(ratio <= GOAL_RATIO)}`,
  );
  if (ratio > GOAL_RATIO) process.exitCode = 1;
} finally {
  await emulator.close();
  if (!process.env.BENCH_KEEP) await rm(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}
