/**
 * The secret scan: distinct values planted in every secret slot (the API key, a webhook header, a
 * tool header, phone import keys, a credential key, a plain `${env:…}` value), then every command in
 * every format, in four situations — success, a manifest error, a 422 from the service that echoes
 * what it was sent, and a crash — with stdout, stderr and every file of the project (`.voxform/`,
 * saved plans, exported files) searched for each value in every form it could be echoed in.
 *
 * Most runs call the CLI's real entry point (`main`) in-process, for speed; a few spawn the built
 * binary: commands that read stdin (`chat`), and the paths only a process shows (an oversized
 * value, an error thrown outside the awaited chain). To scan a new command, add rows to `RUNS`.
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../src/cli/main.js';
import { defaultSeed } from '../../src/emulator/index.js';
import { echoedForms } from '../../src/secrets/redact.js';
import { repoRoot, runCli } from '../helpers/cli.js';
import { startFakeCodeHost, type FakeCodeHost } from '../helpers/fake-code-host.js';
import { callService, startExampleProject, type ExampleProject } from '../helpers/project.js';

const crash = vi.hoisted(() => ({ enabled: false }));

// A bug in the engine, simulated: the error it throws carries every secret of the run in its message.
vi.mock('../../src/plan/create-plan.js', async (importOriginal) => {
  const original = await importOriginal<typeof import('../../src/plan/create-plan.js')>();
  return {
    ...original,
    createPlan: async (options: Parameters<typeof original.createPlan>[0]) => {
      if (crash.enabled) throw new Error(`simulated engine bug holding ${JSON.stringify(options.desired.secrets)}`);
      return original.createPlan(options);
    },
  };
});

/** One distinct value per secret slot; special characters, so escaped and encoded echoes are tested too. */
const PLANTED = {
  'api key': 'planted-api-key-3b8e51d07c',
  'webhook header': 'planted/hook=tok+en&x y-51a0',
  'tool header': 'planted "cal\\endar" tøken-8c2f',
  'phone import key': 'planted-twilio-key-6d93',
  'phone import secret (short)': 'q7Z',
  'credential key': 'sk-planted-openai-0e4b',
  '${env:} value': 'planted greeting café & "quoted" </b>-77f1',
  'CI token': 'ghs_planted-ci-token-4d5e6f',
} as const;
type Slot = keyof typeof PLANTED;
const SLOTS = Object.keys(PLANTED) as Slot[];

const MANIFEST_ENV = {
  HOOK_TOKEN: PLANTED['webhook header'],
  CALENDAR_TOKEN: PLANTED['tool header'],
  TWILIO_API_KEY: PLANTED['phone import key'],
  TWILIO_API_SECRET: PLANTED['phone import secret (short)'],
  OPENAI_API_KEY: PLANTED['credential key'],
  GREETING: PLANTED['${env:} value'],
  // Every command runs with the CI's token in its environment; `ci run` uses it.
  GITHUB_TOKEN: PLANTED['CI token'],
};

type Scenario = 'success' | 'manifest error' | 'service 422' | 'crash';

interface ScanRun {
  scenario: Scenario;
  command: string;
  format: string;
  args: string[];
  debug?: boolean;
  /**
   * How the service answers: through the emulator, or a proxy that refuses with a 422 echoing the key
   * (`get`), every planted value, as a service holding the manifests' secrets might (`secrets`: the
   * reads `plan` starts before the manifests' secrets are known), or the request body (`write`).
   */
  service?: 'emulator' | 'echo-get' | 'echo-secrets' | 'echo-write';
  /** Run the built binary in a process of its own, with this on stdin (for commands that read it). */
  stdin?: string;
  /** Run outside the project (no manifest: only the service's answers and structural redaction). */
  outside?: boolean;
  /** Exit codes the run may end with (a scan of a run that did not do its job would prove little). */
  codes: number[];
  /** Run as a GitHub Actions job of a pull request, reporting to the fake GitHub (`voxform ci run`). */
  ci?: boolean;
}

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const BOOKING = '-OKdqbqetEcM4ak369yn';

