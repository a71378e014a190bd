import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { DEFAULT_PUBLIC_KEY, defaultSeed, startEmulator } from '../../src/emulator/index.js';
import { makeTree, repoRoot, runCliInProcess } from '../helpers/cli.js';
import { makeContext } from '../helpers/context.js';
import { runCommandLine } from '../../src/cli/run-command.js';
import type { StopAtOnce } from '../../src/cli/context.js';

const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const BOOKING = '-OKdqbqetEcM4ak369yn';
/** The default seed's first_message of the front desk. */
const GREETING = 'Hello, Acme Dental. How can I help you?';
let emulator: Awaited<ReturnType<typeof startEmulator>>;
let env: Record<string, string>;

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 });
  env = { VOXFORM_API_KEY: emulator.apiKey, VOXFORM_BASE_URL: emulator.url };
});
afterAll(async () => {
  await emulator.close();
});
beforeEach(async () => {
  await emulator.control.reset();
});

describe('voxform chat (stdin is not a terminal: one message per line)', () => {
  it('a stop says the conversation is over and how to start another, not to run it again to finish its work', async () => {
    const { dir, cleanup } = await makeTree({ 'voxform.yaml': `version: 1\nagents:\n  front-desk:\n    id: "${FRONT_DESK}"\n` });
    const run = makeContext({ cwd: dir, env });
    let leaves: StopAtOnce | undefined;
    run.ctx.stopLeaves = (atOnce) => void (leaves = atOnce);
    (run.ctx.stdin as unknown as PassThrough).end();
    expect(await runCommandLine(['chat', '--agent', 'Front desk'], run.ctx)).toBe(0);
    await run.close();
    await cleanup();
    // What a signal during the chat stops the run with: "voxform stopped at your request; the conversation is over."
    expect(leaves).toEqual({ leftUndone: 'the conversation is over', hint: 'A chat has nothing to finish: run `voxform chat` again, with the same options, for a new conversation.' });
  });

  it('shows the greeting, streams each reply, continues one session, and ends it at the end of input', async () => {
    const result = await runCliInProcess(['chat', '--agent', FRONT_DESK], { env, input: 'Hello\n\nWhat time do you open?\n' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${GREETING}\n[Front desk] You said: Hello\n[Front desk] You said: What time do you open?\n`);
    expect(result.stderr).toBe('');
    const chats = emulator.control.state().sessions.filter((s) => s.kind === 'chat');
    expect(chats).toHaveLength(1);
    expect(chats[0]?.ended).toBe(true);
    const posts = emulator.control.requestLog().filter((e) => e.path === '/chat/completions');
    expect(posts).toHaveLength(4); // the greeting, two messages, then end_of_session
  });

  it('records each reply once, so test capture makes one turn per caller line after the greeting', async () => {
    const { dir, cleanup } = await makeTree({ 'voxform.yaml': `version: 1\nagents:\n  front-desk:\n    id: "${FRONT_DESK}"\n` });
    try {
      const chat = await runCliInProcess(['chat', '--agent', 'front-desk'], { cwd: dir, env, input: 'Hello\nBye\n' });
      expect(chat.code, chat.stderr).toBe(0);
      const logs = await runCliInProcess(['logs', '--format', 'json'], { cwd: dir, env });
      const record = (JSON.parse(logs.stdout) as Array<{ call_id: string; chat: string }>)[0];
      if (!record) throw new Error('the chat left no call record');
      expect(JSON.parse(record.chat)).toEqual([
        { role: 'assistant', content: GREETING },
        { role: 'user', content: 'Hello' },
        { role: 'assistant', content: '[Front desk] You said: Hello' },
        { role: 'user', content: 'Bye' },
        { role: 'assistant', content: '[Front desk] You said: Bye' },
      ]);
      const captured = await runCliInProcess(['test', 'capture', record.call_id], { cwd: dir, env });
      expect(captured.code, captured.stderr).toBe(0);
      const turns = (parse(captured.stdout) as { tests: Array<{ turns: Array<{ user?: string }> }> }).tests[0]?.turns ?? [];
      expect(turns.map((turn) => turn.user)).toEqual([undefined, 'Hello', 'Bye']);
    } finally {
      await cleanup();
    }
  });

  it('an unknown agent is one clear sentence, exit 1, before any message is sent', async () => {
    const result = await runCliInProcess(['chat', '--agent', '-OKnoSuchAgent000000'], { env, input: 'Hello\n' });
    expect(result.code).toBe(1);
    // --agent is read as logs and report read it: a manifest name, an id, or a name on the service.
    expect(result.stderr).toBe(
      'error[agent_unknown]: --agent "-OKnoSuchAgent000000" is neither the local name, id or name on the service of an agent of the manifests, nor an agent id on the service.\n  hint: Give an agent id, or name the manifests with -f to use their agent names.\n',
    );
    expect(emulator.control.requestLog().filter((e) => e.path === '/chat/completions')).toHaveLength(0);
  });

  it('a name the manifests give an id themselves, in manifests with an error, is theirs with its id unknown: never said to have no id, nor sent to an environment', async () => {
    // The layout of agents.example.yaml: the agent's own id, another one for staging; and a key no agent has.
    const manifest = `version: 1\nagents:\n  front-desk:\n    id: "${FRONT_DESK}"\n    colour: blue\nenvironments:\n  staging:\n    agents: { front-desk: { id: -OKstagingFrontDesk01 } }\n`;
    const { dir, cleanup } = await makeTree({ 'voxform.yaml': manifest });
    try {
      const result = await runCliInProcess(['chat', '--agent', 'front-desk'], { cwd: dir, env, input: 'Hello\n' });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        'warning: the manifests have 1 error (`voxform validate` lists them): their agent names and service are not used.\n' +
          'error[manifest_invalid]: --agent "front-desk" is an agent of the manifests, which have errors: its id is not known.\n' +
          "  hint: Fix the errors `voxform validate` lists (with the same -f and --env), or give the agent's id.\n",
      );
      expect(emulator.control.requestLog().filter((e) => e.path === '/chat/completions')).toHaveLength(0);
    } finally {
      await cleanup();
    }
  });

  it('a turn the service failed with a 5xx says to look for the call in the call log, not in a plan, before sending it again', async () => {
    emulator.control.setFaults([{ path: '/chat/completions', errorRate: 1 }], { seed: 1 });
    const result = await runCliInProcess(['chat', '--agent', FRONT_DESK], { env, input: 'Hello\n' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      'error[api_outcome_unknown]: POST /chat/completions failed: the service answered 503 Service Unavailable: the service may have acted on it.\n' +
        '  hint: Check before running it again, or it may be done twice: `voxform logs` lists the calls the service started.\n',
    );
  });

  it('empty input still ends the session cleanly, after the greeting', async () => {
    const result = await runCliInProcess(['chat', '--agent', FRONT_DESK], { env, input: '' });
    expect(result.code).toBe(0);
    expect(result.stdout).toBe(`${GREETING}\n`);
  });

  it('a missing key is one clear sentence and a hint, exit 1', async () => {
    const result = await runCliInProcess(['chat', '--agent', FRONT_DESK], { env: { VOXFORM_BASE_URL: emulator.url }, input: 'Hello\n' });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error[api_key_missing]: No API key: VOXFORM_API_KEY is not set.\n  hint: Set VOXFORM_API_KEY to your private key (from the service’s dashboard), or use --local for the embedded emulator.\n');
  });
});

describe('voxform chat with a service that answers control characters', () => {
  it('streams the reply with its lines kept and every other control character escaped, never raw; the agent\'s name stays on its label\'s line', async () => {
    const seed = defaultSeed();
    const agent = seed.agents?.find((a) => a.id === FRONT_DESK);
    if (!agent) throw new Error('the default seed has no front desk');
    agent.name = 'Front\u001b]0;pwned\u0007 desk\r\nOVER';
    const service = await startEmulator({ port: 0, seed });
    try {
      const result = await runCliInProcess(['chat', '--agent', FRONT_DESK], { env: { VOXFORM_API_KEY: service.apiKey, VOXFORM_BASE_URL: service.url }, input: 'Hello\u001b]0;pwned\u0007\u009b2J\tthere\nagain\n' });
      expect(result.code, result.stderr).toBe(0);
      // The reply's [name] label is one line, its controls shown as `?` as `get agents` shows them; the caller's words are escaped.
      expect(result.stdout).toBe(`${GREETING}\n[Front?]0;pwned? desk??OVER] You said: Hello\\u001b]0;pwned\\u0007\\u009b2J\tthere\n[Front?]0;pwned? desk??OVER] You said: again\n`);
    } finally {
      await service.close();
    }
  });
});

describe('voxform chat when the service\'s error holds control characters', () => {
  it('its words are shown escaped in the error line, never raw', async () => {
    const service = createServer((req, res) => {
      req.resume();
      res.writeHead(404, { 'content-type': 'application/json' }).end(JSON.stringify({ detail: 'no such agent\u001b]0;pwned\u0007\u009b2J' }));
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(service.address() as AddressInfo).port}`;
      const result = await runCliInProcess(['chat', '--agent', FRONT_DESK, '--base-url', url], { env: { VOXFORM_API_KEY: emulator.apiKey }, input: 'Hello\n' });
      expect(result.code).toBe(1);
      expect(result.stderr).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f-\u009f]/);
      expect(result.stderr).toMatch(/error\[api_not_found\]: GET \/call-logs failed: the service answered 404 no such agent\\u001b\]0;pwned\\u0007\\u009b2J\.\n/);
    } finally {
      await new Promise<void>((resolve) => service.close(() => resolve()));
    }
  });
});

