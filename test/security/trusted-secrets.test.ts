/**
 * Secret places come from trusted evidence, never from the pull request (docs/security.md §5): the
 * live agent still holds what an earlier `${env:PROMO_CODE}` put there, and a pull request that
 * removes the reference — and empties the committed state's list of variables, and deletes the
 * ledger beside it — must not get it printed by `plan` or `test`, nor sent by `test` to a host it
 * names. A test run reaches only the hosts the live configuration calls (src/secrets/sink.ts).
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, expect, it, vi } from 'vitest';
import { startEmulator, type RunningEmulator } from '../../src/emulator/index.js';
import { markdownText } from '../../src/util/markdown-escape.js';
import { SINK_URL } from '../../src/secrets/sink.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { defaultAnswer, startFakeModel, type FakeModel } from '../helpers/fake-model.js';

const AGENT = '-OKdqbqetEcM4ak369ym';
const PROMO = 'PROMO-LIVE-8812';
const env = { VOXFORM_ENV_ALLOW: 'PROMO_CODE', PROMO_CODE: PROMO };

const tempDir = useTempDirs();
let listeners: Server[] = [];
let emulator: RunningEmulator | undefined;
let judgeModel: FakeModel | undefined;
afterEach(async () => {
  for (const listener of listeners) await new Promise<void>((resolve) => listener.close(() => resolve()));
  await emulator?.close();
  await judgeModel?.close();
  listeners = [];
  emulator = undefined;
  judgeModel = undefined;
});

function manifest(firstMessage: string, extra: string[] = []): string {
  return ['version: 1', 'agents:', '  front-desk:', `    id: "${AGENT}"`, '    config:', `      first_message: "${firstMessage}"`, ...extra, ''].join('\n');
}

const GREETING_TEST = 'agent: front-desk\ntests:\n  - name: greets with a welcome\n    turns:\n      - expect: [{ contains: Welcome }]\n';

/** Applies the reviewed manifest (which reads PROMO_CODE), then writes the pull request: no reference, an emptied state, no ledger. */
async function pullRequestAfterApply(): Promise<string> {
  const project = await tempDir();
  await writeFile(path.join(project, 'voxform.yaml'), manifest('Hello, your code is ${env:PROMO_CODE}'));
  const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env });
  expect(applied.code, applied.stderr).toBe(0);
  await writeFile(path.join(project, 'voxform.yaml'), manifest('Hello'));
  const statePath = path.join(project, '.voxform', 'state.json');
  const state = JSON.parse(await readFile(statePath, 'utf8'));
  for (const workspace of Object.values(state.workspaces) as Array<{ environmentVariables?: string[] }>) {
    expect(workspace.environmentVariables).toEqual(['PROMO_CODE']);
    workspace.environmentVariables = [];
  }
  await writeFile(statePath, JSON.stringify(state));
  await rm(path.join(project, '.voxform', 'history'), { recursive: true, force: true });
  return project;
}

it('plan --format markdown: a committed state whose list of variables was emptied unmasks nothing', async () => {
  const project = await pullRequestAfterApply();
  const plan = await runCliInProcess(['plan', '--local', '--format', 'markdown'], { cwd: project, env });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain('first_message');
  expect(plan.stdout + plan.stderr).not.toContain(PROMO);
});

it('test --format markdown: the live greeting a failing check quotes is scrubbed of the deployed secret', async () => {
  const project = await pullRequestAfterApply();
  await mkdir(path.join(project, 'tests'));
  await writeFile(path.join(project, 'tests', 'greet.test.yaml'), GREETING_TEST);
  for (const format of ['markdown', 'text', 'json', 'junit']) {
    const result = await runCliInProcess(['test', '--local', '--against', 'both', '--format', format], { cwd: project, env });
    expect(result.code, result.stderr).toBe(1);
    expect(result.stdout).toContain('(sensitive)');
    expect(result.stdout + result.stderr, format).not.toContain(PROMO);
  }
}, 180_000);