const RUNS: ScanRun[] = [
  { scenario: 'success', command: 'validate', format: 'text', args: ['validate'], codes: [0] },
  { scenario: 'success', command: 'validate', format: 'json', args: ['validate', '--format', 'json'], codes: [0] },
  { scenario: 'success', command: 'validate', format: 'sarif', args: ['validate', '--format', 'sarif'], codes: [0] },
  { scenario: 'success', command: 'policy list', format: 'text', args: ['policy', 'list'], codes: [0] },
  { scenario: 'success', command: 'policy list', format: 'json', args: ['policy', 'list', '--format', 'json'], codes: [0] },
  { scenario: 'success', command: 'plan', format: 'text', args: ['plan'], debug: true, codes: [0] },
  { scenario: 'success', command: 'plan', format: 'json', args: ['plan', '--format', 'json'], codes: [0] },
  { scenario: 'success', command: 'plan', format: 'markdown', args: ['plan', '--format', 'markdown', '--out', 'plan.json'], codes: [0] },
  { scenario: 'success', command: 'plan show', format: 'text', args: ['plan', 'show', 'plan.json'], codes: [0] },
  { scenario: 'success', command: 'plan show', format: 'json', args: ['plan', 'show', 'plan.json', '--format', 'json'], codes: [0] },
  { scenario: 'success', command: 'plan show', format: 'markdown', args: ['plan', 'show', 'plan.json', '--format', 'markdown'], debug: true, codes: [0] },
  { scenario: 'success', command: 'apply', format: 'text', args: ['apply', 'plan.json'], debug: true, codes: [0] },
  { scenario: 'success', command: 'apply', format: 'text', args: ['apply', '--auto-approve'], codes: [0] },
  { scenario: 'success', command: 'plan', format: 'json', args: ['plan', '--format', 'json', '--out', 'after.json'], codes: [0] },
  { scenario: 'success', command: 'export', format: 'text', args: ['export', '--agent', FRONT_DESK, '--agent', BOOKING, '--out', 'exported'], codes: [0] },
  // The live greeting holds the planted `${env:}` value, which the service streams a word at a time.
  { scenario: 'success', command: 'chat', format: 'project', args: ['chat', '--agent', FRONT_DESK], stdin: 'Hello\n', codes: [0] },
  // Before the first of these, the test edits the live first message (the planted `${env:}` value) and webhook header behind voxform's back.
  { scenario: 'success', command: 'drift', format: 'text', args: ['drift'], debug: true, codes: [2] },
  { scenario: 'success', command: 'drift', format: 'json', args: ['drift', '--format', 'json'], codes: [2] },
  { scenario: 'success', command: 'drift', format: 'markdown', args: ['drift', '--format', 'markdown'], codes: [2] },
  { scenario: 'success', command: 'drift', format: 'notify json', args: ['drift', '--notify', 'RECEIVER/drift'], debug: true, codes: [2] },
  { scenario: 'success', command: 'drift', format: 'notify slack', args: ['drift', '--notify', 'RECEIVER/drift', '--notify-format', 'slack'], codes: [2] },
  { scenario: 'success', command: 'drift', format: 'heal', args: ['drift', '--heal', '--auto-approve', '--format', 'json'], debug: true, codes: [0] },

  { scenario: 'success', command: 'logs', format: 'text', args: ['logs', '--agent', 'front-desk'], codes: [0] },
  { scenario: 'success', command: 'logs', format: 'json', args: ['logs', '--agent', FRONT_DESK, '--format', 'json'], codes: [0] },
  { scenario: 'success', command: 'logs', format: 'ndjson', args: ['logs', '--all', '--format', 'ndjson'], debug: true, codes: [0] },
  { scenario: 'success', command: 'logs', format: 'stats', args: ['logs', '--stats', '--format', 'json'], codes: [0] },
  { scenario: 'success', command: 'logs', format: 'text', args: ['logs'], outside: true, codes: [0] },
  { scenario: 'success', command: 'logs', format: 'json', args: ['logs', '--format', 'json'], outside: true, codes: [0] },
  { scenario: 'success', command: 'logs', format: 'ndjson', args: ['logs', '--format', 'ndjson'], outside: true, codes: [0] },
  { scenario: 'success', command: 'report', format: 'markdown', args: ['report'], codes: [0] },
  { scenario: 'success', command: 'report', format: 'json', args: ['report', '--format', 'json'], debug: true, codes: [0] },
  { scenario: 'success', command: 'report', format: 'html', args: ['report', '--format', 'html', '--out', 'report.html'], codes: [0] },
  { scenario: 'success', command: 'report', format: 'markdown', args: ['report', '--format', 'markdown', '--out', 'report.md'], codes: [0] },
  // After the apply: the live greeting holds the planted `${env:GREETING}` value, and the failing check quotes it.
  { scenario: 'success', command: 'test', format: 'text', args: ['test', 'tests/scan.test.yaml', '--against', 'both'], debug: true, codes: [1] },
  { scenario: 'success', command: 'test', format: 'json', args: ['test', 'tests/scan.test.yaml', '--against', 'both', '--format', 'json'], codes: [1] },
  { scenario: 'success', command: 'test', format: 'junit', args: ['test', 'tests/scan.test.yaml', '--against', 'both', '--format', 'junit', '--out', 'junit.xml'], codes: [1] },
  { scenario: 'success', command: 'test', format: 'markdown', args: ['test', 'tests/scan.test.yaml', '--against', 'both', '--format', 'markdown'], codes: [1] },
  // `voxform ci run`: what it runs is scanned as above, and also the comments it posts and the job summary.
  { scenario: 'success', command: 'ci run', format: 'plan', args: ['ci', 'run', '--provider', 'github', '--command', 'plan', '--out-dir', 'ci-out'], ci: true, debug: true, codes: [0] },
  { scenario: 'success', command: 'ci run', format: 'test', args: ['ci', 'run', '--provider', 'github', '--command', 'test', '--out-dir', 'ci-out', '--command-args', 'tests/scan.test.yaml'], ci: true, codes: [1] },
  // The recording is a file of the project: scanned with the others. Replayed, and compared with a baseline, nothing is sent.
  { scenario: 'success', command: 'test', format: 'record', args: ['test', 'tests/scan.test.yaml', '--against', 'both', '--mode', 'record'], codes: [1] },
  { scenario: 'success', command: 'test', format: 'replay', args: ['test', 'tests/scan.test.yaml', '--against', 'both', '--mode', 'replay', '--format', 'json', '--out', 'scan-result.json'], codes: [1] },
  { scenario: 'success', command: 'test', format: 'baseline', args: ['test', 'tests/scan.test.yaml', '--mode', 'replay', '--baseline', 'scan-result.json', '--format', 'markdown'], codes: [0] },
  { scenario: 'success', command: 'test capture', format: 'text', args: ['test', 'capture', 'CALL_ID', '--out', 'tests/captured.test.yaml'], debug: true, codes: [0] },
  { scenario: 'success', command: 'apply', format: 'text', args: ['apply', '--env', 'staging', '--auto-approve'], codes: [0] },
  { scenario: 'success', command: 'test', format: 'text', args: ['test', 'tests/scan.test.yaml', '--env', 'staging', '--against', 'live'], codes: [1] },
  { scenario: 'success', command: 'history', format: 'text', args: ['history', '--env', 'staging'], codes: [0] },
  { scenario: 'success', command: 'history', format: 'json', args: ['history', '--env', 'staging', '--format', 'json'], debug: true, codes: [0] },
  { scenario: 'success', command: 'promote', format: 'text', args: ['promote', '--to', 'production', '--dry-run'], debug: true, codes: [1] },
  { scenario: 'success', command: 'diff', format: 'text', args: ['diff', '--env', 'staging', '--env', 'production'], debug: true, codes: [0] },
  { scenario: 'success', command: 'diff', format: 'json', args: ['diff', '--env', 'staging', '--env', 'production', '--format', 'json'], codes: [0] },
  { scenario: 'success', command: 'diff', format: 'markdown', args: ['diff', '--env', 'staging', '--env', 'production', '--format', 'markdown'], codes: [0] },
  { scenario: 'success', command: 'keys', format: 'text', args: ['keys', 'create', '--type', 'public'], codes: [0] },
  // RECEIVER is a webhook receiver of the test's; CALL_ID an ended call whose agent_config holds the planted headers.
  { scenario: 'success', command: 'webhook send', format: 'text', args: ['webhook', 'send', '--to', 'RECEIVER/hook', '--event', 'end-of-call', '--agent', 'front-desk'], codes: [0] },
  { scenario: 'success', command: 'webhook send', format: 'prefetch', args: ['webhook', 'send', '--to', 'RECEIVER/hook', '--event', 'prefetch', '--agent', 'front-desk'], debug: true, codes: [0] },
  { scenario: 'success', command: 'webhook send', format: 'logged call', args: ['webhook', 'send', '--to', 'RECEIVER/hook', '--event', 'end-of-call', '--call', 'CALL_ID'], outside: true, debug: true, codes: [0] },
  { scenario: 'success', command: 'webhook send', format: 'logged call, agent', args: ['webhook', 'send', '--to', 'RECEIVER/hook', '--event', 'prefetch', '--call', 'CALL_ID', '--agent', 'front-desk'], codes: [0] },
  { scenario: 'success', command: 'status', format: 'text', args: ['status'], debug: true, codes: [0] },
  { scenario: 'success', command: 'status', format: 'json', args: ['status', '--format', 'json'], codes: [0] },
  { scenario: 'success', command: 'get', format: 'text', args: ['get', 'phones'], codes: [0] },
  { scenario: 'success', command: 'get', format: 'text', args: ['get', 'agents'], debug: true, codes: [0] },
  { scenario: 'success', command: 'get', format: 'json', args: ['get', 'agents', 'front-desk', '--format', 'json'], codes: [0] },
  // After the applies: the state records the campaign's values and the file's id, read beside the call log and the agents.
  { scenario: 'success', command: 'get', format: 'text', args: ['get', 'campaigns'], debug: true, codes: [0] },
  { scenario: 'success', command: 'get', format: 'json', args: ['get', 'campaigns', 'recall-reminders', '--format', 'json'], codes: [0] },
  { scenario: 'success', command: 'get', format: 'text', args: ['get', 'knowledge', '--env', 'staging'], codes: [0] },
  { scenario: 'success', command: 'get', format: 'json', args: ['get', 'knowledge', '--format', 'json'], debug: true, codes: [0] },
  { scenario: 'success', command: 'completion', format: 'text', args: ['completion', 'bash'], codes: [0] },
  { scenario: 'service 422', command: 'get', format: 'text', args: ['get', 'agents'], service: 'echo-get', debug: true, codes: [1] },
  { scenario: 'service 422', command: 'get', format: 'json', args: ['get', 'phones', '--format', 'json'], service: 'echo-get', codes: [1] },
  { scenario: 'service 422', command: 'get', format: 'text', args: ['get', 'campaigns'], service: 'echo-get', debug: true, codes: [1] },
  { scenario: 'service 422', command: 'get', format: 'json', args: ['get', 'knowledge', '--format', 'json'], service: 'echo-get', codes: [1] },
  { scenario: 'service 422', command: 'status', format: 'text', args: ['status'], service: 'echo-get', debug: true, codes: [1] },
  { scenario: 'service 422', command: 'status', format: 'json', args: ['status', '--format', 'json'], service: 'echo-get', codes: [1] },
  { scenario: 'success', command: 'chat', format: 'text', args: ['chat', '--agent', FRONT_DESK], stdin: 'Hello\n', outside: true, codes: [0] },
  { scenario: 'service 422', command: 'chat', format: 'text', args: ['chat', '--agent', FRONT_DESK], stdin: 'Hello\n', service: 'echo-get', codes: [1] },
  { scenario: 'service 422', command: 'plan', format: 'text', args: ['plan'], service: 'echo-get', debug: true, codes: [1] },
  { scenario: 'service 422', command: 'plan', format: 'json', args: ['plan', '--format', 'json'], service: 'echo-get', codes: [1] },
  { scenario: 'service 422', command: 'plan', format: 'markdown', args: ['plan', '--format', 'markdown'], service: 'echo-get', codes: [1] },
  { scenario: 'service 422', command: 'plan', format: 'text', args: ['plan'], service: 'echo-secrets', debug: true, codes: [1] },
  { scenario: 'service 422', command: 'apply', format: 'text', args: ['apply', '--auto-approve'], service: 'echo-secrets', debug: true, codes: [1] },
  { scenario: 'service 422', command: 'apply', format: 'text', args: ['apply', '--auto-approve'], service: 'echo-write', debug: true, codes: [1] },
  { scenario: 'service 422', command: 'drift', format: 'text', args: ['drift'], service: 'echo-get', debug: true, codes: [1] },
  { scenario: 'service 422', command: 'drift', format: 'json', args: ['drift', '--format', 'json', '--notify', 'RECEIVER/drift'], service: 'echo-get', codes: [1] },
  { scenario: 'service 422', command: 'drift', format: 'markdown', args: ['drift', '--format', 'markdown'], service: 'echo-secrets', codes: [1] },
  { scenario: 'service 422', command: 'export', format: 'text', args: ['export', '--agent', FRONT_DESK, '--out', 'exported-422'], service: 'echo-get', codes: [1] },
  { scenario: 'service 422', command: 'logs', format: 'text', args: ['logs'], service: 'echo-get', codes: [1] },
  { scenario: 'service 422', command: 'logs', format: 'json', args: ['logs', '--format', 'json'], service: 'echo-get', codes: [1] },
  { scenario: 'service 422', command: 'logs', format: 'ndjson', args: ['logs', '--format', 'ndjson'], service: 'echo-get', codes: [1] },
  { scenario: 'service 422', command: 'report', format: 'json', args: ['report', '--format', 'json'], service: 'echo-get', codes: [1] },
  { scenario: 'service 422', command: 'keys', format: 'text', args: ['keys', 'create', '--type', 'public'], service: 'echo-write', codes: [1] },
  { scenario: 'service 422', command: 'webhook send', format: 'logged call', args: ['webhook', 'send', '--to', 'RECEIVER/hook', '--event', 'end-of-call', '--call', 'CALL_ID'], service: 'echo-get', debug: true, codes: [1] },
  { scenario: 'service 422', command: 'ci run', format: 'plan', args: ['ci', 'run', '--provider', 'github', '--command', 'plan', '--out-dir', 'ci-out'], service: 'echo-secrets', ci: true, debug: true, codes: [1] },
  { scenario: 'crash', command: 'ci run', format: 'plan', args: ['ci', 'run', '--provider', 'github', '--command', 'plan', '--out-dir', 'ci-out'], ci: true, codes: [1] },
  { scenario: 'crash', command: 'plan', format: 'text', args: ['plan'], codes: [1] },
  { scenario: 'crash', command: 'plan', format: 'json', args: ['plan', '--format', 'json'], debug: true, codes: [1] },
  { scenario: 'crash', command: 'plan', format: 'markdown', args: ['plan', '--format', 'markdown'], debug: true, codes: [1] },
  { scenario: 'crash', command: 'apply', format: 'text', args: ['apply', '--auto-approve'], debug: true, codes: [1] },
  { scenario: 'crash', command: 'drift', format: 'json', args: ['drift', '--format', 'json', '--notify', 'RECEIVER/drift'], debug: true, codes: [1] },
  // Last: it breaks the manifest for good.
  { scenario: 'manifest error', command: 'validate', format: 'text', args: ['validate'], codes: [1] },
  { scenario: 'manifest error', command: 'validate', format: 'json', args: ['validate', '--format', 'json'], debug: true, codes: [1] },
  { scenario: 'manifest error', command: 'validate', format: 'sarif', args: ['validate', '--format', 'sarif'], codes: [1] },
  { scenario: 'manifest error', command: 'policy list', format: 'text', args: ['policy', 'list'], codes: [0] },
  { scenario: 'manifest error', command: 'plan', format: 'text', args: ['plan'], codes: [1] },
  { scenario: 'manifest error', command: 'plan', format: 'json', args: ['plan', '--format', 'json'], codes: [1] },
  { scenario: 'manifest error', command: 'plan', format: 'markdown', args: ['plan', '--format', 'markdown'], codes: [1] },
  { scenario: 'manifest error', command: 'apply', format: 'text', args: ['apply', '--auto-approve'], debug: true, codes: [1] },
  { scenario: 'manifest error', command: 'status', format: 'json', args: ['status', '--format', 'json'], codes: [0] },
  { scenario: 'manifest error', command: 'logs', format: 'json', args: ['logs', '--agent', 'front-desk', '--format', 'json'], codes: [0, 1] },
  { scenario: 'manifest error', command: 'webhook send', format: 'text', args: ['webhook', 'send', '--to', 'RECEIVER/hook', '--event', 'end-of-call', '--agent', 'front-desk'], codes: [1] },
  { scenario: 'manifest error', command: 'report', format: 'markdown', args: ['report', '--agent', 'front-desk'], codes: [0, 1] },
  { scenario: 'manifest error', command: 'get', format: 'json', args: ['get', 'agents', '--format', 'json'], codes: [0] },
  { scenario: 'manifest error', command: 'get', format: 'text', args: ['get', 'campaigns'], codes: [0] },
  { scenario: 'manifest error', command: 'get', format: 'json', args: ['get', 'knowledge', '--format', 'json'], codes: [0] },
  { scenario: 'manifest error', command: 'completion', format: 'text', args: ['completion', 'zsh'], codes: [0] },
];