describe('--local: one project database shared by every command of a folder', () => {
  it('a chat and an apply run at once keep each other’s writes', async () => {
    const manifest = [
      'version: 1',
      'agents:',
      '  front-desk:',
      `    id: "${FRONT_DESK}"`,
      '    name: Front desk',
      '    config:',
      '      prompt: Applied while a chat was open.',
      '',
    ].join('\n');
    const { dir, cleanup } = await makeTree({ 'voxform.yaml': manifest });
    const chat = spawn(process.execPath, [path.join(repoRoot, 'bin/voxform.cjs'), 'chat', '--local', '--agent', BOOKING], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', HOME: process.env.HOME ?? '/tmp' },
      stdio: 'pipe',
    });
    try {
      let stdout = '';
      let stderr = '';
      chat.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      chat.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      const exited = new Promise<number | null>((resolve) => chat.on('close', resolve));

      // The chat has loaded the project database and written its session…
      chat.stdin.write('Hello\n');
      await expect.poll(() => stdout, { timeout: 30_000 }).toContain('You said: Hello\n');
      // …then an apply changes an agent in another process…
      const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: dir });
      expect(apply.stderr).not.toMatch(/error/i);
      expect(apply.code).toBe(0);
      // …then the chat writes again: it must not put back the agent it loaded before the apply.
      chat.stdin.end('Goodbye\n');
      expect(await exited).toBe(0);
      expect(stderr).toBe('');
      expect(stdout).toBe('Hi, I can help you book an appointment.\n[Appointment booking] You said: Hello\n[Appointment booking] You said: Goodbye\n');

      const plan = await runCliInProcess(['plan', '--local', '--detailed-exitcode'], { cwd: dir });
      expect(plan.stdout).toContain('No changes');
      expect(plan.code).toBe(0);
      const logs = await runCliInProcess(['logs', '--local', '--agent', BOOKING, '--format', 'json', '--limit', '1'], { cwd: dir });
      expect(logs.code).toBe(0);
      const [record] = JSON.parse(logs.stdout) as Array<{ call_status: string; chat: string }>;
      expect(record?.call_status).toBe('chat_completion');
      // Each reply once: the end-of-session request adds nothing.
      expect(JSON.parse(record?.chat ?? '[]').map((m: { content: string }) => m.content)).toEqual([
        'Hi, I can help you book an appointment.',
        'Hello',
        '[Appointment booking] You said: Hello',
        'Goodbye',
        '[Appointment booking] You said: Goodbye',
      ]);
    } finally {
      chat.kill('SIGKILL');
      await cleanup();
    }
  });

  it('a project database that holds no usable private key is one clear sentence, exit 1', async () => {
    const { dir, cleanup } = await makeTree({});
    try {
      const dataFile = path.join(dir, '.voxform', 'local.json');
      await mkdir(path.dirname(dataFile));
      const first = await startEmulator({ dataFile });
      await first.close();
      const data = JSON.parse(await readFile(dataFile, 'utf8'));
      data.seed_private_key = DEFAULT_PUBLIC_KEY;
      await writeFile(dataFile, JSON.stringify(data));
      const result = await runCliInProcess(['chat', '--local', '--agent', FRONT_DESK], { cwd: dir, input: 'Hello\n' });
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(`error[emulator_data_invalid]: ${path.join('.voxform', 'local.json')} holds no private key the embedded emulator accepts.\n  hint: Delete it to start again from the default account.\n`);
    } finally {
      await cleanup();
    }
  });
});