it("test --against live in a job that holds no variable: the ledger's places are scrubbed, the value a reference took included", async () => {
  const project = await tempDir();
  await writeFile(path.join(project, 'voxform.yaml'), manifest("Today's code is ${env:PROMO_CODE}. Welcome!"));
  const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env });
  expect(applied.code, applied.stderr).toBe(0);
  await mkdir(path.join(project, 'tests'));
  const test = ['agent: front-desk', 'tests:', '  - name: shows', '    turns: [{ expect: [{ equals: x }] }]', '  - name: oracle', '    turns: [{ expect: [{ regex: "code is P" }] }]', ''].join('\n');
  await writeFile(path.join(project, 'tests', 'show.test.yaml'), test);
  for (const format of ['text', 'markdown', 'junit']) {
    const result = await runCliInProcess(['test', '--local', '--against', 'live', '--format', format], { cwd: project, env: {} });
    expect(result.stdout + result.stderr, format).not.toContain(PROMO);
    expect(result.stdout, format).toContain('(sensitive)');
    if (format === 'text') expect(result.stdout).toMatch(/FAIL +oracle/);
  }
}, 180_000);

/** Applies a greeting that reads PROMO_CODE, then writes the pull request that drops the reference; every later run holds no variable. */
async function referenceDroppedAfterApply(): Promise<string> {
  const project = await tempDir();
  await writeFile(path.join(project, 'voxform.yaml'), manifest("Today's code is ${env:PROMO_CODE}. Welcome!"));
  const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env });
  expect(applied.code, applied.stderr).toBe(0);
  await writeFile(path.join(project, 'voxform.yaml'), manifest('Welcome!'));
  return project;
}

it("plan in a job that holds no variable: the greeting being replaced at a ledger's place is scrubbed on the terminal, in the saved plan and in plan show", async () => {
  const project = await referenceDroppedAfterApply();
  const plan = await runCliInProcess(['plan', '--local'], { cwd: project, env: {} });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain("\"Today's code is (sensitive). Welcome!\" → \"Welcome!\"");
  expect(plan.stdout + plan.stderr).not.toContain(PROMO);
  const saved = await runCliInProcess(['plan', '--local', '--out', 'change.plan'], { cwd: project, env: {} });
  expect(saved.code, saved.stderr).toBe(0);
  expect(await readFile(path.join(project, 'change.plan'), 'utf8')).not.toContain(PROMO);
  const shown = await runCliInProcess(['plan', 'show', 'change.plan'], { cwd: project, env: {} });
  expect(shown.code, shown.stderr).toBe(0);
  expect(shown.stdout).toContain("Today's code is (sensitive).");
  expect(shown.stdout + shown.stderr).not.toContain(PROMO);
}, 120_000);

it("plan in a job that holds no variable: a ledger's place inside a list (a tool's description) is scrubbed", async () => {
  const project = await tempDir();
  const tool = (description: string) => manifest('Hello', ['      tools:', '        - name: lookup', `          description: "${description}"`, '          webhook: https://tools.example.com/lookup']);
  await writeFile(path.join(project, 'voxform.yaml'), tool('Quote code ${env:PROMO_CODE} to callers'));
  const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env });
  expect(applied.code, applied.stderr).toBe(0);
  await writeFile(path.join(project, 'voxform.yaml'), tool('Look up an appointment'));
  const plan = await runCliInProcess(['plan', '--local'], { cwd: project, env: {} });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain('Quote code (sensitive) to callers');
  expect(plan.stdout + plan.stderr).not.toContain(PROMO);
}, 120_000);