interface Leak {
  run: string;
  where: string;
  slot: Slot;
  form: string;
}

/**
 * A secret under MIN_SEARCHABLE_SECRET characters is masked where it stands as a value, never
 * searched for in text (docs/security.md §5): an error that quotes it whole — a crash message
 * holding every secret (on stderr, or with --format json its envelope on stdout), a service's 422
 * echoing them — shows it, as documented. Everywhere else (stdout, files, every successful run) the
 * short slot is scanned like the others.
 *
 * The one planted value allowed somewhere: the `${env:}` value sits in a field that is not secret
 * (the first message), so on the service it is plain data. Where voxform shows the service's data
 * without the manifests that put it there (`logs` run outside the project), what it prints shows the
 * value. The files `export` writes are not exempt: the operator's environment holds the value, so
 * export writes it back as the reference that put it there. Secret fields are never exempt.
 */
function isExempt(slot: Slot, where: string, outsideProject: boolean, scenario: Scenario): boolean {
  if (slot === 'phone import secret (short)') return scenario === 'crash' ? where === 'stderr' || where === 'stdout' : where === 'stderr' && scenario === 'service 422';
  return slot === '${env:} value' && outsideProject;
}

/** Every place a planted value (in any echoed form, any letter case) occurs in `text`. */
function findLeaks(text: string, run: string, where: string, scenario: Scenario, outsideProject = false): Leak[] {
  const leaks: Leak[] = [];
  // In any letter case, as the scrub searches: a URL parser lower-cases a host.
  const lowered = text.toLowerCase();
  for (const slot of SLOTS) {
    if (isExempt(slot, where, outsideProject, scenario)) continue;
    for (const form of echoedForms(PLANTED[slot])) if (lowered.includes(form.toLowerCase())) leaks.push({ run, where, slot, form });
  }
  return leaks;
}

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name));
}

