/**
 * The deploy ledger end to end, through the built CLI against the emulator on loopback, in a git
 * repository: apply v1 (commit c1), change the prompt, apply v2 (commit c2), roll back to the
 * previous configuration, and read the history — with its JSON checked against
 * schemas/history.schema.json, its hashes against the service's stored agents, and the planted
 * secrets against every byte of output and of the history folder.
 *
 * Each test runs the command it is about (a rollback, the apply or history it names) as a process of
 * its own; the applies that only bring the service to where the test starts, and the history, plan
 * and drift runs that only read back ids or confirm convergence, run in the test's process
 * (`cliInProcess`: the same commands, secrets and redaction), a CLI start-up each saved.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { afterEach, describe, expect, it } from 'vitest';
import { configurationHash } from '../../src/history/config-hash.js';
import type { Agent } from '../../src/schema/types.gen.js';
import { repoRoot, type CliResult } from '../helpers/cli.js';
import { commitAll, git } from '../helpers/git.js';
import { callService, SECRETS, startExampleProject, type ExampleProject } from '../helpers/project.js';

const addFormats = addFormatsModule.default;
const FRONT_DESK = '-OKdqbqetEcM4ak369ym';
const BOOKING = '-OKdqbqetEcM4ak369yn';

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

async function commitIgnoringState(dir: string, message: string): Promise<string> {
  await writeFile(path.join(dir, '.gitignore'), '.voxform/\n');
  if (!existsSync(path.join(dir, '.git'))) git(dir, 'init', '-q', '-b', 'main');
  return commitAll(dir, message);
}

/** The command a rollback prints to keep it in git. */
function keepCommand(stdout: string): string {
  const command = /^To keep it, put back the manifests and the files they read as commit [0-9a-f]{12} had them, as one commit: (.+)$/m.exec(stdout)?.[1];
  expect(command, stdout).toBeDefined();
  return command as string;
}