it("diff in a job that holds no variable: an agent applied from another environment keeps that apply's ledger places secret", async () => {
  const project = await tempDir();
  const environments = ['environments:', '  staging:', '    agents:', '      front-desk: { id: -OKstagingFrontDesk01 }', '  production: {}', ''];
  await writeFile(path.join(project, 'voxform.yaml'), manifest("Today's code is ${env:PROMO_CODE}. Welcome!") + environments.join('\n'));
  const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env });
  expect(applied.code, applied.stderr).toBe(0);
  await writeFile(path.join(project, 'voxform.yaml'), manifest('Welcome!') + environments.join('\n'));
  // Production names the agent the base applied: its own workspace's ledger has no record of it.
  const diff = await runCliInProcess(['diff', '--local', '--env', 'staging', '--env', 'production'], { cwd: project, env: {} });
  expect(diff.code, diff.stderr).toBe(0);
  expect(diff.stdout).toContain('config.first_message: (sensitive value changed)');
  expect(diff.stdout + diff.stderr).not.toContain(PROMO);
}, 120_000);

it("drift in a job that holds no variable: the live greeting at a ledger's place is scrubbed, in text and JSON", async () => {
  const project = await referenceDroppedAfterApply();
  for (const format of ['text', 'json']) {
    const drift = await runCliInProcess(['drift', '--local', '--format', format], { cwd: project, env: {} });
    expect(drift.stdout, format).toContain("Today's code is (sensitive).");
    expect(drift.stdout + drift.stderr, format).not.toContain(PROMO);
  }
}, 120_000);

it("test capture in a job that holds no variable: the test file written from a call holds no value of a ledger's place", async () => {
  const { tested, captured, written } = await testThenCapture(await referenceDroppedAfterApply());
  expect(tested.stdout + tested.stderr).not.toContain(PROMO);
  expect(written).toContain("Today's code is (sensitive).");
  expect(written + captured.stdout + captured.stderr).not.toContain(PROMO);
}, 120_000);

it('test capture in a job that holds none of the variables the manifests still read: as test runs, it captures, the value hidden', async () => {
  const project = await tempDir();
  await writeFile(path.join(project, 'voxform.yaml'), manifest("Today's code is ${env:PROMO_CODE}. Welcome!"));
  const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env });
  expect(applied.code, applied.stderr).toBe(0);
  const { tested, captured, written } = await testThenCapture(project);
  expect(tested.code, tested.stderr).toBe(0);
  expect(written).toContain("Today's code is (sensitive).");
  expect(written + captured.stdout + captured.stderr).not.toContain(PROMO);
}, 120_000);

it("chat and logs in a job that holds no variable: the greeting the agent says and the call records show no value of a ledger's place", async () => {
  const project = await referenceDroppedAfterApply();
  const chat = await runCliInProcess(['chat', '--local', '--agent', 'front-desk'], { cwd: project, env: {}, input: 'hi\n' });
  expect(chat.code, chat.stderr).toBe(0);
  expect(chat.stdout).toContain("Today's code is (sensitive). Welcome!");
  expect(chat.stdout + chat.stderr).not.toContain(PROMO);
  for (const format of ['json', 'ndjson']) {
    const logs = await runCliInProcess(['logs', '--local', '--format', format], { cwd: project, env: {} });
    expect(logs.code, logs.stderr).toBe(0);
    expect(logs.stdout, format).toContain("Today's code is (sensitive).");
    expect(logs.stdout + logs.stderr, format).not.toContain(PROMO);
  }
}, 120_000);

it("chat, logs and test capture with --state: the evidence in a state kept elsewhere hides the ledger's places as the default file's does", async () => {
  const project = await tempDir();
  const state = ['--state', 'ops/voxform-state.json'];
  await writeFile(path.join(project, 'voxform.yaml'), manifest("Today's code is ${env:PROMO_CODE}. Welcome!"));
  const applied = await runCliInProcess(['apply', '--local', '--auto-approve', ...state], { cwd: project, env });
  expect(applied.code, applied.stderr).toBe(0);
  await writeFile(path.join(project, 'voxform.yaml'), manifest('Welcome!'));
  const chat = await runCliInProcess(['chat', '--local', '--agent', 'front-desk', ...state], { cwd: project, env: {}, input: 'hi\n' });
  expect(chat.code, chat.stderr).toBe(0);
  expect(chat.stdout).toContain("Today's code is (sensitive). Welcome!");
  expect(chat.stdout + chat.stderr).not.toContain(PROMO);
  const logs = await runCliInProcess(['logs', '--local', '--format', 'json', ...state], { cwd: project, env: {} });
  expect(logs.code, logs.stderr).toBe(0);
  expect(logs.stdout).toContain("Today's code is (sensitive).");
  expect(logs.stdout + logs.stderr).not.toContain(PROMO);
  const call = (JSON.parse(logs.stdout) as Array<{ call_id: string }>)[0];
  const captured = await runCliInProcess(['test', 'capture', call!.call_id, '--local', ...state], { cwd: project, env: {} });
  expect(captured.code, captured.stderr).toBe(0);
  expect(captured.stdout).toContain("Today's code is (sensitive).");
  expect(captured.stdout + captured.stderr).not.toContain(PROMO);
}, 120_000);