/** Runs the CLI's entry point in this process: `cwd` and `env` swapped in, stdout and stderr captured. */
async function runInProcess(args: string[], cwd: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const captured = { stdout: '', stderr: '' };
  const savedEnv = { ...process.env };
  const savedCwd = process.cwd();
  for (const key of Object.keys(process.env)) if (key.startsWith('VOXFORM_') || key in MANIFEST_ENV) delete process.env[key];
  Object.assign(process.env, { NO_COLOR: '1' }, env);
  const capture = (key: 'stdout' | 'stderr') =>
    vi.spyOn(process[key], 'write').mockImplementation(((chunk: string | Uint8Array) => {
      captured[key] += typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8');
      return true;
    }) as typeof process.stdout.write);
  const spies = [capture('stdout'), capture('stderr')];
  process.chdir(cwd);
  try {
    const code = await main(args);
    return { code, ...captured };
  } finally {
    process.chdir(savedCwd);
    for (const spy of spies) spy.mockRestore();
    for (const key of Object.keys(process.env)) if (!(key in savedEnv)) delete process.env[key];
    Object.assign(process.env, savedEnv);
  }
}

/**
 * A stand-in for a service that echoes what it was sent in its 422s, as FastAPI services do (the
 * `input` of each issue, and messages quoting the value): `get` mode refuses reads quoting the
 * authorization header, `write` mode refuses writes quoting the body, JSON-escaped and URL-encoded.
 */
