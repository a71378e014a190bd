// Plan and apply at scale: 500 agents + 500 phones + 50 campaigns against the emulator with 20 ms
// of latency on every request. The floor of each command is (its requests × 20 ms / parallelism);
// the goal is a wall time within 1.25 × that floor and a peak RSS of at most 250 MB.
// Run `npm run build` first (this uses dist/ and bin/voxform.js).
import { spawn } from 'node:child_process';
import { mkdtemp, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startEmulatorProcess } from './lib/emulator-process.mjs';

const AGENTS = 500;
const CAMPAIGNS = 50;
const LATENCY_MS = 20;
const PARALLELISM = 8;
const GOAL_RATIO = 1.25;
const GOAL_RSS_MB = 250;

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const agentId = (i) => `-OKbench${String(i).padStart(12, '0')}`;
const phone = (i) => `+1555${String(1_000_000 + i).padStart(7, '0')}`;

function liveConfig(i) {
  return {
    prompt: `You are agent ${i}. Old prompt.`,
    first_message: 'Hello.',
    voice: { provider: 'elevenlabs', voice_id: 'rachel', settings: { stability: 0.5 } },
    llm: { model: 'gpt-4o', temperature: 0.7 },
    flow: { response_delay: 500, voicemail: { action: 'hangup', message: 'Call back later.' } },
    language: 'en-US',
  };
}

const seed = {
  keys: [{ type: 'private', key: 'benchPrivateKey00000000000000001' }],
  agents: Array.from({ length: AGENTS }, (_, i) => ({ id: agentId(i), name: `Agent ${i}`, created_at: 1_700_000_000, config: liveConfig(i) })),
  phones: Array.from({ length: AGENTS }, (_, i) => ({ id: phone(i), create_at: 1_700_000_000, status: 'active', tags: [] })),
  campaigns: Array.from({ length: CAMPAIGNS }, (_, i) => ({ id: `cmp_${i}`, name: `Campaign ${i}`, status: 'idle', created_at: 1_700_000_000, include_metadata_in_prompt: false })),
};

async function writeProject(dir) {
  await mkdir(path.join(dir, 'prompts'), { recursive: true });
  const lines = ['version: 1', 'defaults:', '  config: { language: en-US, timezone: America/New_York }', 'agents:'];
  for (let i = 0; i < AGENTS; i++) {
    const body = `# Agent ${i}\n${'Be brief, warm and clear. Confirm every number you hear. '.repeat(30)}\n`;
    await writeFile(path.join(dir, 'prompts', `agent-${i}.md`), body);
    lines.push(
      `  agent-${i}:`,
      `    id: "${agentId(i)}"`,
      `    name: Agent ${i}`,
      '    config:',
      `      prompt: { file: prompts/agent-${i}.md }`,
      `      first_message: Thanks for calling line ${i}!`,
      '      voice: { voice_id: ava }',
      '      flow: { response_delay: 300 }',
      '      llm: { temperature: 0.4 }',
    );
  }
  lines.push('phones:');
  for (let i = 0; i < AGENTS; i++) lines.push(`  "${phone(i)}": { agent: agent-${i} }`);
  lines.push('campaigns:');
  for (let i = 0; i < CAMPAIGNS; i++) lines.push(`  campaign-${i}: { id: cmp_${i}, name: Spring outreach ${i}, include_metadata_in_prompt: true, caller: "${phone(i)}" }`);
  await writeFile(path.join(dir, 'voxform.yaml'), `${lines.join('\n')}\n`);
}

function runCli(dir, args, env) {
  const rssFile = path.join(dir, `rss-${args[0]}.txt`);
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, ['--import', path.join(root, 'bench/report-rss.mjs'), path.join(root, 'bin/voxform.js'), ...args], {
      cwd: dir,
      env: { ...process.env, ...env, NO_COLOR: '1', BENCH_RSS_FILE: rssFile },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', async (code) => {
      const wallMs = performance.now() - started;
      const rss = Number(await readFile(rssFile, 'utf8').catch(() => '0'));
      resolve({ code, wallMs, rss, stderr });
    });
  });
}

const dir = await mkdtemp(path.join(tmpdir(), 'voxform-bench-plan-'));
const emulator = await startEmulatorProcess({ seed, seedFile: path.join(dir, 'seed.json'), latencyMs: LATENCY_MS });
try {
  await writeProject(dir);
  const env = { VOXFORM_BASE_URL: emulator.url, VOXFORM_API_KEY: 'benchPrivateKey00000000000000001' };
  const rows = [];
  for (const [label, args] of [
    ['plan (first)', ['plan', '--parallelism', String(PARALLELISM)]],
    ['apply', ['apply', '--auto-approve', '--parallelism', String(PARALLELISM)]],
    ['plan (after)', ['plan', '--detailed-exitcode', '--parallelism', String(PARALLELISM)]],
  ]) {
    const before = await emulator.lastRequestSeq();
    const result = await runCli(dir, args, env);
    if (result.code !== 0) throw new Error(`${label} exited ${result.code}: ${result.stderr.slice(-2000)}`);
    const requests = (await emulator.lastRequestSeq()) - before;
    const limitMs = (requests * LATENCY_MS) / PARALLELISM;
    rows.push({ label, requests, wallMs: result.wallMs, limitMs, ratio: result.wallMs / limitMs, rssMb: result.rss / 2 ** 20 });
  }
  console.log(`${AGENTS} agents + ${AGENTS} phones + ${CAMPAIGNS} campaigns; ${LATENCY_MS} ms latency per request; parallelism ${PARALLELISM}`);
  for (const r of rows) {
    console.log(
      `${r.label.padEnd(13)} ${String(r.requests).padStart(5)} requests  wall ${(r.wallMs / 1000).toFixed(2)} s  limit ${(r.limitMs / 1000).toFixed(2)} s  ` +
        `ratio ${r.ratio.toFixed(2)} (goal ≤ ${GOAL_RATIO})  peak RSS ${r.rssMb.toFixed(0)} MB (goal ≤ ${GOAL_RSS_MB})`,
    );
  }
  const ok = rows.every((r) => r.ratio <= GOAL_RATIO && r.rssMb <= GOAL_RSS_MB);
  console.log(ok ? 'plan/apply: within the goals' : 'plan/apply: OUTSIDE the goals');
} finally {
  await emulator.close();
  if (!process.env.BENCH_KEEP) await rm(dir, { recursive: true, force: true });
  else console.log(`kept ${dir}`);
}