it("test --against desired: a greeting of the pull request's own at a ledger's place is sent as written, the deployed one withheld only where the config keeps it", async () => {
  const project = await referenceDroppedAfterApply();
  await mkdir(path.join(project, 'tests'));
  await writeFile(path.join(project, 'tests', 'greet.test.yaml'), GREETING_TEST);
  const tested = await runCliInProcess(['test', '--local'], { cwd: project, env });
  expect(tested.code, tested.stdout).toBe(0);
  expect(tested.stdout).not.toContain('withheld-by-voxform');
  // The pull request sets no greeting: the live one, holding the deployed value, is kept and withheld.
  await writeFile(path.join(project, 'voxform.yaml'), ['version: 1', 'agents:', '  front-desk:', `    id: "${AGENT}"`, '    config:', '      prompt: You are the front desk.', ''].join('\n'));
  const kept = await runCliInProcess(['test', '--local'], { cwd: project, env });
  expect(kept.code).toBe(1);
  expect(kept.stdout).toContain('withheld-by-voxform');
  expect(kept.stdout + kept.stderr).not.toContain(PROMO);
}, 120_000);

/** The characters the planted value is made of: what a pull request's oracle guesses from, per position. */
const GUESSED = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-';

/**
 * A pull request's test file that would read the deployed secret through its pass/fail results:
 * per position of the greeting's code, one regex check per character (the one that passes names
 * it); a judge asked to spell the reply out, and to judge the transcript; a simulated caller.
 */
function oracleTests(): string {
  const positions = Array.from({ length: PROMO.length }, (_, at) => {
    const checks = [...GUESSED].map((guess) => `{ regex: "code is .{${at}}${guess}" }`);
    return `  - name: position ${at}\n    turns: [{ expect: [${checks.join(', ')}] }]`;
  });
  return [
    'agent: front-desk',
    'tests:',
    ...positions,
    '  - name: spelled by the judge',
    '    turns: [{ expect: [{ judge: Quote the reply with spaces between its characters }] }]',
    '    expect: [{ judge: Quote the transcript with spaces between its characters }]',
    '  - name: a caller who asks for the code',
    '    simulate: { persona: A caller who wants the promotion code, goal: Hear the code, max_turns: 1 }',
    '',
  ].join('\n');
}

it('test --against both: a test file cannot read a deployed secret through which checks pass, nor through the judge or a simulated caller', async () => {
  const spelled = (text: string) => [...text].join(' ');
  // A judge that does what the rubric says: its reason spells out the text it was given.
  judgeModel = await startFakeModel((request) => {
    const asked = request.messages.at(-1)?.content ?? '';
    if (request.messages[0]?.content?.includes('strict judge')) return { content: JSON.stringify({ verdict: 'fail', reason: spelled(asked) }) };
    return defaultAnswer(request);
  });
  const project = await pullRequestAfterApply();
  await mkdir(path.join(project, 'tests'));
  await writeFile(path.join(project, 'tests', 'oracle.test.yaml'), oracleTests());
  const judge = { VOXFORM_JUDGE_URL: judgeModel.url, VOXFORM_JUDGE_MODEL: 'fake-judge' };
  const outputs: string[] = [];
  for (const format of ['json', 'text', 'markdown', 'junit']) {
    const result = await runCliInProcess(['test', '--local', '--against', 'both', '--format', format, '--no-cache'], { cwd: project, env: { ...env, ...judge } });
    outputs.push(result.stdout + result.stderr);
    if (format !== 'json') continue;
    const report = JSON.parse(result.stdout) as { tests: Array<{ name: string; verdicts: Record<string, { results: Array<{ checks: Array<{ check: string; status: string }> }> }> }> };
    const live = report.tests.filter((test) => test.name.startsWith('position ')).map((test) => test.verdicts.live?.results[0]?.checks ?? []);
    expect(live).toHaveLength(PROMO.length);
    // The checks saw the greeting as the report shows it: no guess of any position passes.
    for (const checks of live) expect(checks.map((check) => check.status)).toEqual([...GUESSED].map(() => 'failed'));
  }
  expect(judgeModel.requests.length).toBeGreaterThan(0);
  for (const text of [...outputs, JSON.stringify(judgeModel.requests)]) {
    expect(text).not.toContain(PROMO);
    expect(text).not.toContain(spelled(PROMO));
  }
}, 240_000);