function startEchoProxy(target: string, mode: { current: 'get' | 'secrets' | 'write' }): Promise<Server> {
  const upstream = new URL(target);
  const refuse = (res: ServerResponse, echoed: string) => {
    const body = {
      detail: [
        { loc: ['body'], msg: `Value error, cannot accept ${echoed}`, type: 'value_error', input: echoed },
        { loc: ['query', 'q'], msg: `Invalid value ${encodeURIComponent(echoed)}`, type: 'value_error' },
      ],
    };
    res.writeHead(422, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  };
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const isRead = req.method === 'GET';
      if (mode.current === 'get' && isRead) return refuse(res, `key ${String(req.headers.authorization)} for ${req.url ?? ''}`);
      if (mode.current === 'secrets' && isRead) return refuse(res, `${Object.values(PLANTED).join(' ')} for ${req.url ?? ''}`);
      if (mode.current === 'write' && !isRead) return refuse(res, body);
      const forward = request({ host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      });
      forward.on('error', () => res.destroy());
      forward.end(Buffer.concat(chunks));
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}

let project: ExampleProject;
/** An empty folder beside the project, for runs without a manifest. */
let outside: string;
/** The manifest with the planted `${env:GREETING}`, before the manifest-error runs break it. */
let validManifest: string;
let echo: Server;
/** GitHub's API as `ci run` reaches it: its comments are scanned too. */
let github: FakeCodeHost;
/** A webhook receiver that answers every request as a valid prefetch answer (RECEIVER in the rows). */
let receiver: Server;
/** An ended call with the planted headers in its agent_config snapshot (CALL_ID in the rows). */
let loggedCallId = '';
const echoMode: { current: 'get' | 'secrets' | 'write' } = { current: 'get' };
const leaks: Leak[] = [];
const scanned = new Set<string>();
/** The bodies `drift --notify` posted to the receiver, scanned with the run that posted them. */
const notifications: string[] = [];
let notificationsPosted = 0;

beforeAll(async () => {
  const seed = defaultSeed();
  seed.keys = [...(seed.keys ?? []).filter((key) => key.type !== 'private'), { type: 'private', key: PLANTED['api key'], name: 'planted' }];
  project = await startExampleProject({ seed });
  const manifestFile = path.join(project.dir, 'voxform.yaml');
  const manifest = await readFile(manifestFile, 'utf8');
  validManifest = manifest
    .replace(/first_message: Thanks for calling[^\n]*/, 'first_message: "${env:GREETING}"')
    // A second environment, promoted from staging: for `promote` and `diff`.
    .replace('environments:\n', 'environments:\n  production: { promote_from: staging, gates: { tests: pass, soak: 1h } }\n');
  await writeFile(manifestFile, validManifest);
  await mkdir(path.join(project.dir, 'tests'), { recursive: true });
  await writeFile(path.join(project.dir, 'tests', 'scan.test.yaml'), 'agent: front-desk\ntests:\n  - name: greets\n    turns:\n      - expect: [{ contains: never in the greeting }]\n');
  echo = await startEchoProxy(project.emulator.url, echoMode);
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      if (req.url === '/drift') {
        notifications.push(Buffer.concat(chunks).toString('utf8'));
        notificationsPosted++;
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"metadata":{}}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  outside = await mkdtemp(path.join(tmpdir(), 'voxform-scan-outside-'));
  github = await startFakeCodeHost();
  github.tokens.set(PLANTED['CI token'], undefined);
});

afterAll(async () => {
  await new Promise<void>((resolve) => echo.close(() => resolve()));
  echo.closeAllConnections();
  receiver.closeAllConnections();
  await new Promise<void>((resolve) => receiver.close(() => resolve()));
  await project.close();
  await github.close();
  await rm(outside, { recursive: true, force: true });
  const commands = new Set(RUNS.map((run) => run.command));
  // The figure of the scan, for the record.
  console.info(`secret scan: ${SLOTS.length} slots × ${commands.size} commands × ${scanned.size} command formats (${RUNS.length} runs in 4 situations; ${SPAWNED} as real processes), leaks found: ${leaks.length}`);
});

/** Runs one row and adds what leaked to `leaks`. */
async function scan(run: ScanRun): Promise<{ code: number; stdout: string; stderr: string }> {
  run = { ...run, args: run.args.map((arg) => arg.replace('RECEIVER', `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`).replace('CALL_ID', loggedCallId)) };
  const label = `${run.scenario}: voxform ${run.args.join(' ')}`;
  const baseUrl = run.service === undefined || run.service === 'emulator' ? project.url : `http://127.0.0.1:${(echo.address() as AddressInfo).port}`;
  if (run.service === 'echo-get') echoMode.current = 'get';
  if (run.service === 'echo-write') echoMode.current = 'write';
  if (run.service === 'echo-secrets') echoMode.current = 'secrets';
  crash.enabled = run.scenario === 'crash';
  try {
    const ciEnv: Record<string, string> = run.ci
      ? { GITHUB_API_URL: github.url, GITHUB_REPOSITORY: 'acme/agents', GITHUB_REF: 'refs/pull/9/merge', GITHUB_SERVER_URL: 'https://github.example', GITHUB_RUN_ID: '1', GITHUB_STEP_SUMMARY: path.join(project.dir, 'ci-summary.md') }
      : {};
    const env = { ...MANIFEST_ENV, ...ciEnv, VOXFORM_API_KEY: PLANTED['api key'], VOXFORM_BASE_URL: baseUrl, ...(run.debug ? { VOXFORM_DEBUG: '1' } : {}) };
    const cwd = run.outside ? outside : project.dir;
    const result = run.stdin === undefined ? await runInProcess(run.args, cwd, env) : await runCli(run.args, { cwd, env, input: run.stdin });
    if (run.stdin !== undefined) SPAWNED++;
    leaks.push(...findLeaks(result.stdout, label, 'stdout', run.scenario, run.outside), ...findLeaks(result.stderr, label, 'stderr', run.scenario, run.outside));
    for (const comment of github.comments) leaks.push(...findLeaks(comment.body, label, `pull-request comment ${comment.id}`, run.scenario));
    leaks.push(...findLeaks(notifications.splice(0).join('\n'), label, 'notification', run.scenario));
    for (const dir of [project.dir, outside]) {
      for (const file of await filesUnder(dir)) leaks.push(...findLeaks(await readFile(file, 'utf8'), label, path.relative(project.dir, file), run.scenario));
    }
    scanned.add(`${run.command} ${run.format}`);
    return result;
  } finally {
    crash.enabled = false;
  }
}

let SPAWNED = 0;

describe('the secret scan', () => {
  it('every command in every format, in success, manifest error, service 422 and crash: no planted value anywhere', async () => {
    for (const run of RUNS) {
      if (run.scenario === 'success' && run.command === 'logs' && run.args.includes('front-desk')) {
        // A call on record whose agent_config snapshot holds the planted headers.
        await callService(project, 'POST', '/register_call', { agent_id: FRONT_DESK, metadata: { note: 'scan' } });
      }
      if (run.args.includes('CALL_ID') && loggedCallId === '') {
        const call = (await callService(project, 'POST', '/register_call', { agent_id: FRONT_DESK, metadata: { note: 'webhook' } })) as { call_id: string };
        await project.emulator.control.endCall(call.call_id, 'user-ended');
        loggedCallId = call.call_id;
      }
      if (run.scenario === 'success' && run.command === 'drift' && run.format === 'text') {
        // A dashboard edit: the first message and the webhook's secret header changed on the service.
        const live = (await callService(project, 'GET', `/agents/${encodeURIComponent(FRONT_DESK)}`)) as { name: string; config: { session_data_webhook: Record<string, unknown> } };
        const webhook = { ...live.config.session_data_webhook, headers: { 'x-hook-token': 'dashboard-token-9d8c7b' } };
        await callService(project, 'PUT', `/agents/${encodeURIComponent(FRONT_DESK)}`, { name: live.name, config: { first_message: 'Edited in the dashboard', session_data_webhook: webhook } });
      }
      if (run.scenario === 'manifest error' && run.command === 'validate' && run.format === 'text') {
        // Secrets where the schema refuses them (a diagnostic must not quote them), and a broken reference.
        const manifestFile = path.join(project.dir, 'voxform.yaml');
        const text = await readFile(manifestFile, 'utf8');
        await writeFile(manifestFile, text.replace('response_delay: 300', 'response_delay: ${env:GREETING}').replace('temperature: 0.4', 'temperature: "${env:OPENAI_API_KEY}"'));
      }
      const result = await scan(run);
      expect(run.codes, `${run.scenario}: voxform ${run.args.join(' ')} exited ${result.code}\n${result.stderr}`).toContain(result.code);
      if (run.scenario === 'crash') expect(`${result.stdout}${result.stderr}`).toContain('unexpected problem');
      if (run.scenario === 'service 422') expect(`${result.stdout}${result.stderr}`).toContain('422');
      if (!run.debug) expect(result.stderr).not.toMatch(/\n\s+at /);
    }
    expect(leaks).toEqual([]);
    // The runs of `ci run` did comment: the scan of the comments proves something.
    expect(github.comments.map((comment) => comment.body.split('\n', 1)[0])).toEqual(['<!-- voxform:plan -->', '<!-- voxform:test -->']);
    // The two `drift --notify` runs that succeed each posted one body, and it was scanned.
    expect(notificationsPosted).toBe(2);
    expect(scanned.size).toBe(new Set(RUNS.map((run) => `${run.command} ${run.format}`)).size);
  }, 180_000);

  it('the real binary: a 40 KB ${env:} value of regular-expression syntax neither crashes nor leaks (validate, plan)', async () => {
    const big = `(${'a+b*c?[d]{e}|f\\g'.repeat(2600)})-planted-big`;
    const echoForms = [big, big.slice(1000, 1100)];
    await writeFile(path.join(project.dir, 'voxform.yaml'), validManifest);
    for (const args of [['validate', '--format', 'json'], ['plan']]) {
      const result = await runCli(args, { cwd: project.dir, env: { ...MANIFEST_ENV, HOOK_TOKEN: big, GREETING: 'fine', VOXFORM_API_KEY: PLANTED['api key'], VOXFORM_BASE_URL: project.url } });
      SPAWNED++;
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).not.toMatch(/\n\s+at /);
      for (const form of echoForms) expect(`${result.stdout}${result.stderr}`).not.toContain(form);
      expect([...findLeaks(result.stdout, args.join(' '), 'stdout', 'success'), ...findLeaks(result.stderr, args.join(' '), 'stderr', 'success')]).toEqual([]);
    }
  });

  it('the real binary: an error thrown outside the awaited chain is reported redacted, with exit 1, even while the manifests still load', async () => {
    const script = path.join(project.dir, 'stray.mjs');
    await writeFile(path.join(project.dir, 'voxform.yaml'), validManifest);
    await writeFile(
      script,
      [
        `import { createServer } from 'node:http';`,
        `import { main } from ${JSON.stringify(path.join(repoRoot, 'dist/cli/main.js'))};`,
        // A service that never answers: plan's reads, once the manifests are loaded, stay out.
        `const service = createServer(() => undefined);`,
        `await new Promise((resolve) => service.listen(0, '127.0.0.1', resolve));`,
        `process.env.VOXFORM_BASE_URL = 'http://127.0.0.1:' + service.address().port;`,
        // The moment voxform reads the manifest's \${env:HOOK_TOKEN} (the loader is still resolving
        // agents then), a callback is set to throw with the value and the
        // key in its message: whatever holds a secret, voxform must already hide it.
        `let armed = true;`,
        `process.env = new Proxy(process.env, { get(target, name) {`,
        `  const value = Reflect.get(target, name);`,
        `  if (name === 'HOOK_TOKEN' && armed) { armed = false; setImmediate(() => { throw new Error('stray callback holding ' + value + ' and ' + target.VOXFORM_API_KEY); }); }`,
        `  return value;`,
        `} });`,
        `process.exitCode = await main(['plan', '--format', 'json']);`,
        `service.close();`,
      ].join('\n'),
    );
    const result = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
      const env = { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...MANIFEST_ENV, VOXFORM_API_KEY: PLANTED['api key'], VOXFORM_DEBUG: '1' };
      const child = spawn(process.execPath, [script], { cwd: project.dir, env, stdio: 'pipe' });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => resolve({ code, stdout, stderr }));
    });
    SPAWNED++;
    await rm(script);
    expect(result.code).toBe(1);
    // --format json: the report is the error envelope on stdout.
    expect(result.stdout).toContain('unexpected problem (this is a bug; please report it): stray callback holding (sensitive) and (sensitive)');
    expect([...findLeaks(result.stdout, 'stray', 'stdout', 'crash'), ...findLeaks(result.stderr, 'stray', 'stderr', 'crash')]).toEqual([]);
  });
});
