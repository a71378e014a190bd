import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { SECRETS, useExampleProjects } from '../helpers/project.js';
import { defaultAnswer, startFakeModel, type FakeModel } from '../helpers/fake-model.js';

const startProject = useExampleProjects();

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A suite beside the example's: a judge check, a mocked tool with ordered tool-call checks, and a reply that repeats a secret. */
const BOOKING_TESTS = [
  'agent: booking',
  'tests:',
  '  - name: books with a mocked calendar',
  '    mock_tools: { find_slots: { returns: { slots: ["09:00", "11:30"] } } }',
  '    turns:',
  '      - user: A cleaning on 2026-03-03, please.',
  '        expect:',
  '          - contains: "11:30"',
  '          - judge: Says "Done"',
  '    expect:',
  '      - tool_calls: [{ name: find_slots, args: { date: "2026-03-03" } }]',
  '  - name: repeats a token',
  `    turns: [{ user: "the token is ${SECRETS.HOOK_TOKEN}", expect: [{ not_contains: never said }] }]`,
  '',
].join('\n');

/** The JSON result without its timings: what must be byte-identical between runs of one recording. */
const withoutTimings = (json: string): string => json.replace(/"duration_ms": \d+/g, '"duration_ms": 0');

describe('voxform test --mode record, then replay', () => {
  it('replays a recorded suite with the model stopped and the service unasked, the same verdicts byte for byte; an edited prompt makes exactly its tests "not recorded"', { timeout: 300_000 }, async () => {
    fake = await startFakeModel();
    const project = await startProject({ llm: { url: fake.url, model: 'fake-agent' } });
    await writeFile(path.join(project.dir, 'example/tests/mocked.test.yaml'), BOOKING_TESTS);
    const judge = { VOXFORM_JUDGE_URL: fake.url, VOXFORM_JUDGE_MODEL: 'fake-judge' };

    const recorded = await project.cliInProcess(['test', 'example/tests', '--mode', 'record', '--format', 'json'], judge);
    expect(recorded.stderr).toContain('Recorded example/tests/mocked.recording.json.\n');
    expect(recorded.code, `${recorded.stdout}${recorded.stderr}`).toBe(0);
    const live = JSON.parse(recorded.stdout) as { summary: unknown; tests: Array<{ name: string; verdicts: { desired: { results: Array<{ transcript: unknown[]; tool_calls: unknown }> } } }> };
    expect(live.summary).toEqual({ desired: { passed: 6, failed: 0, skipped: 0, errors: 0 } });
    // The mocked tool answered the agent's call: its fixed result reached the model, and the call is on the record.
    const mocked = live.tests.find((test) => test.name === 'books with a mocked calendar')?.verdicts.desired.results[0];
    expect(JSON.stringify(mocked?.transcript)).toContain('Done: {\\"slots\\":[\\"09:00\\",\\"11:30\\"]}');
    expect(mocked?.tool_calls).toEqual([{ name: 'find_slots', params: { date: '2026-03-03' } }]);

    // One reviewable file per test file; no secret in any.
    const recording = await readFile(path.join(project.dir, 'example/tests/mocked.recording.json'), 'utf8');
    expect(JSON.parse(recording)).toMatchObject({ format_version: 1, test_file: 'mocked.test.yaml' });
    expect(recording).toContain('"asked": "the token is (sensitive)"');
    for (const name of ['front-desk', 'booking', 'mocked']) {
      const text = await readFile(path.join(project.dir, `example/tests/${name}.recording.json`), 'utf8');
      for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
    }

    // auto: what the recording covers is replayed; a test it does not know runs live, and nothing is written.
    const mockedFile = path.join(project.dir, 'example/tests/mocked.test.yaml');
    await writeFile(mockedFile, `${BOOKING_TESTS}  - name: is new\n    turns: [{ user: new here, expect: [{ not_contains: never said }] }]\n`);
    const asked = fake.requests.length;
    const auto = await project.cliInProcess(['test', 'example/tests/mocked.test.yaml', '--mode', 'auto'], judge);
    expect(auto.stdout).toContain('  PASS  is new  [desired 1/1]\n');
    expect(auto.code).toBe(0);
    expect(fake.requests.slice(asked).map((request) => request.messages.at(-1)?.content)).toEqual(['new here']);
    expect(await readFile(path.join(project.dir, 'example/tests/mocked.recording.json'), 'utf8')).toBe(recording);
    await writeFile(mockedFile, BOOKING_TESTS);

    // Recording one test again keeps the others' exchanges; a test gone from its file leaves the recording.
    const recordingFile = path.join(project.dir, 'example/tests/mocked.recording.json');
    const testsIn = async () => new Set((JSON.parse(await readFile(recordingFile, 'utf8')) as { exchanges: Array<{ test: string }> }).exchanges.map((e) => e.test));
    await writeFile(mockedFile, BOOKING_TESTS.replace(/ {2}- name: repeats a token\n.*\n/, ''));
    await project.cliInProcess(['test', 'example/tests/mocked.test.yaml', '--mode', 'record', '--grep', 'mocked calendar'], judge);
    expect(await testsIn()).toEqual(new Set(['books with a mocked calendar']));
    await writeFile(mockedFile, BOOKING_TESTS);
    await project.cliInProcess(['test', 'example/tests/mocked.test.yaml', '--mode', 'record', '--grep', 'repeats a token'], judge);
    // Recorded in two parts, the file is the one recorded whole: stable order and layout.
    expect(await readFile(recordingFile, 'utf8')).toBe(recording);

    // Replay: the model is stopped, no judge URL is set, and the service is not asked.
    await fake.close();
    fake = undefined;
    const serviceRequests = project.requests.length;
    const replayed = await project.cliInProcess(['test', 'example/tests', '--mode', 'replay', '--format', 'json'], { VOXFORM_JUDGE_MODEL: 'fake-judge' });
    expect(replayed.code).toBe(0);
    expect(project.requests.length).toBe(serviceRequests);
    expect(withoutTimings(replayed.stdout)).toBe(withoutTimings(recorded.stdout));
    const again = await project.cliInProcess(['test', 'example/tests', '--mode', 'replay', '--format', 'json'], { VOXFORM_JUDGE_MODEL: 'fake-judge' });
    expect(withoutTimings(again.stdout)).toBe(withoutTimings(replayed.stdout));

    // Another judge model is another key: its answers were never recorded.
    const otherJudge = await project.cliInProcess(['test', 'example/tests/mocked.test.yaml', '--mode', 'replay', '--grep', 'mocked'], { VOXFORM_JUDGE_MODEL: 'another-judge' });
    expect(otherJudge.stdout).toContain('has no judge\'s answer for this request — the same question was recorded, asked of another judge model than "another-judge"');
    expect(otherJudge.code).toBe(1);

    // One agent's prompt edited: exactly its tests are not recorded; the others replay as before.
    const promptFile = path.join(project.dir, 'example/prompts/front-desk.md');
    await writeFile(promptFile, `${await readFile(promptFile, 'utf8')}\nAlways mention the parking.\n`);
    const edited = await project.cliInProcess(['test', 'example/tests', '--mode', 'replay'], { VOXFORM_JUDGE_MODEL: 'fake-judge' });
    expect(edited.code).toBe(1);
    expect(project.requests.length).toBe(serviceRequests);
    const verdicts = [...edited.stdout.matchAll(/^ {2}(PASS|FAIL|ERROR|SKIP) +(.+?) {2}\[/gm)].map((match) => `${match[1]} ${match[2]}`);
    expect(verdicts).toEqual([
      'PASS offers to book',
      "ERROR greets with the practice's name",
      'ERROR introduces herself as Ava',
      'ERROR ends the session without a transfer',
      'PASS books with a mocked calendar',
      'PASS repeats a token',
    ]);
    expect(edited.stdout).toContain(
      'error: Not recorded: example/tests/front-desk.test.yaml › "introduces herself as Ava", turn 1 (desired, run 1): example/tests/front-desk.recording.json has no agent\'s reply for this request',
    );
    expect(edited.stdout.match(/Not recorded:/g)).toHaveLength(3);
    expect(edited.stdout).toContain('desired: 3 passed, 0 failed, 3 errors\n');
  });
});

describe('a recording of a reply that held a secret', () => {
  it('replays the verdicts the checks gave live, on the reply as reports show it (the secret its placeholder), and holds no planted value', { timeout: 120_000 }, async () => {
    const project = await startProject();
    const planted = { PROMO_CODE: 'SPRING-2026' };
    const manifest = path.join(project.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('first_message: Thanks for calling Acme Dental, this is Ava. How can I help you today?', 'first_message: "Welcome! Today\'s code is ${env:PROMO_CODE}."'));
    expect((await project.cliInProcess(['apply', '--auto-approve'], planted)).code).toBe(0);
    const testFile = path.join(project.dir, 'example/tests/promo.test.yaml');
    const promoTests = (shownPattern: string) =>
      [
        'agent: front-desk',
        'tests:',
        '  - name: sees the placeholder',
        `    turns: [{ expect: [{ regex: "${shownPattern}" }, { not_contains: "SPRING" }] }]`,
        '  - name: cannot see the code',
        '    turns: [{ expect: [{ regex: "code is [A-Z]+-[0-9]+" }] }]',
        '',
      ].join('\n');
    await writeFile(testFile, promoTests('code is \\\\(sensitive\\\\)'));
    const args = ['test', 'example/tests/promo.test.yaml', '--against', 'live'];
    const verdicts = ['  PASS  sees the placeholder  [live 1/1]\n', '  FAIL  cannot see the code  [live 0/1]\n'];

    const recorded = await project.cliInProcess([...args, '--mode', 'record'], planted);
    for (const verdict of verdicts) expect(recorded.stdout).toContain(verdict);
    expect(recorded.code).toBe(1);
    const recording = await readFile(path.join(project.dir, 'example/tests/promo.recording.json'), 'utf8');
    expect(recording).toContain("Today's code is (sensitive).");
    expect(recording).not.toContain(planted.PROMO_CODE);
    for (const secret of Object.values(SECRETS)) expect(recording).not.toContain(secret);

    for (const mode of ['replay', 'auto']) {
      const replayed = await project.cliInProcess([...args, '--mode', mode], planted);
      for (const verdict of verdicts) expect(replayed.stdout, mode).toContain(verdict);
      expect(replayed.code, mode).toBe(1);
    }
    expect(await readFile(path.join(project.dir, 'example/tests/promo.recording.json'), 'utf8')).toBe(recording);

    // A changed check needs no new recording: it sees the recorded text, as it would see the live reply.
    await writeFile(testFile, promoTests('code is \\\\(sens'));
    const changed = await project.cliInProcess([...args, '--mode', 'replay'], planted);
    for (const verdict of verdicts) expect(changed.stdout).toContain(verdict);
    expect(changed.stdout).not.toContain('Not recorded');
  });
});

describe('a recording of tool calls whose arguments held a secret', () => {
  it('replays the verdicts the argument checks gave live, on the arguments as reports show them, and holds no planted value', { timeout: 120_000 }, async () => {
    const planted = { PROMO_CODE: 'SPRING-2026' };
    // The agent's model books with the day's code when asked for it.
    fake = await startFakeModel((request) => {
      const lastUser = [...request.messages].reverse().find((m) => m.role === 'user')?.content ?? '';
      const tool = request.tools?.[0]?.function.name;
      if (tool && request.messages.at(-1)?.role === 'user' && lastUser.includes('code')) return { toolCalls: [{ name: tool, arguments: { code: planted.PROMO_CODE } }] };
      return defaultAnswer(request);
    });
    const project = await startProject({ llm: { url: fake.url, model: 'fake-agent' } });
    const manifest = path.join(project.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('first_message: Hi! I can help you book, move or cancel an appointment.', 'first_message: "Hi! Quote ${env:PROMO_CODE} when you book."'));
    expect((await project.cliInProcess(['apply', '--auto-approve'], planted)).code).toBe(0);
    const testFile = path.join(project.dir, 'example/tests/code.test.yaml');
    const codeTests = (pattern: string) => `agent: booking\ntests:\n  - name: books with the code\n    turns: [{ user: "Book with the code, please." }]\n    expect:\n      - tool_called: find_slots\n        args: { code: { regex: "${pattern}" } }\n`;
    await writeFile(testFile, codeTests('^\\\\(sensitive\\\\)$'));
    const args = ['test', 'example/tests/code.test.yaml', '--against', 'live'];

    const recorded = await project.cliInProcess([...args, '--mode', 'record'], planted);
    expect(recorded.stdout, recorded.stderr).toContain('  PASS  books with the code  [live 1/1]\n');
    const recording = await readFile(path.join(project.dir, 'example/tests/code.recording.json'), 'utf8');
    expect(recording).toContain('"code": "(sensitive)"');
    expect(recording).not.toContain(planted.PROMO_CODE);

    const replayed = await project.cliInProcess([...args, '--mode', 'replay'], planted);
    expect(replayed.stdout).toContain('  PASS  books with the code  [live 1/1]\n');
    expect(replayed.code).toBe(0);

    // The code as it was is seen by no check, live or replayed.
    await writeFile(testFile, codeTests('^[A-Z]+-[0-9]+$'));
    for (const mode of ['replay', 'live']) {
      const changed = await project.cliInProcess([...args, '--mode', mode], planted);
      expect(changed.stdout, mode).toContain('  FAIL  books with the code  [live 0/1]\n');
      expect(changed.stdout + changed.stderr, mode).not.toContain(planted.PROMO_CODE);
    }
  });
});

describe('a run that withholds the secrets (no --with-secrets)', () => {
  it('needs none of the variables the manifests read: replayed, its verdicts and recording unchanged; run live, the withheld config is sent; --with-secrets needs them', { timeout: 120_000 }, async () => {
    const project = await startProject();
    const manifest = path.join(project.dir, 'voxform.yaml');
    await writeFile(manifest, (await readFile(manifest, 'utf8')).replace('first_message: Thanks for calling Acme Dental, this is Ava. How can I help you today?', 'first_message: "Welcome! Today\'s code is ${env:PROMO_CODE}."'));
    const testFile = path.join(project.dir, 'example/tests/promo.test.yaml');
    await writeFile(testFile, 'agent: front-desk\ntests:\n  - name: greets\n    turns: [{ expect: [{ contains: "Welcome" }, { not_contains: "SPRING" }] }]\n');
    const args = ['test', 'example/tests/promo.test.yaml'];
    const recorded = await project.cliInProcess([...args, '--mode', 'record'], { PROMO_CODE: 'SPRING-2026' });
    expect(recorded.stdout).toContain('  PASS  greets  [desired 1/1]\n');
    const recordingFile = path.join(project.dir, 'example/tests/promo.recording.json');
    const recording = await readFile(recordingFile, 'utf8');
    expect(recording).toContain("Today's code is withheld-by-voxform.");

    const unset = {}; // PROMO_CODE is not among the project's variables
    for (const mode of ['replay', 'auto', 'live']) {
      const run = await project.cliInProcess([...args, '--mode', mode], unset);
      expect(run.stdout, mode).toContain('  PASS  greets  [desired 1/1]\n');
      expect(run.stderr, mode).not.toContain('env_missing');
      expect(run.code, mode).toBe(0);
    }
    expect(await readFile(recordingFile, 'utf8')).toBe(recording);

    const withSecrets = await project.cliInProcess([...args, '--with-secrets'], unset);
    expect(withSecrets.stderr).toContain('error[env_missing]: environment variable PROMO_CODE is not set');
    expect(withSecrets.stderr).toContain('error[manifest_invalid]: The manifests have 1 error (listed above); no test was run.');
    expect(withSecrets.code).toBe(1);

    // The agent answered the withheld config: with its secrets sent, it may answer otherwise, so the recording has no answer for it.
    const replayedWithSecrets = await project.cliInProcess([...args, '--mode', 'replay', '--with-secrets'], { PROMO_CODE: 'SPRING-2026' });
    expect(replayedWithSecrets.stdout).toContain('error: Not recorded: example/tests/promo.test.yaml › "greets", turn 1 (desired, run 1)');
    expect(replayedWithSecrets.stdout).not.toContain('SPRING-2026');
    expect(replayedWithSecrets.code).toBe(1);
  });
});

describe('a recording of an agent whose text holds an `${env:…}` value', () => {
  it('is out of date once the text around the value changes, against desired and, after an apply, against live; the value itself keys nothing', { timeout: 120_000 }, async () => {
    const project = await startProject();
    const planted = { PROMO_CODE: 'SPRING-2026' };
    const manifest = path.join(project.dir, 'voxform.yaml');
    const greeting = (text: string) => `first_message: "${text} Today's code is \${env:PROMO_CODE}."`;
    const original = await readFile(manifest, 'utf8');
    await writeFile(manifest, original.replace('first_message: Thanks for calling Acme Dental, this is Ava. How can I help you today?', greeting('Welcome!')));
    expect((await project.cliInProcess(['apply', '--auto-approve'], planted)).code).toBe(0);
    await writeFile(path.join(project.dir, 'example/tests/promo.test.yaml'), 'agent: front-desk\ntests:\n  - name: greets\n    turns: [{ expect: [{ contains: "code" }] }]\n');
    const args = ['test', 'example/tests/promo.test.yaml', '--against', 'both'];
    expect((await project.cliInProcess([...args, '--mode', 'record'], planted)).stdout).toContain('  PASS  greets  [live 1/1 · desired 1/1]\n');
    const recording = await readFile(path.join(project.dir, 'example/tests/promo.recording.json'), 'utf8');
    expect(recording).not.toContain(planted.PROMO_CODE);

    // Another value of the variable is the same text as recorded: its value is never part of the key.
    expect((await project.cliInProcess([...args, '--mode', 'replay'], { PROMO_CODE: 'SUMMER-2026' })).code).toBe(0);

    const notRecorded = (target: string) => `error: Not recorded: example/tests/promo.test.yaml › "greets", turn 1 (${target}, run 1): example/tests/promo.recording.json has no agent's reply for this request — the request to the agent changed since it was recorded`;
    await writeFile(manifest, original.replace('first_message: Thanks for calling Acme Dental, this is Ava. How can I help you today?', greeting('Go away.')));
    const edited = await project.cliInProcess([...args, '--mode', 'replay'], planted);
    expect(edited.stdout).toContain(notRecorded('desired'));
    expect(edited.stdout).not.toContain(notRecorded('live'));
    expect(edited.code).toBe(1);

    expect((await project.cliInProcess(['apply', '--auto-approve'], planted)).code).toBe(0);
    const applied = await project.cliInProcess([...args, '--mode', 'replay'], planted);
    expect(applied.stdout).toContain(notRecorded('live'));
    expect(applied.code).toBe(1);
  });
});

describe('recording again a test that ends in error', () => {
  it('keeps its earlier recording, records the tests that completed, and says so; --skip-judge with a judged test is refused, nothing run', { timeout: 120_000 }, async () => {
    fake = await startFakeModel();
    const project = await startProject();
    const testFile = path.join(project.dir, 'example/tests/judged.test.yaml');
    await writeFile(testFile, ['agent: front-desk', 'tests:', '  - name: is judged', '    turns: [{ user: hello, expect: [{ judge: Mentions "hello" }] }]', '  - name: greets', '    turns: [{ expect: [{ contains: acme }] }]', ''].join('\n'));
    const recordingFile = path.join(project.dir, 'example/tests/judged.recording.json');
    const judge = { VOXFORM_JUDGE_URL: fake.url, VOXFORM_JUDGE_MODEL: 'fake-judge' };
    const record = ['test', 'example/tests/judged.test.yaml', '--mode', 'record'];
    const recorded = await project.cliInProcess(record, judge);
    expect(recorded.stderr).toContain('Recorded example/tests/judged.recording.json.\n');
    const recording = await readFile(recordingFile, 'utf8');
    const verdicts = (stdout: string) => stdout.split('\n').filter((line) => /^ {2}(PASS|FAIL|ERROR) /.test(line));

    const judgeDown = { ...judge, VOXFORM_JUDGE_URL: 'http://127.0.0.1:1/v1' };
    const errored = await project.cliInProcess([...record, '--timeout', '2s'], judgeDown);
    expect(verdicts(errored.stdout)[0]).toMatch(/^ {2}ERROR is judged /);
    expect(errored.stderr).toContain('Recorded example/tests/judged.recording.json (kept the earlier recording of 1 test that ended in error).\n');
    expect(errored.code).toBe(1);
    expect(await readFile(recordingFile, 'utf8')).toBe(recording);

    // Nothing recorded anew: the file is not written, and the run does not say it was.
    const only = await project.cliInProcess([...record, '--grep', 'judged', '--timeout', '2s'], judgeDown);
    expect(only.stderr).toContain('Left example/tests/judged.recording.json as it was: kept the earlier recording of 1 test that ended in error.\n');
    expect(only.stderr).not.toContain('Recorded ');
    expect(await readFile(recordingFile, 'utf8')).toBe(recording);

    const replayed = await project.cliInProcess(['test', 'example/tests/judged.test.yaml', '--mode', 'replay'], { VOXFORM_JUDGE_MODEL: 'fake-judge' });
    expect(verdicts(replayed.stdout)).toEqual(verdicts(recorded.stdout));
    expect(replayed.code).toBe(recorded.code);

    const skipped = await project.cliInProcess([...record, '--skip-judge'], judge);
    expect(skipped.stderr).toContain('error[invalid_argument]: --mode record cannot skip the judge (--skip-judge): 1 test asks it or a simulated caller, and a recording holds every exchange its tests make; first: example/tests/judged.test.yaml › is judged. No test was run.\n');
    expect(skipped.stdout).toBe('');
    expect(skipped.code).toBe(1);
    expect(await readFile(recordingFile, 'utf8')).toBe(recording);
  });
});

describe('test files that would share one recording', () => {
  it('are refused before anything runs, naming both: x.test.yaml with x.test.yml, or with x.TEST.yaml', { timeout: 120_000 }, async () => {
    const project = await startProject();
    const tests = 'agent: front-desk\ntests:\n  - name: greets\n    turns: [{ expect: [{ contains: acme }] }]\n';
    await mkdir(path.join(project.dir, 't'));
    await writeFile(path.join(project.dir, 't/a.test.yaml'), tests);
    for (const other of ['a.test.yml', 'a.TEST.yaml']) {
      await writeFile(path.join(project.dir, 't', other), tests);
      const requests = project.requests.length;
      for (const mode of ['record', 'replay', 'auto']) {
        const run = await project.cliInProcess(['test', 't', '--mode', mode]);
        expect(run.stderr, mode).toContain(`error[recording_shared]: The test files t/${other === 'a.test.yml' ? 'a.test.yaml and t/a.test.yml' : 'a.TEST.yaml and t/a.test.yaml'} would share one recording, t/`);
        expect(run.code, mode).toBe(1);
      }
      expect(project.requests.length).toBe(requests);
      await rm(path.join(project.dir, 't', other));
    }
  });
});

describe('a recording that cannot be written', () => {
  it('is refused before any conversation starts, with a hint to move the folder that stands at its path', { timeout: 120_000 }, async () => {
    const project = await startProject();
    await mkdir(path.join(project.dir, 't/a.recording.json'), { recursive: true });
    await writeFile(path.join(project.dir, 't/a.test.yaml'), 'agent: front-desk\ntests:\n  - name: greets\n    turns: [{ expect: [{ contains: acme }] }]\n');
    const requests = project.requests.length;
    const run = await project.cliInProcess(['test', 't', '--mode', 'record']);
    expect(run.stderr).toContain('error[report_write_failed]: Cannot write the recording t/a.recording.json: it is a folder; no test was run.\n');
    expect(run.stderr).toContain('hint: Remove or rename the folder t/a.recording.json, where voxform writes the recording of t/a.test.yaml, and record again.');
    expect(run.code).toBe(1);
    expect(project.requests.length).toBe(requests);
  });
});

describe('--mode auto when a judge answer is not recorded', () => {
  it('runs the run live from its first turn after a rubric or the judge model changed, as after a changed prompt', { timeout: 120_000 }, async () => {
    fake = await startFakeModel();
    const project = await startProject();
    const testFile = path.join(project.dir, 'example/tests/judged.test.yaml');
    const judged = (rubric: string) => ['agent: front-desk', 'tests:', '  - name: is judged', `    turns: [{ user: hello, expect: [{ judge: ${rubric} }] }]`, ''].join('\n');
    await writeFile(testFile, judged('Mentions "hello"'));
    const judge = { VOXFORM_JUDGE_URL: fake.url, VOXFORM_JUDGE_MODEL: 'fake-judge' };
    const args = ['test', 'example/tests/judged.test.yaml', '--no-cache'];
    expect((await project.cliInProcess([...args, '--mode', 'record'], judge)).code).toBe(0);
    const recording = await readFile(path.join(project.dir, 'example/tests/judged.recording.json'), 'utf8');

    for (const [change, env] of [['a rubric', judge], ['the judge model', { ...judge, VOXFORM_JUDGE_MODEL: 'another-judge' }]] as const) {
      if (change === 'a rubric') await writeFile(testFile, judged('Says "hello"'));
      else await writeFile(testFile, judged('Mentions "hello"'));
      const chats = project.requests.filter((request) => request.path.includes('/chat/completions')).length;
      const asked = fake.requests.length;
      const auto = await project.cliInProcess([...args, '--mode', 'auto'], env);
      expect(auto.stdout, change).toContain('  PASS  is judged  [desired 1/1]\n');
      expect(auto.code, change).toBe(0);
      // Live from its first turn: the agent was asked again, and the judge once.
      expect(project.requests.filter((request) => request.path.includes('/chat/completions')).length, change).toBe(chats + 1);
      expect(fake.requests.length - asked, change).toBe(1);
      expect(await readFile(path.join(project.dir, 'example/tests/judged.recording.json'), 'utf8')).toBe(recording);
    }
  });
});

describe('a recording edited by hand', () => {
  it('is not used where an exchange says another test, target or run than its key: its reviewer reads the labels', { timeout: 120_000 }, async () => {
    const project = await startProject();
    const testFile = path.join(project.dir, 'example/tests/two.test.yaml');
    await writeFile(testFile, 'agent: front-desk\ntests:\n  - name: alpha\n    turns: [{ user: hello, expect: [{ contains: hello }] }]\n');
    expect((await project.cliInProcess(['test', 'example/tests/two.test.yaml', '--mode', 'record'])).code).toBe(0);
    const file = path.join(project.dir, 'example/tests/two.recording.json');
    const recorded = JSON.parse(await readFile(file, 'utf8')) as { exchanges: Array<Record<string, unknown>> };
    const replay = () => project.cliInProcess(['test', 'example/tests/two.test.yaml', '--mode', 'replay']);
    expect((await replay()).code).toBe(0);

    await writeFile(file, JSON.stringify({ ...recorded, exchanges: recorded.exchanges.map((exchange) => ({ ...exchange, test: 'zzz', run: 7, target: 'live' })) }));
    const relabelled = await replay();
    expect(relabelled.code).toBe(1);
    expect(relabelled.stdout).toContain('error: The recording example/tests/two.recording.json is not valid: an exchange says it is of "zzz" (live, run 7), but its key is of "alpha" (desired, run 1).');

  });

  it('is refused whole when its test_file is not the name of the test file it is beside: another file\'s, not text, or none', { timeout: 120_000 }, async () => {
    const project = await startProject();
    await writeFile(path.join(project.dir, 'example/tests/two.test.yaml'), 'agent: front-desk\ntests:\n  - name: alpha\n    turns: [{ user: hello, expect: [{ contains: hello }] }]\n');
    expect((await project.cliInProcess(['test', 'example/tests/two.test.yaml', '--mode', 'record'])).code).toBe(0);
    const file = path.join(project.dir, 'example/tests/two.recording.json');
    const recorded = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>;
    expect(recorded.test_file).toBe('two.test.yaml');

    for (const testFile of ['front-desk.test.yaml', { x: [1, 2] }, undefined]) {
      await writeFile(file, JSON.stringify({ ...recorded, test_file: testFile }));
      for (const mode of ['replay', 'auto']) {
        const run = await project.cliInProcess(['test', 'example/tests/two.test.yaml', '--mode', mode]);
        expect(run.stderr, `${mode} ${JSON.stringify(testFile)}`).toContain('error[recording_invalid]: The recording example/tests/two.recording.json is not valid: its test_file is not "two.test.yaml", the test file it is beside.');
        expect(run.code).toBe(1);
      }
    }
  });
});

describe('a replay that misses says what the recording lacks', () => {
  it('names a run beyond those recorded, a changed rubric, another judge model, a changed message and a changed agent', { timeout: 120_000 }, async () => {
    fake = await startFakeModel();
    const project = await startProject();
    const testFile = path.join(project.dir, 'example/tests/judged.test.yaml');
    const judged = (rubric: string, user = 'hello') => ['agent: front-desk', 'tests:', '  - name: is judged', `    turns: [{ user: ${user}, expect: [{ judge: ${rubric} }] }]`, '    pass_rate: 0.5', ''].join('\n');
    await writeFile(testFile, judged('Mentions "hello"'));
    const judge = { VOXFORM_JUDGE_URL: fake.url, VOXFORM_JUDGE_MODEL: 'fake-judge' };
    const replay = ['test', 'example/tests/judged.test.yaml', '--mode', 'replay'];
    expect((await project.cliInProcess(['test', 'example/tests/judged.test.yaml', '--mode', 'record'], judge)).code).toBe(0);
    const where = (turn: number, run = 1) => `error: Not recorded: example/tests/judged.test.yaml › "is judged", turn ${turn} (desired, run ${run}): example/tests/judged.recording.json has no`;

    const more = await project.cliInProcess([...replay, '--repeat', '2'], judge);
    expect(more.stdout).toContain(`${where(1, 2)} agent's reply for this request — run 2 was not recorded: the recording has 1 run of this test against desired.`);
    // The run not recorded has no verdict: the pass rate does not absorb it.
    expect(more.stdout).toContain('  ERROR is judged  [desired 1/2 (1 error; needs 50%;');
    expect(more.code).toBe(1);

    await writeFile(testFile, judged('Says "hello"'));
    const rubric = await project.cliInProcess(replay, judge);
    expect(rubric.stdout).toContain(`${where(1)} judge's answer for this request — the rubric or the text judged changed since it was recorded.`);

    await writeFile(testFile, judged('Mentions "hello"'));
    const model = await project.cliInProcess(replay, { ...judge, VOXFORM_JUDGE_MODEL: 'another-judge' });
    expect(model.stdout).toContain(`${where(1)} judge's answer for this request — the same question was recorded, asked of another judge model than "another-judge" (VOXFORM_JUDGE_MODEL).`);

    await writeFile(testFile, judged('Mentions "hello"', 'hi there'));
    const message = await project.cliInProcess(replay, judge);
    expect(message.stdout).toContain(`${where(1)} agent's reply for this request — the message of turn 1 changed since it was recorded.`);

    await writeFile(testFile, `metadata: { tier: gold }\n${judged('Mentions "hello"')}`);
    const agent = await project.cliInProcess(replay, judge);
    expect(agent.stdout).toContain(`${where(1)} agent's reply for this request — the request to the agent changed since it was recorded, its message aside: the agent's configuration, the test's mock_tools or the file's metadata.`);
  });

  it('of a test file never recorded, says its recording does not exist, not that the recording lacks the run', { timeout: 120_000 }, async () => {
    const project = await startProject();
    await writeFile(path.join(project.dir, 'example/tests/new.test.yaml'), 'agent: front-desk\ntests:\n  - name: greets\n    turns: [{ expect: [{ contains: acme }] }]\n');
    const replayed = await project.cliInProcess(['test', 'example/tests/new.test.yaml', '--mode', 'replay']);
    expect(replayed.stdout).toContain(
      'error: Not recorded: example/tests/new.test.yaml › "greets", turn 1 (desired, run 1): example/tests/new.recording.json does not exist — record the tests of example/tests/new.test.yaml first (voxform test --mode record).',
    );
    expect(replayed.code).toBe(1);
  });
});

describe('one question asked of the judge twice in a run', () => {
  it('is asked once, and both checks read its verdict: recorded, replayed and live alike, with a judge that answers otherwise each time', { timeout: 120_000 }, async () => {
    // A judge that flips its verdict on every question: asked twice, it would pass one check and fail the other.
    let asked = 0;
    fake = await startFakeModel(() => ({ content: JSON.stringify({ verdict: asked++ % 2 === 0 ? 'pass' : 'fail', reason: `answer ${asked}` }) }));
    const project = await startProject();
    const lines = [
      'agent: front-desk',
      'tests:',
      '  - name: judged twice alike',
      '    turns: [{ user: hello, expect: [{ judge: Is polite. }, { contains: hello }, { judge: Is polite. }] }]',
      '    expect: [{ judge: Ends well. }, { judge: Ends well. }]',
      '',
    ];
    await writeFile(path.join(project.dir, 'example/tests/twice.test.yaml'), lines.join('\n'));
    const judge = { VOXFORM_JUDGE_URL: fake.url, VOXFORM_JUDGE_MODEL: 'fake-judge' };
    const args = ['test', 'example/tests/twice.test.yaml', '--format', 'json', '--no-cache'];
    const details = (stdout: string) => (JSON.parse(stdout) as { tests: Array<{ verdicts: { desired: { results: Array<{ checks: Array<{ check: string; status: string; detail: string | null }> }> } } }> }).tests[0]!.verdicts.desired.results[0]!.checks.map((check) => `${check.check}: ${check.status} (${check.detail})`);

    const recorded = await project.cliInProcess([...args, '--mode', 'record'], judge);
    expect(fake.requests).toHaveLength(2);
    expect(details(recorded.stdout)).toEqual([
      'judge: Is polite.: passed (judge: answer 1)',
      'contains "hello": passed (this check is met by the caller\'s own words)',
      'judge: Is polite.: passed (judge: answer 1)',
      'judge (transcript): Ends well.: failed (judge: answer 2)',
      'judge (transcript): Ends well.: failed (judge: answer 2)',
    ]);
    const recording = JSON.parse(await readFile(path.join(project.dir, 'example/tests/twice.recording.json'), 'utf8')) as { exchanges: Array<{ kind: string }> };
    expect(recording.exchanges.filter((exchange) => exchange.kind === 'model')).toHaveLength(2);

    const replayed = await project.cliInProcess([...args, '--mode', 'replay'], judge);
    expect(withoutTimings(replayed.stdout)).toBe(withoutTimings(recorded.stdout));
    expect(fake.requests).toHaveLength(2);

    const live = await project.cliInProcess(args, judge);
    expect(fake.requests).toHaveLength(4);
    expect(details(live.stdout)).toEqual(details(recorded.stdout).map((line) => line.replace('answer 1', 'answer 3').replace('answer 2', 'answer 4')));
  });
});
