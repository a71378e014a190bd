// Conversation tests against the emulator, whose chat requests take 200 ms each, at parallelism 8.
//
//   node bench/test-conversations.mjs            200 scripted tests of 3 turns: the wall time within
//                                                1.2 × its floor (requests × 0.2 s / 8)
//   node bench/test-conversations.mjs --largest  the largest run the caps allow (docs/testing.md,
//                                                Budgets): under 10 minutes and 400 MB of peak RSS
//   node bench/test-conversations.mjs --replay   the same 200 tests recorded (--mode record), then replayed
//                                                (--mode replay): the replay within 5 s, sending nothing
//   --format F                                   the report's format (default markdown, as the pull-request
//                                                recipe runs it; json holds every transcript of every run)
//   --failing                                    every test fails its last check, so the text, JUnit and
//                                                Markdown reports show a transcript per test (their heaviest)
//
// The largest run reaches every cap of a run at once — 1,000 conversations, 4,000 requests, close
// to 4 MiB of test files — with the heaviest conversations the format allows: tests of 50 turns of
// 10,000-character messages (each request carries the conversation so far, and the emulator echoes
// each message back). Run `npm run build` first (this uses dist/ and bin/voxform.cjs).
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { DEFAULT_TEST_RUN_LIMITS } from '../dist/conversations/budgets.js';
import { startEmulatorProcess } from './lib/emulator-process.mjs';
import { guardrails, loadAverage, verdict } from './lib/report.mjs';

const CHAT_LATENCY_MS = 200;
const PARALLELISM = 8;
const GOAL_RATIO = 1.2;
const LARGEST_GOALS = { wallMs: 10 * 60_000, rssMb: 400 };
const REPLAY_GOAL_MS = 5_000;
const MESSAGE = 10_000;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const largest = process.argv.includes('--largest');
const formatAt = process.argv.indexOf('--format');
const format = formatAt === -1 ? 'markdown' : process.argv[formatAt + 1];
const failing = process.argv.includes('--failing');
const replay = process.argv.includes('--replay');

const MANIFEST = ['version: 1', 'agents:', '  front-desk:', '    id: "-OKdqbqetEcM4ak369ym"', '    name: Front desk', '    config:', '      prompt: You are the front desk of Acme Dental.', '      first_message: Thanks for calling Acme Dental!', ''].join('\n');

/** A scripted test: the greeting, then `messages` caller messages, `repeat` runs (with --failing, its last check fails). */
function scriptedTest(name, messages, repeat) {
  const lines = [`  - name: ${name}`, `    repeat: ${repeat}`, '    turns:', '      - expect: [{ contains: acme dental }]'];
  for (const message of messages) lines.push(`      - user: ${message}`, '        expect: [{ not_contains: error }]');
  if (failing) lines.push(`${lines.pop().slice(0, -1)}, { contains: not in any reply }]`);
  return lines.join('\n');
}

/** The default point: 200 tests × 3 turns in one file. */
function defaultFiles() {
  const tests = [];
  for (let i = 0; i < 200; i++) tests.push(scriptedTest(`conversation ${i}`, [`Question ${i} about opening hours`, `And the price of a cleaning, please (${i})?`], 1));
  return { files: [['bench.test.yaml', tests]], conversations: 200, requests: 600 };
}

/**
 * The largest point. Long tests (50 turns: the greeting and 49 messages of 10,000 characters,
 * repeated 8 times) take most of the requests; short ones (the greeting, and for some one long
 * message, repeated 16 times) fill the conversations and requests up to the caps exactly.
 */
function largestFiles() {
  const { maxConversations, maxRequests } = DEFAULT_TEST_RUN_LIMITS;
  const long = { tests: 7, turns: 50, repeat: 8 };
  const shortRepeat = 16;
  const conversationsLeft = maxConversations - long.tests * long.repeat;
  const requestsLeft = maxRequests - long.tests * long.turns * long.repeat;
  const shortTests = conversationsLeft / shortRepeat;
  const twoTurnTests = requestsLeft / shortRepeat - shortTests;
  if (!Number.isInteger(shortTests) || !Number.isInteger(twoTurnTests) || twoTurnTests < 0 || twoTurnTests > shortTests) throw new Error('the shape does not fill the caps exactly');
  const text = (i, t) => `${i}-${t} ${'x'.repeat(MESSAGE - 16)}`.slice(0, MESSAGE);
  // Two long tests fill a file (each file stays under the 1 MiB a file may have).
  const files = [];
  for (let i = 0; i < long.tests; i++) {
    if (i % 2 === 0) files.push([`long-${i / 2}.test.yaml`, []]);
    files.at(-1)[1].push(scriptedTest(`long ${i}`, Array.from({ length: long.turns - 1 }, (_, t) => text(i, t)), long.repeat));
  }
  const short = [];
  for (let i = 0; i < shortTests; i++) short.push(scriptedTest(`short ${i}`, i < twoTurnTests ? [text(100 + i, 0)] : [], shortRepeat));
  files.at(-1)[1].push(...short);
  return { files, conversations: maxConversations, requests: maxRequests };
}

async function writeProject(dir, shape) {
  await writeFile(path.join(dir, 'voxform.yaml'), MANIFEST);
  await mkdir(path.join(dir, 'tests'), { recursive: true });
  let bytes = 0;
  for (const [name, tests] of shape.files) {
    const text = `agent: front-desk\ntests:\n${tests.join('\n')}\n`;
    bytes += Buffer.byteLength(text);
    await writeFile(path.join(dir, 'tests', name), text);
  }
  return bytes;
}