/** `command` pasted into a POSIX shell in `dir`, as the user would: its exit code and output. */
function paste(dir: string, command: string): { code: number; output: string } {
  const env = { PATH: process.env.PATH ?? '', HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Test', GIT_AUTHOR_EMAIL: 'test@example.com', GIT_COMMITTER_NAME: 'Test', GIT_COMMITTER_EMAIL: 'test@example.com' };
  const result = spawnSync('sh', ['-c', command], { cwd: dir, env, encoding: 'utf8' });
  return { code: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
}

/** After the pasted line, the manifests say what the rollback restored: a plan has nothing to do. */
async function expectKeptInGit(p: ExampleProject, rollbackStdout: string): Promise<void> {
  const pasted = paste(p.dir, keepCommand(rollbackStdout));
  expect(pasted.code, pasted.output).toBe(0);
  const plan = await p.cliInProcess(['plan', '--detailed-exitcode']);
  expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  expect(git(p.dir, 'status', '--porcelain')).toBe('');
}

async function editFile(file: string, edit: (text: string) => string): Promise<void> {
  await writeFile(file, edit(await readFile(file, 'utf8')));
}

async function getAgent(p: ExampleProject, id: string): Promise<Agent> {
  return (await callService(p, 'GET', `/agents/${encodeURIComponent(id)}`)) as Agent;
}

function expectOk(result: CliResult): CliResult {
  expect(result.stderr).not.toMatch(/^error/m);
  expect(result.code).toBe(0);
  return result;
}

async function historyFiles(p: ExampleProject): Promise<string> {
  const dir = path.join(p.dir, '.voxform/history');
  const names = await readdir(dir);
  return (await Promise.all(names.map((name) => readFile(path.join(dir, name), 'utf8')))).join('\n');
}

function expectNoSecret(text: string): void {
  for (const secret of Object.values(SECRETS)) expect(text).not.toContain(secret);
}

async function compileHistorySchema() {
  const ajv = new Ajv2020({ allErrors: true, strict: true, allowUnionTypes: true });
  addFormats(ajv);
  ajv.addKeyword({ keyword: 'enumDescriptions', schemaType: 'array' });
  return ajv.compile(JSON.parse(await readFile(path.join(repoRoot, 'schemas/history.schema.json'), 'utf8')));
}

type JsonRecord = {
  id: string;
  command: string;
  outcome: string;
  source: { commit: string | null; branch: string | null; rollback_of: string | null };
  agents_changed: string[];
  agents: Record<string, { id: string; config: Record<string, unknown>; config_hash: string; masked_paths: string[]; prompt_length: number | null }>;
};

/** Every recorded agent's hash is the hash of what the service stores for it now. */
async function expectHashesMatchService(p: ExampleProject, record: JsonRecord): Promise<void> {
  for (const version of Object.values(record.agents)) {
    const live = await getAgent(p, version.id);
    expect(version.config_hash).toBe(configurationHash(live.config as Record<string, unknown>, { maskPaths: version.masked_paths }));
    expect(version.prompt_length).toBe(live.config.prompt?.length);
  }
}

describe('history and rollback', () => {
  it('apply v1, apply v2, rollback previous: the agent is v1 again and the history shows three records with their commits', async () => {
    const p = (project = await startExampleProject());
    const c1 = await commitIgnoringState(p.dir, 'v1');
    const outputs: string[] = [];
    const kept = (result: CliResult) => {
      expectOk(result);
      outputs.push(result.stdout, result.stderr);
      return result;
    };
    const run = async (args: string[]) => kept(await p.cli(args));
    const runInProcess = async (args: string[]) => kept(await p.cliInProcess(args));
    await runInProcess(['apply', '--auto-approve']);
    const v1Prompt = (await getAgent(p, FRONT_DESK)).config.prompt;
    const first = JSON.parse((await runInProcess(['history', '--format', 'json'])).stdout).records[0] as JsonRecord;
    await expectHashesMatchService(p, first);

    const promptFile = path.join(p.dir, 'example/prompts/front-desk.md');
    await writeFile(promptFile, `${await readFile(promptFile, 'utf8')}\n- Always end politely.\n`);
    const c2 = await commitIgnoringState(p.dir, 'v2');
    await runInProcess(['apply', '--auto-approve']);
    expect((await getAgent(p, FRONT_DESK)).config.prompt).not.toBe(v1Prompt);

    const rollback = await run(['rollback', 'previous', '--auto-approve']);
    expect(rollback.stdout).toContain(`to ${first.id}`);
    expect(rollback.stdout).toContain('~ agent.front-desk');
    expect(rollback.stdout).toContain('the next `voxform apply` of them undoes this rollback');
    const files = 'example/knowledge/faq.md example/prompts/booking.md example/prompts/front-desk.md voxform.yaml';
    expect(keepCommand(rollback.stdout)).toBe(`git restore --source=${c1.slice(0, 12)} -- ${files} && git commit -m 'Return the manifests to ${c1.slice(0, 12)}: keep the rollback to record ${first.id}' -- ${files}`);
    expect((await getAgent(p, FRONT_DESK)).config.prompt).toBe(v1Prompt);

    const printed = (await run(['history', '--format', 'json'])).stdout;
    const document = JSON.parse(printed) as { format_version: string; workspace: string; records: JsonRecord[] };
    const validate = await compileHistorySchema();
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    expect(document.workspace).toMatch(/^default@http:\/\/127\.0\.0\.1:\d+$/);
    const [third, second, firstAgain] = document.records as [JsonRecord, JsonRecord, JsonRecord];
    expect(document.records).toHaveLength(3);
    expect(firstAgain.id).toBe(first.id);
    expect([firstAgain.source.commit, second.source.commit, third.source.commit]).toEqual([c1, c2, c2]);
    expect(third.source.rollback_of).toBe(first.id);
    expect(third.command).toBe('voxform rollback previous');
    expect(second.agents_changed).toEqual(['front-desk']);
    expect(third.agents_changed).toEqual(['front-desk']);
    expect(third.agents['front-desk']?.config_hash).toBe(first.agents['front-desk']?.config_hash);
    await expectHashesMatchService(p, third);
    const header = second.agents['front-desk']?.config.session_data_webhook as { headers: Record<string, string> };
    expect(header.headers['x-hook-token']).toBe('${env:HOOK_TOKEN:-local-dev-token}');

    const text = (await runInProcess(['history'])).stdout;
    expect(text).toContain(`commit ${c2.slice(0, 7)} on`);
    expect(text).toContain(`rollback to ${first.id}`);
    expect((await runInProcess(['history', '--limit', '1'])).stdout.match(/^\d{8}T/gm)).toHaveLength(1);

    // The manifest in git still wins: the next plan wants v2 back.
    expect((await p.cliInProcess(['plan', '--detailed-exitcode'])).code).toBe(2);
    expectNoSecret([...outputs, printed, text, await historyFiles(p)].join('\n'));
    // Unless the files are put back as the commit had them, as the rollback says.
    await expectKeptInGit(p, rollback.stdout);
  }, 120_000);

  it('with .voxform/ committed after each apply (docs/ci.md), the printed line puts back the manifests and prompt of the restored commit alone: the history keeps both records', async () => {
    const p = (project = await startExampleProject());
    // Everything but the local account, state and history included, as docs/ci.md commits it.
    const commitWithState = (message: string): string => commitAll(p.dir, message);
    await writeFile(path.join(p.dir, '.gitignore'), '.voxform/local.json\n');
    git(p.dir, 'init', '-q', '-b', 'main');
    const c1 = commitWithState('v1');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    commitWithState('state [skip ci]');
    await editFile(path.join(p.dir, 'example/prompts/front-desk.md'), (text) => `${text}\n- Always end politely.\n`);
    await editFile(path.join(p.dir, 'voxform.yaml'), (text) => text.replace('temperature: 0.4', 'temperature: 0.3'));
    commitWithState('v2');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    commitWithState('state [skip ci]');
    const [second, first] = JSON.parse(expectOk(await p.cliInProcess(['history', '--format', 'json'])).stdout).records as JsonRecord[];

    const rollback = expectOk(await p.cli(['rollback', 'previous', '--auto-approve']));
    expect(rollback.stdout).toContain(`to ${first!.id}`);
    const pasted = paste(p.dir, keepCommand(rollback.stdout));
    expect(pasted.code, pasted.output).toBe(0);

    const ids = (JSON.parse(expectOk(await p.cliInProcess(['history', '--format', 'json'])).stdout).records as JsonRecord[]).map((record) => record.id);
    expect(ids).toHaveLength(3);
    expect(ids.slice(1)).toEqual([second!.id, first!.id]);
    for (const file of ['voxform.yaml', 'example/prompts/front-desk.md']) {
      expect(await readFile(path.join(p.dir, file), 'utf8')).toBe(git(p.dir, 'show', `${c1}:${file}`) + '\n');
    }
    // Only what the rollback itself wrote is left to commit: its state and its record.
    const left = git(p.dir, 'ls-files', '--modified', '--others', '--exclude-standard').split('\n');
    expect(left.filter((file) => !file.startsWith('.voxform/')), left.join('\n')).toEqual([]);
    expect(git(p.dir, 'diff', '--cached', '--name-only')).toBe('');
    expect(git(p.dir, 'diff', '--name-only', 'HEAD~1', 'HEAD').split('\n').sort()).toEqual(['example/prompts/front-desk.md', 'voxform.yaml']);
    const plan = await p.cliInProcess(['plan', '--detailed-exitcode']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
  }, 120_000);

  it('two commits fast-forwarded into main and applied, then a rollback to the commit before: the printed line undoes both', async () => {
    const p = (project = await startExampleProject());
    const c1 = await commitIgnoringState(p.dir, 'v1');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    git(p.dir, 'checkout', '-q', '-b', 'tuning');
    await editFile(path.join(p.dir, 'example/prompts/front-desk.md'), (text) => `${text}\n- Always end politely.\n`);
    await commitIgnoringState(p.dir, 'A: the prompt');
    await editFile(path.join(p.dir, 'voxform.yaml'), (text) => text.replace('temperature: 0.4', 'temperature: 0.3'));
    await commitIgnoringState(p.dir, 'B: the temperature');
    git(p.dir, 'checkout', '-q', 'main');
    git(p.dir, 'merge', '-q', '--ff-only', 'tuning');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));

    const rollback = expectOk(await p.cli(['rollback', c1.slice(0, 7), '--auto-approve']));
    expect(keepCommand(rollback.stdout)).toContain(`git restore --source=${c1.slice(0, 12)} -- `);
    await expectKeptInGit(p, rollback.stdout);
  }, 120_000);

  it('a merge commit applied, then rollback previous: the printed line returns to main before the merge and works as pasted', async () => {
    const p = (project = await startExampleProject());
    const c1 = await commitIgnoringState(p.dir, 'v1');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    git(p.dir, 'checkout', '-q', '-b', 'polite');
    await editFile(path.join(p.dir, 'example/prompts/front-desk.md'), (text) => `${text}\n- Always end politely.\n`);
    await commitIgnoringState(p.dir, 'the prompt');
    git(p.dir, 'checkout', '-q', 'main');
    await editFile(path.join(p.dir, 'voxform.yaml'), (text) => text.replace('temperature: 0.4', 'temperature: 0.3'));
    await commitIgnoringState(p.dir, 'the temperature');
    git(p.dir, 'merge', '-q', '--no-ff', '-m', 'Merge polite', 'polite');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));

    const rollback = expectOk(await p.cli(['rollback', 'previous', '--auto-approve']));
    expect(keepCommand(rollback.stdout)).toContain(`git restore --source=${c1.slice(0, 12)} -- `);
    await expectKeptInGit(p, rollback.stdout);
  }, 120_000);

  it('an apply with the prompt edited but not committed says so; a rollback to the commit returns to what was committed', async () => {
    const p = (project = await startExampleProject());
    const c1 = await commitIgnoringState(p.dir, 'v1');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    const v1Prompt = (await getAgent(p, FRONT_DESK)).config.prompt;
    const promptFile = path.join(p.dir, 'example/prompts/front-desk.md');
    await writeFile(promptFile, `${await readFile(promptFile, 'utf8')}\n- Not committed yet.\n`);
    expectOk(await p.cli(['apply', '--auto-approve']));
    expect((await getAgent(p, FRONT_DESK)).config.prompt).toContain('Not committed yet.');

    const text = expectOk(await p.cliInProcess(['history', '--limit', '1'])).stdout;
    expect(text).toContain(`commit ${c1.slice(0, 7)} with uncommitted changes on main`);
    const rollback = expectOk(await p.cli(['rollback', c1.slice(0, 7), '--auto-approve']));
    // The apply of the commit alone, not the newer one with the edit.
    expect(rollback.stdout).toContain(`, commit ${c1.slice(0, 7)} on main).`);
    expect((await getAgent(p, FRONT_DESK)).config.prompt).toBe(v1Prompt);

    const document = JSON.parse(expectOk(await p.cliInProcess(['history', '--format', 'json'])).stdout) as { records: Array<JsonRecord & { source: { uncommitted: boolean | null } }> };
    const validate = await compileHistorySchema();
    expect(validate(document), JSON.stringify(validate.errors)).toBe(true);
    // Newest first: the rollback (its configuration is a record's, not the work tree's), the edited apply, the clean one.
    expect(document.records.map((record) => [record.source.commit, record.source.uncommitted])).toEqual([
      [c1, null],
      [c1, true],
      [c1, false],
    ]);
  }, 120_000);

  it('a failed apply records no configuration it did not apply: rollback previous then returns to the version before the live one', async () => {
    const p = (project = await startExampleProject());
    const promptFile = path.join(p.dir, 'example/prompts/front-desk.md');
    const v1 = await readFile(promptFile, 'utf8');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    const v1Prompt = (await getAgent(p, FRONT_DESK)).config.prompt;
    await writeFile(promptFile, `${v1}\n- Version 2.\n`);
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    const v2Prompt = (await getAgent(p, FRONT_DESK)).config.prompt;
    await writeFile(promptFile, `${v1}\n- Version 3.\n`);
    p.emulator.control.setFaults([{ path: '/agents/*', method: 'PUT', errorRate: 1, errorStatus: 500 }]);
    const failed = await p.cli(['apply', '--auto-approve']);
    p.emulator.control.clearFaults();
    expect(failed.code).toBe(1);
    expect((await getAgent(p, FRONT_DESK)).config.prompt).toBe(v2Prompt);

    const [failedRecord, v2Record, v1Record] = JSON.parse(expectOk(await p.cliInProcess(['history', '--format', 'json'])).stdout).records as JsonRecord[];
    expect(failedRecord?.outcome).toBe('failed');
    expect(failedRecord?.agents['front-desk']).toBeUndefined();
    expect(failedRecord?.agents_changed).toEqual([]);
    expect(v2Record?.agents_changed).toContain('front-desk');

    const rollback = expectOk(await p.cli(['rollback', 'previous', '--auto-approve']));
    expect(rollback.stdout).toContain(`to ${v1Record?.id}`);
    expect(rollback.stdout).toContain('~ agent.front-desk');
    expect((await getAgent(p, FRONT_DESK)).config.prompt).toBe(v1Prompt);
  }, 120_000);

  it('a --target apply records no agent it left out unless it holds its manifest: rollback previous then changes the target alone', async () => {
    const p = (project = await startExampleProject());
    const manifest = path.join(p.dir, 'voxform.yaml');
    // The front desk as the service holds it before any apply: not its manifest's configuration.
    const frontDesk = (await getAgent(p, FRONT_DESK)).config;
    expectOk(await p.cli(['apply', '--auto-approve', '--target', 'agent.booking']));
    const first = JSON.parse(expectOk(await p.cliInProcess(['history', '--format', 'json', '--limit', '1'])).stdout).records[0] as JsonRecord;
    expect(Object.keys(first.agents)).toEqual(['booking']);
    expect(first.agents_changed).toEqual(['booking']);

    const text = await readFile(manifest, 'utf8');
    await writeFile(manifest, text.replace('Hi! I can help you book', 'Hello! I can help you book'));
    expectOk(await p.cliInProcess(['apply', '--auto-approve', '--target', 'agent.booking']));
    const rollback = expectOk(await p.cli(['rollback', 'previous', '--auto-approve']));
    expect(rollback.stdout).toContain(`Rolling back booking to ${first.id}`);
    expect(rollback.stdout).not.toContain('front-desk');
    expect((await getAgent(p, FRONT_DESK)).config).toEqual(frontDesk);
    expect((await getAgent(p, BOOKING)).config.first_message).toBe('Hi! I can help you book, move or cancel an appointment.');

    // Once the front desk holds its manifest, a --target apply of the booking agent records it as it is, unchanged.
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    await writeFile(manifest, text.replace('Hi! I can help you book', 'Hey! I can help you book'));
    expectOk(await p.cli(['apply', '--auto-approve', '--target', 'agent.booking']));
    const [targeted, full] = JSON.parse(expectOk(await p.cliInProcess(['history', '--format', 'json', '--limit', '2'])).stdout).records as JsonRecord[];
    expect(Object.keys(targeted!.agents).sort()).toEqual(['booking', 'front-desk']);
    expect(targeted!.agents['front-desk']).toEqual(full!.agents['front-desk']);
    expect(targeted!.agents_changed).toEqual(['booking']);
    await expectHashesMatchService(p, targeted!);
  }, 120_000);

  it('after a heal of one agent and an apply of both, rollback previous returns both agents to the apply before, not a mix', async () => {
    const p = (project = await startExampleProject());
    const c1 = await commitIgnoringState(p.dir, 'v1');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    const v1 = JSON.parse(expectOk(await p.cliInProcess(['history', '--format', 'json'])).stdout).records[0] as JsonRecord;
    const v1Messages = [(await getAgent(p, FRONT_DESK)).config.first_message, (await getAgent(p, BOOKING)).config.first_message];
    // Front desk changed on the dashboard, then healed back to what v1 recorded: the heal holds front desk alone.
    await callService(p, 'PUT', `/agents/${FRONT_DESK}`, { name: 'Front desk', config: { first_message: 'Dashboard hello' } });
    expectOk(await p.cliInProcess(['drift', '--heal', '--auto-approve']));
    const manifestFile = path.join(p.dir, 'voxform.yaml');
    const manifest = (await readFile(manifestFile, 'utf8'))
      .replace('first_message: Thanks for calling Acme Dental, this is Ava. How can I help you today?', 'first_message: Front desk v2.')
      .replace('first_message: Hi! I can help you book, move or cancel an appointment.', 'first_message: Booking v2.');
    await writeFile(manifestFile, manifest);
    await commitIgnoringState(p.dir, 'v2');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));

    const rollback = expectOk(await p.cli(['rollback', 'previous', '--auto-approve']));
    expect(rollback.stdout).toContain(`to ${v1.id} (`);
    expect(keepCommand(rollback.stdout)).toContain(`git restore --source=${c1.slice(0, 12)} -- `);
    expect([(await getAgent(p, FRONT_DESK)).config.first_message, (await getAgent(p, BOOKING)).config.first_message]).toEqual(v1Messages);
  }, 120_000);

  it('a rollback that fails names the rollback to run again, by record id, not `voxform apply`; run, it finishes', async () => {
    const p = (project = await startExampleProject());
    const promptFile = path.join(p.dir, 'example/prompts/front-desk.md');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    const v1Prompt = (await getAgent(p, FRONT_DESK)).config.prompt;
    await writeFile(promptFile, `${await readFile(promptFile, 'utf8')}\n- Version 2.\n`);
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    const [, v1Record] = JSON.parse(expectOk(await p.cliInProcess(['history', '--format', 'json'])).stdout).records as JsonRecord[];

    p.emulator.control.setFaults([{ path: '/agents/*', method: 'PUT', errorRate: 1, errorStatus: 500 }]);
    const failed = await p.cli(['rollback', 'previous', '--agent', 'front-desk', '--auto-approve']);
    p.emulator.control.clearFaults();
    expect(failed.code).toBe(1);
    const again = `voxform rollback ${v1Record?.id} --agent front-desk`;
    expect(failed.stdout).toContain(`run \`${again}\` again to finish.`);
    expect(failed.stdout).not.toContain('`voxform apply` again');
    expect((await getAgent(p, FRONT_DESK)).config.prompt).not.toBe(v1Prompt);

    expectOk(await p.cli(again.split(' ').slice(1).concat('--auto-approve')));
    expect((await getAgent(p, FRONT_DESK)).config.prompt).toBe(v1Prompt);
  }, 120_000);

  it('a rollback under a new API key keeps the files the agent has recorded: files detached later are told as changed outside voxform', async () => {
    const p = (project = await startExampleProject());
    await commitIgnoringState(p.dir, 'v1');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    await editFile(path.join(p.dir, 'example/prompts/front-desk.md'), (text) => `${text}\n- Always end politely.\n`);
    await commitIgnoringState(p.dir, 'v2');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    const key = ((await callService(p, 'POST', '/api_keys', { type: 'private' })) as { key: string }).key;
    expectOk(await p.cli(['rollback', 'previous', '--agent', 'front-desk', '--auto-approve'], { VOXFORM_API_KEY: key }));
    // The dashboard detaches the file.
    await callService(p, 'POST', '/knowledge/set_agent_files', { agent_id: FRONT_DESK, files: [] });
    const drift = await p.cli(['drift'], { VOXFORM_API_KEY: key });
    expect(drift.stdout).toContain('! knowledge.faq changed outside voxform (no agent lists it any more)');
    expect(drift.stdout).toMatch(/~ knowledge \[changed outside voxform\]: \[\] → /);
    expect(drift.stdout).not.toMatch(/~ knowledge \[in git, not applied yet\]/);
  }, 120_000);

  it('refuses an unknown REF, an agent the record lacks and a variable that is not set: exit 1, nothing applied', async () => {
    const p = (project = await startExampleProject());
    const manifestFile = path.join(p.dir, 'voxform.yaml');
    const manifest = await readFile(manifestFile, 'utf8');
    await writeFile(manifestFile, manifest.replace('${env:HOOK_TOKEN:-local-dev-token}', '${env:HOOK_TOKEN}'));
    await commitIgnoringState(p.dir, 'v1');
    expectOk(await p.cliInProcess(['apply', '--auto-approve']));
    // v2 reads another variable: v1's is no longer needed by the manifests, only by the record.
    await writeFile(manifestFile, manifest.replace('${env:HOOK_TOKEN:-local-dev-token}', '${env:NEW_HOOK_TOKEN}'));
    await commitIgnoringState(p.dir, 'v2');
    const env = { NEW_HOOK_TOKEN: 'new-hook-secret-5e6f7a8b' };
    expectOk(await p.cliInProcess(['apply', '--auto-approve'], env));
    const before = p.requests.length;

    const unknown = await p.cli(['rollback', 'deadbeef', '--auto-approve'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No history record of this workspace is "deadbeef"');
    const agent = await p.cli(['rollback', 'previous', '--agent', 'reception', '--auto-approve'], env);
    expect(agent.code).toBe(1);
    expect(agent.stderr).toMatch(/agent "reception"[\s\S]*booking, front-desk/);
    const missing = await p.cli(['rollback', 'previous', '--auto-approve'], { ...env, HOOK_TOKEN: undefined } as unknown as Record<string, string>);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('cannot be restored');
    expect(missing.stderr).toContain('HOOK_TOKEN');
    expect(p.requests.slice(before).filter((r) => r.method !== 'GET')).toEqual([]);
    const restored = await p.cliInProcess(['rollback', 'previous', '--auto-approve'], { ...env, HOOK_TOKEN: SECRETS.HOOK_TOKEN });
    expectOk(restored);
    const live = await getAgent(p, FRONT_DESK);
    expect((live.config.session_data_webhook as { headers: Record<string, string> }).headers['x-hook-token']).toBe(SECRETS.HOOK_TOKEN);
    expectNoSecret([unknown, agent, missing, restored].map((r) => r.stdout + r.stderr).join('\n') + (await historyFiles(p)));
    expect(await historyFiles(p)).not.toContain('new-hook-secret-5e6f7a8b');
  }, 120_000);
});
