/**
 * An agent's `name` filled from `${env:…}` is a secret as its config's places are (docs/security.md
 * §5): what the name took is read off the live name by the shape the deploy ledger recorded and
 * scrubbed wherever it appears, in a job without the variable too, and a name holding an operator
 * value is found as a config's text is. An agent may say its own name in a call (the emulator's
 * replies start with it), so every command that prints a call or a live agent hides it.
 */
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expect, it } from 'vitest';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';

const SECRET = 'PLANTED-name777abc';
const withVariable = { VOXFORM_ENV_ALLOW: 'AGENT_NAME', AGENT_NAME: SECRET };
const MANIFEST = 'version: 1\nagents:\n  front-desk:\n    id: -OKdqbqetEcM4ak369ym\n    name: "Desk ${env:AGENT_NAME}"\n    config: { prompt: You answer questions., first_message: Hello there }\n';
/** A pull request's check that would pass only if the reply showed the deployed name's value. */
const GUESS = `agent: front-desk\ntests:\n  - name: guesses the name\n    turns:\n      - user: hi\n        expect: [{ contains: ${SECRET} }]\n`;

const tempDir = useTempDirs();

async function appliedWithTheVariable(): Promise<string> {
  const project = await tempDir({ 'voxform.yaml': MANIFEST, 'tests/guess.test.yaml': GUESS });
  const applied = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: project, env: withVariable });
  expect(applied.code, applied.stderr).toBe(0);
  return project;
}

it('a job without the variable: chat, logs, test, test capture and emulator traffic show the name scrubbed', async () => {
  const project = await appliedWithTheVariable();
  const printed: string[] = [];
  const run = async (args: string[], input?: string) => {
    const result = await runCliInProcess(args, { cwd: project, input });
    printed.push(result.stdout, result.stderr);
    return result;
  };

  const chat = await run(['chat', '--local', '--agent', 'front-desk'], 'hi\n');
  expect(chat.code, chat.stderr).toBe(0);
  expect(chat.stdout).toContain('[Desk (sensitive)] You said: hi');

  const logs = await run(['logs', '--local', '--agent', 'front-desk', '--format', 'json']);
  expect(logs.code, logs.stderr).toBe(0);
  const callId = (JSON.parse(logs.stdout) as Array<{ call_id: string }>)[0]!.call_id;

  // No verdict depends on the value: the check that guesses it fails.
  const guessed = await run(['test', 'tests', '--local', '--against', 'live', '--skip-judge', '--format', 'json']);
  expect(guessed.code).toBe(1);
  expect(JSON.parse(guessed.stdout).summary.live).toMatchObject({ passed: 0, failed: 1 });

  const captured = await run(['test', 'capture', callId, '--local', '--out', 'tests/captured.test.yaml']);
  expect(captured.code, captured.stderr).toBe(0);
  printed.push(await readFile(path.join(project, 'tests', 'captured.test.yaml'), 'utf8'));

  for (const format of ['text', 'json']) {
    const traffic = await run(['emulator', 'traffic', '--local', '--calls', '1', '--format', format]);
    expect(traffic.code, traffic.stderr).toBe(0);
    expect(traffic.stdout).toContain('-OKdqbqetEcM4ak369ym');
  }
  for (const text of printed) expect(text).not.toContain(SECRET);
}, 60_000);

it('emulator traffic, get agents and report with the variable set and no ledger: the value is found in the live name and hidden, its length too', async () => {
  const project = await appliedWithTheVariable();
  await rm(path.join(project, '.voxform', 'history'), { recursive: true, force: true });
  await mkdir(path.join(project, '.voxform', 'history'), { recursive: true });
  await writeFile(path.join(project, 'voxform.yaml'), 'version: 1\nagents: {}\n');
  const listed = await runCliInProcess(['get', 'agents', '--local', '--format', 'json', '--', '-OKdqbqetEcM4ak369ym'], { cwd: project, env: withVariable });
  expect(listed.code, listed.stderr).toBe(0);
  expect(JSON.parse(listed.stdout).agents[0].name).toBe('Desk (sensitive)');
  // In no manifest and no record, the agent is reported under its name on the service.
  await runCliInProcess(['chat', '--local', '--agent', '-OKdqbqetEcM4ak369ym'], { cwd: project, input: 'hi\n' });
  for (const format of ['markdown', 'json', 'html']) {
    const report = await runCliInProcess(['report', '--local', '--include-tests', '--agent', '-OKdqbqetEcM4ak369ym', '--format', format], { cwd: project, env: withVariable });
    expect(report.code, report.stderr).toBe(0);
    expect(report.stdout).toContain('Desk (sensitive)');
    expect(report.stdout + report.stderr).not.toContain(SECRET);
  }
  const traffic = await runCliInProcess(['emulator', 'traffic', '--local', '--calls', '1', '--agent', '-OKdqbqetEcM4ak369ym'], { cwd: project, env: withVariable });
  expect(traffic.code, traffic.stderr).toBe(0);
  // One agent: its column is as wide as the name shown, so nothing pads it to the value's length.
  expect(traffic.stdout).toContain('\n  Desk (sensitive)  -OKdqbqetEcM4ak369ym  ');
  expect(traffic.stdout + traffic.stderr).not.toContain(SECRET);
});