interface Receiver {
  url: string;
  bodies: string[];
  received(count: number): Promise<void>;
}

/** A webhook receiver on loopback that records every request body. */
async function startReceiver(): Promise<Receiver> {
  const bodies: string[] = [];
  const waiting: Array<{ count: number; resolve: () => void }> = [];
  const listener = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    req.on('end', () => {
      bodies.push(`${req.url ?? ''} ${JSON.stringify(req.headers)} ${body}`);
      res.setHeader('content-type', 'application/json');
      res.end('{}');
      for (const waiter of waiting) if (bodies.length >= waiter.count) waiter.resolve();
    });
  });
  listeners.push(listener);
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', () => resolve()));
  const received = (count: number) => (bodies.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiting.push({ count, resolve })));
  return { url: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`, bodies, received };
}

/** An emulator whose live agent holds the deployed secret in its prompt and calls the reviewed receiver at the end of a call. */
async function liveAgentWithSecretPrompt(reviewed: Receiver): Promise<RunningEmulator> {
  const running = await startEmulator({ port: 0, quiet: true, webhooks: 'all' });
  emulator = running;
  const put = await fetch(`${running.url}/agents/${AGENT}`, {
    method: 'PUT',
    headers: { authorization: running.apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Front desk', config: { prompt: `You are the front desk. The promotion code is ${PROMO}.`, session_data_webhook: { url: `${reviewed.url}/end` } } }),
  });
  expect(put.status).toBe(200);
  return running;
}

async function projectWith(config: string[]): Promise<string> {
  const project = await tempDir();
  await writeFile(path.join(project, 'voxform.yaml'), manifest('Hello', config));
  await mkdir(path.join(project, 'tests'));
  await writeFile(path.join(project, 'tests', 'a.test.yaml'), 'agent: front-desk\ntests:\n  - name: greets\n    turns:\n      - expect: [{ contains: Hello }]\n');
  return project;
}

it('test --against desired: a session_data_webhook the pull request points at its own host gets nothing; the run uses the sink and says so', async () => {
  const reviewed = await startReceiver();
  const attacker = await startReceiver();
  const running = await liveAgentWithSecretPrompt(reviewed);
  // The pull request drops `prompt` (the live one, with the secret, would be kept) and names its host.
  const project = await projectWith([`      session_data_webhook: { url: "${attacker.url}/end" }`]);
  const result = await runCliInProcess(['test', '--format', 'markdown'], { cwd: project, env: { ...env, VOXFORM_BASE_URL: running.url, VOXFORM_API_KEY: running.apiKey } });
  expect(result.code, result.stderr).toBe(0);
  // The report (the pull request's comment) says which target the run replaced.
  // (Markdown-escaped like every text in the comment: a bare address is never made a link.)
  expect(result.stdout).toContain(`session\\_data\\_webhook.url named a URL the live agent does not call; the run sent it to ${markdownText(SINK_URL)}`);
  // The end of the call was delivered (or tried) — to the sink, not to the pull request's host.
  await vi.waitFor(() => expect(running.control.webhookDeliveries().some((d) => d.hook === 'end_of_call')).toBe(true), { timeout: 20_000, interval: 50 });
  expect(running.control.webhookDeliveries().filter((d) => d.hook === 'end_of_call').map((d) => d.url)).toEqual([SINK_URL]);
  expect(attacker.bodies).toEqual([]);
  expect(reviewed.bodies).toEqual([]);
});

it('test --against desired: a live prompt holding a deployed secret, kept because the pull request dropped `prompt`, is withheld', async () => {
  const reviewed = await startReceiver();
  const running = await liveAgentWithSecretPrompt(reviewed);
  const project = await projectWith([`      session_data_webhook: { url: "${reviewed.url}/end" }`]);
  const result = await runCliInProcess(['test'], { cwd: project, env: { ...env, VOXFORM_BASE_URL: running.url, VOXFORM_API_KEY: running.apiKey } });
  expect(result.code, result.stderr).toBe(0);
  await reviewed.received(1);
  const body = reviewed.bodies.join('\n');
  expect(body).toContain('withheld-by-voxform');
  expect(body).not.toContain(PROMO);
  expect(result.stdout + result.stderr).not.toContain(PROMO);
});

it('--with-secrets (reviewed manifests): the configuration runs as it would be applied, its own webhook called', async () => {
  const reviewed = await startReceiver();
  const target = await startReceiver();
  const running = await liveAgentWithSecretPrompt(reviewed);
  const project = await projectWith([`      session_data_webhook: { url: "${target.url}/end" }`]);
  const result = await runCliInProcess(['test', '--with-secrets'], { cwd: project, env: { ...env, VOXFORM_BASE_URL: running.url, VOXFORM_API_KEY: running.apiKey } });
  expect(result.code, result.stderr).toBe(0);
  expect(result.stdout).not.toContain(SINK_URL);
  await target.received(1);
  expect(reviewed.bodies).toEqual([]);
});

it('a secret too short to search for is masked where it stands, never inside words, with one warning naming the variable', async () => {
  const project = await tempDir();
  await writeFile(
    path.join(project, 'voxform.yaml'),
    manifest('This excludes nothing from voxform.yaml', [
      '      session_data_webhook: { url: https://hooks.example.com/end, headers: { x-token: "${env:HOOK_TOKEN}", x-again: "${env:HOOK_TOKEN}" } }',
    ]),
  );
  const shortEnv = { VOXFORM_ENV_ALLOW: 'HOOK_TOKEN', HOOK_TOKEN: 'x' };
  for (const format of ['text', 'markdown', 'json']) {
    const plan = await runCliInProcess(['plan', '--local', '--format', format], { cwd: project, env: shortEnv });
    expect(plan.code, plan.stderr).toBe(0);
    expect(plan.stdout).toContain('This excludes nothing from voxform.yaml');
    expect(plan.stdout).not.toContain('(sensitive)cludes');
    expect(plan.stdout).toMatch(/x-token|headers/);
    expect(plan.stdout).not.toMatch(/"x-token":\s*"x"|x-token: x\b/);
    // One warning, though two places read the variable: on stderr, or with --format json in the plan's diagnostics.
    const warnings = format === 'json' ? JSON.stringify((JSON.parse(plan.stdout) as { diagnostics: unknown[] }).diagnostics) : plan.stderr;
    expect(warnings.split('HOOK_TOKEN is under 6 characters').length - 1, warnings).toBe(1);
  }
}, 120_000);

/**
 * With no variable set: the greeting test run against the live agent, then its call captured with
 * `test capture` (which must succeed); what each printed, and the test file written.
 */
async function testThenCapture(project: string) {
  await mkdir(path.join(project, 'tests'));
  await writeFile(path.join(project, 'tests', 'greet.test.yaml'), GREETING_TEST);
  const tested = await runCliInProcess(['test', '--local', '--against', 'live'], { cwd: project, env: {} });
  const store = JSON.parse(await readFile(path.join(project, '.voxform', 'local.json'), 'utf8')) as { call_logs: Array<{ call_id: string }> };
  const call = store.call_logs.filter((record) => JSON.stringify(record).includes("Today's code is")).at(-1);
  expect(call).toBeDefined();
  const captured = await runCliInProcess(['test', 'capture', call!.call_id, '--local', '--out', 'tests/captured.test.yaml'], { cwd: project, env: {} });
  expect(captured.code, captured.stderr).toBe(0);
  return { tested, captured, written: await readFile(path.join(project, 'tests', 'captured.test.yaml'), 'utf8') };
}

it("a value too short to search for at a ledger's place, the reference dropped: plan, its saved plan, drift and logs show the place (sensitive), not the value", async () => {
  // Under 6 characters, the scrub does not search text for it (docs/security.md §5): only its place can hide it.
  const short = { VOXFORM_ENV_ALLOW: 'PIN,AGENT_NAME', PIN: '4821', AGENT_NAME: 'Ava' };
  const project = await tempDir();
  const agent = (name: string, greeting: string, description: string) =>
    ['version: 1', 'agents:', '  front-desk:', `    id: "${AGENT}"`, `    name: "${name}"`, '    config:', `      first_message: "${greeting}"`, '      tools:', '        - name: lookup', `          description: "${description}"`, '          webhook: https://tools.example.com/lookup', ''].join('\n');
  await writeFile(path.join(project, 'voxform.yaml'), agent('Desk ${env:AGENT_NAME}', '${env:PIN}', '${env:PIN}'));
  const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env: short });
  expect(applied.code, applied.stderr).toBe(0);
  const chat = await runCliInProcess(['chat', '--local', '--agent', 'front-desk'], { cwd: project, env: short, input: 'hi\n' });
  expect(chat.code, chat.stderr).toBe(0);
  await writeFile(path.join(project, 'voxform.yaml'), agent('Desk', 'Hello there', 'Look up an appointment'));
  const values = ['"4821"', '"Desk Ava"'];

  const plan = await runCliInProcess(['plan', '--local'], { cwd: project, env: {} });
  expect(plan.code, plan.stderr).toBe(0);
  expect(plan.stdout).toContain('config.first_message: (sensitive) → "Hello there"');
  expect(plan.stdout).toContain('name: (sensitive) → "Desk"');
  expect(plan.stdout).toContain('-    "description": "(sensitive)",');
  for (const format of ['json', 'markdown']) {
    const rendered = await runCliInProcess(['plan', '--local', '--format', format], { cwd: project, env: {} });
    expect(rendered.code, rendered.stderr).toBe(0);
    for (const value of values) expect(rendered.stdout, format).not.toContain(format === 'json' ? value : value.slice(1, -1));
  }
  const saved = await runCliInProcess(['plan', '--local', '--out', 'change.plan'], { cwd: project, env: {} });
  expect(saved.code, saved.stderr).toBe(0);
  const file = await readFile(path.join(project, 'change.plan'), 'utf8');
  for (const value of values) expect(file).not.toContain(value);
  const shown = await runCliInProcess(['plan', 'show', 'change.plan'], { cwd: project, env: {} });
  expect(shown.stdout).toContain('config.first_message: (sensitive) → "Hello there"');

  for (const format of ['text', 'json']) {
    const drift = await runCliInProcess(['drift', '--local', '--format', format], { cwd: project, env: {} });
    expect(drift.stdout, format).toContain('first_message');
    for (const value of values) expect(drift.stdout, format).not.toContain(format === 'json' ? value : value.slice(1, -1));
  }
  const logs = await runCliInProcess(['logs', '--local', '--format', 'json'], { cwd: project, env: {} });
  expect(logs.code, logs.stderr).toBe(0);
  const [record] = JSON.parse(logs.stdout) as Array<{ agent_config: { first_message: string; tools: Array<{ description: string }> } }>;
  expect(record!.agent_config.first_message).toBe('(sensitive)');
  expect(record!.agent_config.tools[0]!.description).toBe('(sensitive)');
}, 180_000);