/** The child's peak resident memory so far (Linux: VmHWM), in MB; NaN elsewhere. */
function peakRssMb(pid) {
  try {
    return Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? NaN) / 1024;
  } catch {
    return NaN;
  }
}

function runCli(dir, args, env) {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, [path.join(root, 'bin/voxform.cjs'), ...args], { cwd: dir, env: { ...process.env, ...env, NO_COLOR: '1' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    // VmHWM only grows: its last reading before the exit is the peak, give or take the last 100 ms.
    let rssMb = NaN;
    const poll = setInterval(() => {
      const reading = peakRssMb(child.pid);
      if (!Number.isNaN(reading)) rssMb = reading;
    }, 100);
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => {
      clearInterval(poll);
      resolve({ code, wallMs: performance.now() - started, rssMb, stdout, stderr });
    });
  });
}

/** --replay: the suite recorded once, then replayed; the replay's wall time against its guardrail, and no request sent. */
async function benchReplay(dir, shape, env) {
  const expected = failing ? 1 : 0;
  const recorded = await runCli(dir, ['test', '--parallelism', String(PARALLELISM), '--format', format, '--mode', 'record'], env);
  if (recorded.code !== expected) throw new Error(`voxform test --mode record exited ${recorded.code}: ${recorded.stderr.slice(-2000)}`);
  const before = await emulator.lastRequestSeq();
  const replayed = await runCli(dir, ['test', '--parallelism', String(PARALLELISM), '--format', format, '--mode', 'replay'], env);
  if (replayed.code !== expected) throw new Error(`voxform test --mode replay exited ${replayed.code}: ${replayed.stderr.slice(-2000)}`);
  const requests = (await emulator.lastRequestSeq()) - before;
  if (requests !== 0) throw new Error(`the replay sent ${requests} requests to the service`);
  console.log(`${loadAverage()} (a shared machine: figures include its load)`);
  console.log(`replay: ${shape.conversations} recorded tests of 3 turns (${shape.requests} agent turns), --format ${format}${failing ? ' --failing' : ''}; recorded in ${(recorded.wallMs / 1000).toFixed(2)} s, replayed sending nothing`);
  const checks = guardrails();
  checks.check('voxform test --mode replay (wall)', replayed.wallMs / 1000, REPLAY_GOAL_MS / 1000, 's', `${REPLAY_GOAL_MS / 1000} s`);
  if (!checks.passed) process.exitCode = 1;
}

const dir = await mkdtemp(path.join(tmpdir(), 'voxform-bench-test-'));
const emulator = await startEmulatorProcess({});
try {
  const shape = largest ? largestFiles() : defaultFiles();
  const bytes = await writeProject(dir, shape);
  // Latency on chat requests only: reading the agent and the call log stays instant.
  const faults = await fetch(`${emulator.url}/_emulator/faults`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ rules: [{ path: '/chat/completions', latencyMs: CHAT_LATENCY_MS }] }),
  });
  if (!faults.ok) throw new Error(`setting the latency failed: ${faults.status} ${await faults.text()}`);
  const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: emulator.apiKey };
  if (replay) await benchReplay(dir, shape, env);
  else await benchRun(dir, shape, bytes, env);
} finally {
  await emulator.close();
  if (!process.env.BENCH_KEEP) await rm(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}

/** The run itself, live, against its floor (or, --largest, its guardrails). */
async function benchRun(dir, shape, bytes, env) {
  const before = await emulator.lastRequestSeq();
  const result = await runCli(dir, ['test', '--parallelism', String(PARALLELISM), '--format', format], env);
  if (result.code !== (failing ? 1 : 0)) throw new Error(`voxform test exited ${result.code}: ${result.stderr.slice(-2000)}${result.stdout.slice(-2000)}`);
  const requests = (await emulator.lastRequestSeq()) - before;
  // Every chat request of the run, and one read of the agent.
  if (requests !== shape.requests + 1) throw new Error(`the service saw ${requests} requests, not ${shape.requests + 1}`);
  const floorMs = (shape.requests * CHAT_LATENCY_MS) / PARALLELISM;
  console.log(`${loadAverage()} (a shared machine: figures include its load)`);
  console.log(
    `${largest ? 'the largest run the caps allow' : 'default point'}: ${shape.conversations.toLocaleString('en-US')} conversations, ${shape.requests.toLocaleString('en-US')} chat requests, ` +
      `${(bytes / 1024 / 1024).toFixed(2)} MiB of test files; ${CHAT_LATENCY_MS} ms per chat request; parallelism ${PARALLELISM}; --format ${format}${failing ? ' --failing' : ''}`,
  );
  const wall = `wall ${(result.wallMs / 1000).toFixed(2)} s (floor ${(floorMs / 1000).toFixed(2)} s)`;
  console.log(`voxform test  ${requests} requests to the service  ${wall}  peak RSS ${result.rssMb.toFixed(0)} MB`);
  if (largest) {
    const wallOk = result.wallMs <= LARGEST_GOALS.wallMs;
    const rssOk = result.rssMb <= LARGEST_GOALS.rssMb;
    console.log(`  wall ≤ ${LARGEST_GOALS.wallMs / 60_000} min: ${verdict(wallOk)}   peak RSS ≤ ${LARGEST_GOALS.rssMb} MB: ${verdict(rssOk)}`);
    if (!wallOk || !rssOk) process.exitCode = 1;
  } else {
    const ratio = result.wallMs / floorMs;
    console.log(`  ratio ${ratio.toFixed(2)} × floor (goal ≤ ${GOAL_RATIO}) ${verdict(ratio <= GOAL_RATIO)}`);
    if (ratio > GOAL_RATIO) process.exitCode = 1;
  }
}
