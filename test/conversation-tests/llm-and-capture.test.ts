import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { captureTestFile, scrubPersonalData } from '../../src/conversations/capture.js';
import { SecretRegistry } from '../../src/secrets/redact.js';
import { repoRoot, runCliInProcess } from '../helpers/cli.js';
import { callService, useExampleProjects, SECRETS } from '../helpers/project.js';
import { startFakeModel, type FakeModel } from '../helpers/fake-model.js';

const startProject = useExampleProjects();

let fake: FakeModel | undefined;
let toolServer: Server | undefined;
afterEach(async () => {
  await fake?.close();
  if (toolServer) await new Promise<void>((resolve) => toolServer?.close(() => resolve()));
  fake = undefined;
  toolServer = undefined;
});

/** A calendar webhook on loopback that records what the emulator's agent sent it. */
async function startToolServer(seen: Array<{ url: string; authorization: string | undefined }>): Promise<string> {
  toolServer = createServer((req, res) => {
    seen.push({ url: req.url ?? '', authorization: req.headers.authorization });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"slots":["09:00","11:30"]}');
  });
  await new Promise<void>((resolve) => toolServer?.listen(0, '127.0.0.1', () => resolve()));
  return `http://127.0.0.1:${(toolServer.address() as AddressInfo).port}/slots`;
}

const CREATES_FOLDERS = 'Name a test file with --out, such as tests/NAME.test.yaml, where it can be written; the folders its path lacks are created.';

