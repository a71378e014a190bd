import { readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { echoedForms } from '../../src/secrets/redact.js';
import { useExampleProjects, SECRETS, type ExampleProject } from '../helpers/project.js';
import { startFakeModel, type FakeModel } from '../helpers/fake-model.js';

const startProject = useExampleProjects();

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

const chatBodies = (p: ExampleProject) => p.requests.filter((r) => r.path === '/chat/completions').map((r) => JSON.parse(r.body));

/** A minimal well-formedness check: every tag closed in order, attributes quoted, no raw & or <. */
function assertWellFormedXml(xml: string): void {
  const body = xml.replace(/^<\?xml[^>]*\?>\n/, '');
  const stack: string[] = [];
  for (const token of body.match(/<[^>]*>|[^<]+/g) ?? []) {
    if (!token.startsWith('<')) {
      expect(token).not.toMatch(/&(?!(amp|lt|gt|quot|apos);)/);
      continue;
    }
    const tag = /^<(\/?)([A-Za-z-]+)((?:\s+[a-z-]+="[^"<]*")*)\s*(\/?)>$/.exec(token);
    expect(tag, token).not.toBeNull();
    const [, closing, name, , selfClosing] = tag as RegExpExecArray;
    if (closing) expect(stack.pop()).toBe(name);
    else if (!selfClosing) stack.push(name as string);
  }
  expect(stack).toEqual([]);
}

describe('voxform test on the example project', () => {
  it('passes the example tests against the desired config, which it sends, and ends every session', async () => {
    const project = await startProject();
    const result = await project.cliInProcess(['test', 'example/tests']);
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/^example\/tests\/booking\.test\.yaml \(agent booking\)\n {2}PASS {2}offers to book {2}\[desired 2\/2 \(pass\^2 yes, pass@2 yes, 100% \(34%–100%\)\)\]\n/);
    expect(result.stdout).toContain('desired: 4 passed, 0 failed\n');
    expect(result.code).toBe(0);

    const bodies = chatBodies(project);
    // 2 + 2 (booking, repeated) + 2 + 1 + 2 turns: one request per turn, the last ending the session.
    expect(bodies).toHaveLength(9);
    expect(bodies.filter((b) => b.end_of_session)).toHaveLength(5);
    const frontDesk = bodies.find((b) => b.agent.agent_id === '-OKdqbqetEcM4ak369ym');
    expect(frontDesk.agent.agent_config.first_message).toBe('Thanks for calling Acme Dental, this is Ava. How can I help you today?');
    // Before review the secrets are withheld (docs/security.md §5); --with-secrets sends them as apply would.
    expect(frontDesk.agent.agent_config.session_data_webhook.headers['x-hook-token']).toBe('withheld-by-voxform');
    expect(JSON.stringify(bodies)).not.toContain(SECRETS.HOOK_TOKEN);
    await project.cliInProcess(['test', 'example/tests', '--with-secrets', '--grep', 'introduces herself']);
    const reviewed = chatBodies(project).slice(bodies.length).find((b) => b.agent.agent_id === '-OKdqbqetEcM4ak369ym');
    expect(reviewed.agent.agent_config.session_data_webhook.headers['x-hook-token']).toBe(SECRETS.HOOK_TOKEN);
    // The test file's metadata, and voxform's label of test traffic (docs/report.md) on every session.
    expect(frontDesk.agent.metadata).toEqual({ caller_tier: 'gold', voxform_source: 'test' });
    expect(bodies.every((b) => b.agent.metadata?.voxform_source === 'test')).toBe(true);
  });

  it('shows a change that breaks a test as newly failing under --against both, before apply', async () => {
    const project = await startProject();
    await project.cliInProcess(['apply', '--auto-approve']);
    const manifest = path.join(project.dir, 'voxform.yaml');
    const text = await readFile(manifest, 'utf8');
    await writeFile(manifest, text.replace('first_message: Thanks for calling Acme Dental, this is Ava. How can I help you today?', 'first_message: Hi, this is Ava. What can I do for you?'));

    const result = await project.cliInProcess(['test', 'example/tests', '--against', 'both', '--format', 'markdown']);
    expect(result.code).toBe(1);
    expect(result.stdout).toMatch(/^### voxform test: 1 newly failing, 0 newly passing · live: 4 passed, 0 failed · desired: 3 passed, 1 failed\n/);
    expect(result.stdout).toContain(
      "| 🔴 newly failing | greets with the practice's name (`example/tests/front-desk.test.yaml`) | ✅ 1/1 | ❌ 0/1 |",
    );
    expect(result.stdout).toContain('<details><summary>❌ greets with the practice\'s name (desired, 0/1): turn 1: contains "acme dental" — the reply does not contain "acme dental"</summary>');
    expect(result.stdout).toContain('agent : Hi, this is Ava. What can I do for you?');

    const json = JSON.parse((await project.cliInProcess(['test', 'example/tests', '--against', 'both', '--format', 'json'])).stdout);
    expect(json.format_version).toBe(1);
    expect(json.changes).toEqual([{ change: 'newly_failing', file: 'example/tests/front-desk.test.yaml', test: "greets with the practice's name" }]);

    const junit = await project.cliInProcess(['test', 'example/tests', '--against', 'both', '--format', 'junit', '--out', 'report.xml']);
    // The example keeps its tests in example/tests, not in tests/ beside the manifest: no run of them stands for a suite.
    expect(junit.stderr).toBe(
      'note: this run is not recorded as evidence for `voxform promote`: it runs no suite: a run without paths reads tests/ beside the manifest, which holds no test file; the tests gate takes only a live run of the whole suite as its files ask.\n' +
        'Wrote the report to report.xml.\n',
    );
    const xml = await readFile(path.join(project.dir, 'report.xml'), 'utf8');
    assertWellFormedXml(xml);
    expect(xml).toContain('<testsuites name="voxform test" tests="8" failures="1" errors="0" skipped="0"');
    expect(xml).toContain('<testsuite name="example/tests/front-desk.test.yaml" tests="6" failures="1" errors="0" skipped="0"');
    expect(xml).toContain('<failure message="0/1 runs passed; turn 1: contains &quot;acme dental&quot; — the reply does not contain &quot;acme dental&quot;" type="failed">');
  });

  it('needs a judge for judge checks, naming the variables; --skip-judge reports them as skipped', async () => {
    const project = await startProject();
    await writeFile(
      path.join(project.dir, 'example/tests/judged.test.yaml'),
      'agent: front-desk\ntests:\n  - name: judged\n    turns: [{ user: hi, expect: [{ contains: hi }, { judge: Is friendly. }] }]\n  - name: simulated\n    simulate: { persona: p, goal: g }\n    expect: [{ call_status: chat_completion }]\n',
    );
    const refused = await project.cliInProcess(['test', 'example/tests/judged.test.yaml']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe(
      'error[judge_missing]: 2 tests need a judge model (judge: checks or a simulated caller), and none is configured; first: example/tests/judged.test.yaml › judged.\n' +
        '  hint: Set VOXFORM_JUDGE_URL (an OpenAI-compatible API), VOXFORM_JUDGE_MODEL and VOXFORM_JUDGE_API_KEY, or run with --skip-judge to report those checks as skipped.\n',
    );
    const skipped = await project.cliInProcess(['test', 'example/tests/judged.test.yaml', '--skip-judge']);
    expect(skipped.code).toBe(0);
    // `contains: hi` after the caller said "hi" passes on the caller's own words, and is flagged; each skip says why.
    expect(skipped.stdout).toContain(
      [
        '  SKIP  judged  [desired skipped]',
        '        ⚠ turn 1: contains "hi" — this check is met by the caller\'s own words',
        '        desired skipped: turn 1: judge: Is friendly. — no judge (--skip-judge)',
        '  SKIP  simulated  [desired skipped]',
        '        desired skipped: simulate — a simulated caller needs the judge model (--skip-judge)',
        '',
      ].join('\n'),
    );
    expect(skipped.stdout).toContain('desired: 0 passed, 0 failed, 2 skipped\n');
  });

  it('asks for a judge only for the tests --grep keeps', async () => {
    const project = await startProject();
    await writeFile(
      path.join(project.dir, 'example/tests/j.test.yaml'),
      'agent: front-desk\ntests:\n  - name: greeting\n    turns: [{ expect: [{ contains: acme }] }]\n  - name: judged\n    turns: [{ expect: [{ judge: Is polite. }] }]\n',
    );
    const kept = await project.cliInProcess(['test', 'example/tests/j.test.yaml', '--grep', 'greeting']);
    expect(kept.stderr).toBe('');
    expect(kept.stdout).toContain('  PASS  greeting  [desired 1/1]\n');
    expect(kept.stdout).not.toContain('judged');
    expect(kept.code).toBe(0);
    const refused = await project.cliInProcess(['test', 'example/tests/j.test.yaml', '--grep', 'judged']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error[judge_missing]: 1 test needs a judge model (judge: checks or a simulated caller), and none is configured; first: example/tests/j.test.yaml › judged.\n');
    const none = await project.cliInProcess(['test', 'example/tests/j.test.yaml', '--grep', 'nothing-like-this']);
    expect(none.stderr).toBe('error[tests_not_found]: No test matches --grep "nothing-like-this".\n  hint: Check --grep and --agent against the test names; without them `voxform test` runs every test.\n');
    expect(chatBodies(project)).toHaveLength(1);
  });

  it('gives the judge --timeout to answer, as the service has', async () => {
    const project = await startProject();
    // A judge that takes every request and never answers.
    const silent = createServer(() => undefined);
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      await writeFile(path.join(project.dir, 'example/tests/judged.test.yaml'), 'agent: front-desk\ntests:\n  - name: judged\n    turns: [{ user: hi, expect: [{ judge: Is friendly. }] }]\n');
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`;
      // Long enough for the emulator to answer on a loaded machine; the silent judge never does.
      const result = await project.cliInProcess(['test', 'example/tests/judged.test.yaml', '--timeout', '3s', '--format', 'json'], { VOXFORM_JUDGE_URL: url, VOXFORM_JUDGE_MODEL: 'silent' });
      expect(result.code, result.stderr).toBe(1);
      expect(result.stdout).toContain(`The model at ${url} failed: no complete answer came within 3 s (after 3 attempts; --timeout (or VOXFORM_TIMEOUT) gives it longer).`);
      expect(result.stdout).not.toContain('timed out..');
    } finally {
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it("never prints the judge URL's tokens (user info, query values), in any format", async () => {
    const project = await startProject();
    // A judge that refuses every request: each turn's check fails naming the model's URL.
    const refusing = createServer((req, res) => {
      req.resume();
      res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"no"}}');
    });
    await new Promise<void>((resolve) => refusing.listen(0, '127.0.0.1', resolve));
    try {
      await writeFile(path.join(project.dir, 'example/tests/judged.test.yaml'), 'agent: front-desk\ntests:\n  - name: judged\n    turns: [{ user: hi, expect: [{ judge: Is friendly. }] }]\n');
      const base = `http://127.0.0.1:${(refusing.address() as AddressInfo).port}/v1`;
      for (const format of ['text', 'json', 'junit', 'markdown']) {
        const result = await project.cliInProcess(['test', 'example/tests/judged.test.yaml', '--format', format, '--no-cache'], { VOXFORM_JUDGE_URL: `${base}?key=QKEY-888` });
        expect(result.code, result.stderr).toBe(1);
        expect(result.stdout, format).toContain(`/v1?key=(sensitive) failed: status 401`);
        expect(`${result.stdout}${result.stderr}`, format).not.toContain('QKEY-888');
      }
      const withUser = await project.cliInProcess(['test', 'example/tests/judged.test.yaml', '--no-cache'], { VOXFORM_JUDGE_URL: 'http://user:PASSWD-777@127.0.0.1:1/v1' });
      expect(withUser.code).toBe(1);
      expect(withUser.stderr).toContain('error[model_url_invalid]: The model URL http://(sensitive)@127.0.0.1:1/v1 holds a user name or password');
      expect(`${withUser.stdout}${withUser.stderr}`).not.toContain('PASSWD-777');
    } finally {
      refusing.closeAllConnections();
      await new Promise<void>((resolve) => refusing.close(() => resolve()));
    }
  });

  it('scrubs a secret the report formats escape (&, <, quotes, |) from JUnit and Markdown too', async () => {
    const project = await startProject();
    const token = `pass&word<x|y'z"-42`;
    await writeFile(
      path.join(project.dir, 'example/tests/echo.test.yaml'),
      `agent: front-desk\ntests:\n  - name: echo\n    turns: [{ user: ${JSON.stringify(token)}, expect: [{ equals: nope }] }]\n`,
    );
    for (const format of ['junit', 'markdown', 'text', 'json']) {
      const result = await project.cliInProcess(['test', 'example/tests/echo.test.yaml', '--format', format], { HOOK_TOKEN: token });
      expect(result.code, result.stderr).toBe(1);
      for (const form of echoedForms(token)) expect(`${result.stdout}${result.stderr}`, `${format}: ${form}`).not.toContain(form);
      expect(result.stdout).toContain('(sensitive)');
    }
  });

  it('reports test file mistakes with file:line:col and runs nothing', async () => {
    const project = await startProject();
    await writeFile(path.join(project.dir, 'example/tests/bad.test.yaml'), 'agent: front-desk\ntests:\n  - name: x\n    turns: [{ user: hi, expect: [{ contians: a }] }]\n');
    const result = await project.cliInProcess(['test', 'example/tests/bad.test.yaml']);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('example/tests/bad.test.yaml:4:36  error[unknown_field]: unknown field "contians" in tests[0].turns[0].expect[0]; did you mean "contains"?');
    expect(result.stderr).toContain('error[tests_invalid]: The test files have 1 error (listed above); no test was run.');
    // A path the user's project has: the page, and the schema in the installed package (not the repository's schemas/).
    expect(result.stderr).toContain('hint: Fix them and run again; docs/testing.md describes the format, and node_modules/voxform/schemas/tests.schema.json is its schema (for editors).');
    expect(chatBodies(project)).toEqual([]);
  });

  it('never prints a secret: not in text, JSON, Markdown, JUnit or a report file, nor the judge key', async () => {
    const project = await startProject();
    fake = await startFakeModel();
    const judgeKey = 'judge-secret-key-5e6f7a8b';
    // An agent that repeats a secret (here: the emulator echoing a message that holds one).
    await writeFile(
      path.join(project.dir, 'example/tests/leak.test.yaml'),
      `agent: front-desk\ntests:\n  - name: leaks\n    turns: [{ user: "the token is ${SECRETS.HOOK_TOKEN}", expect: [{ judge: 'Mentions "nothing"' }] }]\n`,
    );
    const env = { VOXFORM_JUDGE_URL: fake.url, VOXFORM_JUDGE_API_KEY: judgeKey };
    for (const format of ['text', 'json', 'markdown', 'junit']) {
      const result = await project.cliInProcess(['test', 'example/tests/leak.test.yaml', '--format', format], env);
      expect(result.code).toBe(1);
      for (const secret of [...Object.values(SECRETS), judgeKey]) expect(`${result.stdout}${result.stderr}`).not.toContain(secret);
      expect(result.stdout).toContain('(sensitive)');
      await project.cliInProcess(['test', 'example/tests/leak.test.yaml', '--format', format, '--out', `report.${format}`], env);
      const file = await readFile(path.join(project.dir, `report.${format}`), 'utf8');
      for (const secret of [...Object.values(SECRETS), judgeKey]) expect(file).not.toContain(secret);
    }
    // The key went to the judge, as the operator asked, and nowhere else.
    expect(fake.authorizations.every((a) => a === `Bearer ${judgeKey}`)).toBe(true);
  });
});