describe('the emulator playing agents with a model (--llm), and simulated callers', () => {
  it('runs a simulated booking: the tool is called through its webhook, recorded, and checked', async () => {
    fake = await startFakeModel();
    const seen: Array<{ url: string; authorization: string | undefined }> = [];
    const slotsUrl = await startToolServer(seen);
    const project = await startProject({ llm: { url: fake.url, model: 'fake-agent' } });
    const manifest = path.join(project.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('https://api.example.com/calendar/slots', slotsUrl));
    await writeFile(
      path.join(project.dir, 'example/tests/simulated.test.yaml'),
      [
        'agent: booking',
        'tests:',
        '  - name: books a cleaning',
        '    simulate: { persona: I want a cleaning on 2026-03-03., goal: A slot is booked., max_turns: 4 }',
        '    expect:',
        '      - tool_called: find_slots',
        '        args: { date: { regex: "^2026-" } }',
        '      - tool_not_called: transfer_call',
        '      - judge: The agent says "Done" with the slots.',
        '      - call_status: chat_completion',
      ].join('\n'),
    );
    // --with-secrets: the manifests are the operator's (reviewed), so the tool gets its real header.
    const result = await project.cliInProcess(['test', 'example/tests/simulated.test.yaml', '--with-secrets'], { VOXFORM_JUDGE_URL: fake.url, VOXFORM_JUDGE_MODEL: 'fake-judge' });
    expect(result.stdout).toContain('  PASS  books a cleaning  [desired 1/1]\n');
    expect(result.code).toBe(0);
    // The emulator called the webhook as the service would: GET, the arguments and the session as query, the tool's header.
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toMatch(/^\/slots\?date=2026-03-03&session_id=ses_/);
    expect(seen[0]?.authorization).toBe(SECRETS.CALENDAR_TOKEN);
    // The record carries the call, as function_calls.
    const logs = (await callService(project, 'GET', '/call-logs?agent_id=-OKdqbqetEcM4ak369yn&limit=1')) as { histories: Array<{ function_calls: unknown[] }> };
    expect(logs.histories[0]?.function_calls).toEqual([{ name: 'find_slots', params: { date: '2026-03-03' } }]);
    // The agent model saw the desired prompt and the tool as a function; the judge and caller used their own model name.
    const agentRequests = fake.requests.filter((r) => r.model === 'fake-agent');
    expect(agentRequests[0]?.messages[0]?.content).toMatch(/^# /);
    expect(agentRequests[0]?.tools?.map((t) => t.function.name)).toEqual(['find_slots']);
    expect(fake.requests.filter((r) => r.model === 'fake-judge').length).toBeGreaterThan(0);
  });

  it('shows a prompt edit that changes the model’s replies as newly failing', async () => {
    fake = await startFakeModel();
    const project = await startProject({ llm: { url: fake.url } });
    await project.cliInProcess(['apply', '--auto-approve']);
    const promptFile = path.join(project.dir, 'example/prompts/front-desk.md');
    const prompt = await readFile(promptFile, 'utf8');
    await writeFile(path.join(project.dir, 'example/tests/prompt.test.yaml'), `agent: front-desk\ntests:\n  - name: keeps its persona\n    turns: [{ user: hello, expect: [{ contains: "${prompt.split('\n')[0]?.replace(/"/g, '\\"')}" }] }]\n`);
    await writeFile(promptFile, `You are a pirate.\n${prompt}`);
    const result = await project.cliInProcess(['test', 'example/tests/prompt.test.yaml', '--against', 'both']);
    expect(result.stdout).toContain('Behaviour changes (live → desired):\n  newly failing  example/tests/prompt.test.yaml › keeps its persona\n');
    expect(result.code).toBe(1);
  });
});

describe('--local with VOXFORM_EMULATOR_LLM', () => {
  it('plays the embedded emulator’s agents with the model', async () => {
    fake = await startFakeModel();
    const dir = await mkdtemp(path.join(tmpdir(), 'voxform-local-llm-'));
    try {
      await cp(path.join(repoRoot, 'agents.example.yaml'), path.join(dir, 'agents.example.yaml'));
      await cp(path.join(repoRoot, 'example'), path.join(dir, 'example'), { recursive: true });
      const result = await runCliInProcess(['test', 'example/tests/front-desk.test.yaml', '-f', 'agents.example.yaml', '--local'], {
        cwd: dir,
        env: { VOXFORM_EMULATOR_LLM: fake.url, VOXFORM_EMULATOR_LLM_MODEL: 'local-agent' },
      });
      expect(result.stdout).toContain('desired: 3 passed, 0 failed\n');
      expect(result.code).toBe(0);
      // The greeting is first_message; the caller's turns were answered by the model.
      expect(fake.requests.map((r) => r.model)).toEqual(['local-agent', 'local-agent']);
      expect(fake.requests.map((r) => r.messages.at(-1)?.content).sort()).toEqual(["That's all, thanks.", 'When are you open on Saturday?']);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('voxform test capture', () => {
  it('replaces personal data by placeholders, metadata values by their key', () => {
    const metadata = { patient_name: 'Jane Roe', tier: 'gold' };
    expect(scrubPersonalData('I am Jane Roe, call +1 (555) 123-4567 or 555.987.6543, mail jane.roe@example.com, card 4111 1111 1111 1111, SSN 123-45-6789, IBAN DE89 3704 0044 0532 0130 00; a gold tier', metadata)).toBe(
      'I am <patient_name>, call <phone> or <phone>, mail <email>, card <card-number>, SSN <ssn>, IBAN <iban>; a <tier> tier',
    );
    expect(scrubPersonalData('at 9:30 on 2026-03-03, room 12', {})).toBe('at 9:30 on 2026-03-03, room 12');
  });

  it('round-trips a call made on the emulator: capture, then the captured test passes', async () => {
    fake = await startFakeModel();
    const project = await startProject();
    const agent = { agent_id: '-OKdqbqetEcM4ak369ym', metadata: { patient_name: 'Jane Roe' } };
    const say = (messages: Array<{ role: string; content: string }>, end = false) =>
      fetch(`${project?.emulator.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: project?.emulator.apiKey ?? '' }, body: JSON.stringify({ agent, messages, end_of_session: end }) }).then((r) => r.text());
    // The emulator's chunk ids carry the call id: chatcmpl-<call id>.
    const callId = /"id":"chatcmpl-([^"]+)"/.exec(await say([]))?.[1] as string;
    const greeting = 'Hello, Acme Dental. How can I help you?';
    const user = 'This is Jane Roe, my number is +1 555 123 4567 and my mail is jane@example.com.';
    await say([{ role: 'assistant', content: greeting }, { role: 'user', content: user }], true);

    const captured = await project.cliInProcess(['test', 'capture', callId, '--out', 'tests/captured.test.yaml']);
    // tests/ did not exist: capture makes it (a new project's first test file).
    expect(captured.stderr).toBe('Wrote the test file to tests/captured.test.yaml.\n');
    expect(captured.code).toBe(0);
    const text = await readFile(path.join(project.dir, 'tests/captured.test.yaml'), 'utf8');
    expect(text).not.toMatch(/Jane|555 123|jane@/);
    expect(text).toContain(`name: replays call ${callId}`);
    // The editor's schema is found from where the file was written.
    expect(text.split('\n')[0]).toBe('# yaml-language-server: $schema=../node_modules/voxform/schemas/tests.schema.json');
    expect((await project.cliInProcess(['test', 'capture', callId, '--out', 'tests/deep/er/captured.test.yaml'])).code).toBe(0);
    // A test file that exists is the suite's: kept, unless --force.
    await writeFile(path.join(project.dir, 'tests/deep/er/captured.test.yaml'), 'agent: front-desk\ntests: []\n');
    const kept = await project.cliInProcess(['test', 'capture', callId, '--out', 'tests/deep/er/captured.test.yaml']);
    expect(kept.code).toBe(1);
    expect(kept.stderr).toBe(
      'error[would_overwrite]: voxform test capture would overwrite tests/deep/er/captured.test.yaml, which exists already; no call was captured.\n' +
        '  hint: Pass --force to overwrite it, or name another file with --out.\n',
    );
    expect(await readFile(path.join(project.dir, 'tests/deep/er/captured.test.yaml'), 'utf8')).toBe('agent: front-desk\ntests: []\n');
    expect((await project.cliInProcess(['test', 'capture', callId, '--out', 'tests/deep/er/captured.test.yaml', '--force'])).code).toBe(0);
    expect((await readFile(path.join(project.dir, 'tests/deep/er/captured.test.yaml'), 'utf8')).split('\n')[0]).toBe('# yaml-language-server: $schema=../../../node_modules/voxform/schemas/tests.schema.json');
    expect(text).toContain('user: This is <patient_name>, my number is <phone> and my mail is <email>.');
    expect(text).toContain(`judge: 'Answers like: "${greeting}"`);
    const refused = await project.cliInProcess(['test', 'capture', callId, '--out', 'voxform.yaml/captured.test.yaml']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      `error[report_write_failed]: Cannot write the test file to ${path.join(project.dir, 'voxform.yaml/captured.test.yaml')}: a part of its folder is a file, not a folder; nothing was written.\n` +
        `  hint: ${CREATES_FOLDERS}\n`,
    );
    // A file that cannot be written takes back the folders made for it.
    const longName = `new/er/${'x'.repeat(300)}.test.yaml`;
    const tooLong = await project.cliInProcess(['test', 'capture', callId, '--out', longName]);
    expect(tooLong.stderr).toContain(': a name in its path is too long; nothing was written.\n');
    expect(existsSync(path.join(project.dir, 'new'))).toBe(false);
    // A folder cannot become the test file: said at once, with --force or without, naming a file in it.
    for (const force of [[], ['--force']]) {
      const folder = await project.cliInProcess(['test', 'capture', callId, '--out', 'tests', ...force]);
      expect(folder.stderr, force.join()).toBe(
        `error[report_write_failed]: Cannot write the test file to ${path.join(project.dir, 'tests')}: it is a folder; no call was captured.\n` +
          `  hint: Name a file in it with --out, such as ${path.join('tests', 'captured.test.yaml')}.\n`,
      );
      expect(folder.code).toBe(1);
    }
    // A file no run of the suite would read is refused before the call is looked for, with the name it needs.
    for (const [out, renamed] of [['tests/captured.yaml', 'tests/captured.test.yaml'], ['tests/captured', 'tests/captured.test.yaml'], ['tests/c.yml', 'tests/c.test.yml']]) {
      const unread = await project.cliInProcess(['test', 'capture', 'call_none', '--out', out as string]);
      expect(unread.stderr).toBe(
        `error[invalid_argument]: --out names ${out}, which no test run reads: test files end in .test.yaml or .test.yml; no call was captured.\n  hint: Name it ${renamed}.\n`,
      );
      expect(unread.code).toBe(1);
    }

    // The default tests/ folder beside the manifest, judged by the fake (a quoted reference must appear in the reply).
    // Against the live agent, the one that made the call (the desired greeting differs, so desired would fail).
    const rerun = await project.cliInProcess(['test', '--against', 'live'], { VOXFORM_JUDGE_URL: fake.url });
    expect(rerun.stdout).toContain(`  PASS  replays call ${callId}  [live 1/1]\n`);
    expect(rerun.code).toBe(0);
  });

  it('prints the test file it would write: without --out, the YAML on stdout means what the written file does', async () => {
    const project = await startProject();
    const agent = { agent_id: '-OKdqbqetEcM4ak369ym' };
    const say = (messages: Array<{ role: string; content: string }>, end = false) =>
      fetch(`${project.emulator.url}/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: project.emulator.apiKey }, body: JSON.stringify({ agent, messages, end_of_session: end }) }).then((r) => r.text());
    const callId = /"id":"chatcmpl-([^"]+)"/.exec(await say([]))?.[1] as string;
    // The printing rule escapes each of these on stdout: raw in a plain scalar, the printed file would script `\u202e` as text.
    const said = ['hello\u202eworld \u200bzw', 'می\u200cخواهم', 'क्\u200dष', 'bell\u0007 and \u001b[31mred', "a##[b it's", '::warning:: file'];
    // The greeting goes on the call the first request started; the caller's lines are one turn each, the last one answered.
    await say([{ role: 'assistant', content: 'Hello, Acme Dental. How can I help you?' }, ...said.map((content) => ({ role: 'user', content }))], true);

    const written = await project.cliInProcess(['test', 'capture', callId, '--out', 'tests/captured.test.yaml']);
    expect(written.code).toBe(0);
    const file = parse(await readFile(path.join(project.dir, 'tests/captured.test.yaml'), 'utf8')) as { tests: Array<{ turns: Array<{ user?: string }> }> };
    expect(file.tests[0]?.turns.flatMap((turn) => (turn.user === undefined ? [] : [turn.user]))).toEqual(said);
    const printed = await project.cliInProcess(['test', 'capture', callId]);
    expect(printed.code).toBe(0);
    expect(parse(printed.stdout)).toEqual(file);
  });

  it('names the call it could not find', async () => {
    const project = await startProject();
    const result = await project.cliInProcess(['test', 'capture', 'call_nope']);
    expect(result.code).toBe(1);
    expect(result.stderr).toBe('error[call_not_found]: No call call_nope in the 10,000 most recent call records.\n  hint: List calls with `voxform logs`.\n');
  });

  it('hides a secret of the call before it replaces personal data or shortens a reply', () => {
    const secret = 'tok-5551234567-S3CRET-capture';
    const registry = new SecretRegistry();
    registry.add(secret);
    const reply = `${'x'.repeat(590)} ${secret}`;
    const record = { call_id: 'call_1', chat: JSON.stringify([{ role: 'user', content: `my code is ${secret}` }, { role: 'assistant', content: reply }]) };
    const text = captureTestFile({ record: record as never, agentName: 'front-desk', redact: (value) => registry.redact(value) });
    // Neither a piece cut off at 600 characters nor the pieces around a phone number the scrub would replace.
    for (const piece of ['tok-', 'S3CRET', '-capture']) expect(text).not.toContain(piece);
    expect(text).toContain('user: my code is (sensitive)');
  });

  it('keeps "test" and "chat" in a captured transcript: voxform\'s label of test traffic is no personal data', () => {
    const record = { call_id: 'call_2', metadata: { voxform_source: 'chat', patient_name: 'Jane Roe' }, chat: JSON.stringify([{ role: 'user', content: 'Jane Roe here, can I chat about a test result?' }, { role: 'assistant', content: 'Of course.' }]) };
    const text = captureTestFile({ record: record as never, agentName: 'front-desk' });
    expect(text).toContain('user: <patient_name> here, can I chat about a test result?');
  });

  it('refuses a call longer than a test may be, rather than write a file voxform would refuse to run', () => {
    const exchange = (i: number) => [{ role: 'user', content: `question ${i}` }, { role: 'assistant', content: `answer ${i}` }];
    const long = { call_id: 'call_3', chat: JSON.stringify(Array.from({ length: 61 }, (_, i) => exchange(i)).flat()) };
    expect(() => captureTestFile({ record: long as never, agentName: 'front-desk' })).toThrowError(
      expect.objectContaining({ code: 'call_too_long', message: 'Call call_3 cannot be captured as a test: it has 61 turns, and a test holds at most 50. Nothing was written.' }) as Error,
    );
    const wordy = { call_id: 'call_4', chat: JSON.stringify([{ role: 'user', content: 'x'.repeat(10_001) }]) };
    expect(() => captureTestFile({ record: wordy as never, agentName: 'front-desk' })).toThrowError(/a message of the caller is longer than the 10,000 characters a turn holds/);
    const fifty = { call_id: 'call_5', chat: JSON.stringify(Array.from({ length: 50 }, (_, i) => exchange(i)).flat()) };
    expect(captureTestFile({ record: fifty as never, agentName: 'front-desk' })).toContain('question 49');
  });

  it('the agent speaking twice in a row is one answer, never a turn without a caller line', () => {
    const record = {
      call_id: 'call_2',
      chat: JSON.stringify([
        { role: 'assistant', content: 'Hello!' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'How can I help?' },
        { role: 'assistant', content: 'How can I help?' },
      ]),
    };
    const turns = (parse(captureTestFile({ record: record as never, agentName: 'front-desk' })) as { tests: Array<{ turns: Array<{ user?: string; expect?: Array<{ judge: string }> }> }> }).tests[0]?.turns;
    expect(turns).toEqual([
      { expect: [{ judge: 'Answers like: "Hello!" (the same substance; wording may differ).' }] },
      { user: 'Hi', expect: [{ judge: 'Answers like: "How can I help? How can I help?" (the same substance; wording may differ).' }] },
    ]);
  });

  it('writes a caller\'s hidden characters escaped inside double quotes, never raw: what a reviewer reads is what the test sends', () => {
    // U+202E reorders the line, U+200B hides a break, U+200C/U+200D spell Persian and Indic words, ESC starts a terminal sequence.
    const said = ['hello\u202eworld \u200bzw', 'می\u200cخواهم', 'क्\u200dष', 'bell\u001b[31m'];
    const record = { call_id: 'call_6', chat: JSON.stringify(said.flatMap((content) => [{ role: 'user', content }, { role: 'assistant', content: `You said: ${content}` }])) };
    const text = captureTestFile({ record: record as never, agentName: 'front-desk' });
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u200b-\u200d\u202e]/u);
    expect(text).toContain('- user: "hello\\u202eworld \\u200bzw"');
    const turns = (parse(text) as { tests: Array<{ turns: Array<{ user?: string; expect?: Array<{ judge: string }> }> }> }).tests[0]?.turns;
    expect(turns?.map((turn) => turn.user)).toEqual(said);
    expect(turns?.map((turn) => turn.expect?.[0]?.judge)).toEqual(said.map((content) => `Answers like: "You said: ${content}" (the same substance; wording may differ).`));
  });

  it('captures agent replies as judge references and lone caller turns as turns', () => {
    const record = {
      call_id: 'call_1\n# injected',
      chat: JSON.stringify([
        { role: 'user', content: 'Hi' },
        { role: 'user', content: 'Anyone?' },
        { role: 'assistant', content: 'Yes, hello!' },
      ]),
    };
    expect(captureTestFile({ record: record as never, agentName: 'front-desk' })).toBe(
      [
        '# yaml-language-server: $schema=../node_modules/voxform/schemas/tests.schema.json',
        '# Captured from call call_1injected by `voxform test capture`. Personal data is replaced by <placeholders>:',
        '# review the script and the judge references before committing.',
        'agent: front-desk',
        'tests:',
        '  - name: replays call call_1injected',
        '    turns:',
        '      - user: Hi',
        '      - user: Anyone?',
        '        expect:',
        '          - judge: \'Answers like: "Yes, hello!" (the same substance; wording may differ).\'',
        '',
      ].join('\n'),
    );
  });
});
