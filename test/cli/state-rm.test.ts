/**
 * `voxform state rm WORKSPACE`: a project that moved to environments retires the default workspace,
 * whose claims otherwise refuse production's every change (shared_resource_conflict). The state goes;
 * the deploy history stays; the service is never contacted.
 */
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import type { StopAtOnce } from '../../src/cli/context.js';
import { askYesNo } from '../../src/cli/confirm.js';
import { STAGING_FRONT_DESK_ID } from '../../src/emulator/default-seed.js';
import { runCommandLine } from '../../src/cli/run-command.js';
import { acquireStateLock } from '../../src/state/lock.js';
import { runCliInProcess, useTempDirs } from '../helpers/cli.js';
import { makeContext } from '../helpers/context.js';
import { freshDatabase } from '../helpers/postgres.js';

const tempDir = useTempDirs();

const MANIFEST = ['version: 1', 'agents:', '  front-desk:', '    id: -OKdqbqetEcM4ak369ym', '    config: { first_message: Hello one }', ''].join('\n');

const cli = (cwd: string, ...args: string[]) => runCliInProcess(args, { cwd });

/** A project applied without --env, then split into environments as docs/promotion.md says, production applied once. */
async function projectMovedToEnvironments(state: string[] = []): Promise<string> {
  const cwd = await tempDir({ 'voxform.yaml': MANIFEST });
  expect((await cli(cwd, 'apply', '--local', '--auto-approve', ...state)).code).toBe(0);
  await writeFile(path.join(cwd, 'voxform.yaml'), `${MANIFEST}environments:\n  production: {}\n`);
  expect((await cli(cwd, 'apply', '--local', '--env', 'production', '--auto-approve', ...state)).code).toBe(0);
  await writeFile(path.join(cwd, 'voxform.yaml'), `${MANIFEST.replace('Hello one', 'Hello two')}environments:\n  production: {}\n`);
  return cwd;
}

describe('voxform state rm', () => {
  it("retires the default workspace of a project moved to environments: production's next plan goes ahead, the history stays", async () => {
    const cwd = await projectMovedToEnvironments();
    const refused = await cli(cwd, 'plan', '--local', '--env', 'production');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error[shared_resource_conflict]: voxform.yaml:3:3: agent.front-desk: the last apply of the default environment (no --env) set config.first_message');
    expect(refused.stderr).toContain(
      'If no one applies the default environment (no --env) any more, `voxform state rm default@local` forgets what its last apply set, claims included (its deploy history is kept; nothing on the service changes).',
    );

    const removed = await cli(cwd, 'state', 'rm', 'default@local', '--force');
    expect(removed.stderr).toBe('');
    expect(removed.code).toBe(0);
    expect(removed.stdout).toContain(
      'Removed the state of workspace default@local from .voxform/state.json: its records of 1 agent, 0 phones, 0 campaigns, 0 knowledge files, 0 credentials, and with them its claims on what other environments of the service share with it. Nothing on the service changed.\n',
    );
    expect(removed.stdout).toMatch(/Its deploy history is kept \(the last record \S+, at \S+\): `voxform history` and rollbacks of this workspace read it/);
    expect(removed.stdout).toContain('Should a run without --env against local plan again, the plan starts from nothing applied and warns that the state lost the workspace; apply then refuses (state_missing) unless given --allow-missing-state');

    const plan = await cli(cwd, 'plan', '--local', '--env', 'production');
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(plan.stdout).toContain('config.first_message: "Hello one" → "Hello two"');
    expect((await cli(cwd, 'apply', '--local', '--env', 'production', '--auto-approve')).code).toBe(0);

    const list = await cli(cwd, 'state', 'list', '--format', 'json');
    expect(JSON.parse(list.stdout).workspaces.map((w: { workspace: string }) => w.workspace)).toEqual(['production@local']);
    const history = JSON.parse((await cli(cwd, 'history', '--local', '--format', 'json')).stdout) as { records: unknown[] };
    expect(history.records).toHaveLength(1);
    // What the command said of a later run of the default workspace is what happens.
    expect((await cli(cwd, 'plan', '--local')).stdout).toContain('Warning: the state (.voxform/state.json) holds nothing of workspace default@local, though its history records applies of it');
    const apply = await cli(cwd, 'apply', '--local', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('error[state_missing]');
  });

  it("the refusal's `state rm` carries the --state typed: pasted, it removes from that state, not the default file", async () => {
    const state = ['--state', 'team-state.json'];
    const cwd = await projectMovedToEnvironments(state);
    const advice = (stateFlag: string) => `If no one applies the default environment (no --env) any more, \`voxform state rm default@local${stateFlag}\` forgets what its last apply set`;
    for (const command of [['plan'], ['apply', '--auto-approve']]) {
      const refused = await cli(cwd, ...command, '--local', '--env', 'production', ...state);
      expect(refused.code, command[0]).toBe(1);
      expect(refused.stderr, command[0]).toContain(advice(' --state team-state.json'));
    }
    // VOXFORM_STATE stays in the environment: the line leaves --state out.
    const fromEnvironment = await runCliInProcess(['plan', '--local', '--env', 'production'], { cwd, env: { VOXFORM_STATE: 'team-state.json' } });
    expect(fromEnvironment.stderr).toContain(advice(''));
  });

  it("a rollback refused for another environment's claims names its commands with the --state typed, as plan's and apply's do", async () => {
    const state = ['--state', 'team-state.json'];
    const cwd = await projectMovedToEnvironments(state);
    // Production's one record holds "Hello one"; the default environment then takes the agent with "Hello two".
    expect((await cli(cwd, 'apply', '--local', '--take-over', 'agent.front-desk', '--auto-approve', ...state)).code).toBe(0);
    const [record] = (JSON.parse((await cli(cwd, 'history', '--local', '--env', 'production', '--format', 'json', ...state)).stdout) as { records: Array<{ id: string }> }).records;
    const refused = await cli(cwd, 'rollback', record!.id, '--local', '--env', 'production', '--auto-approve', ...state);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('error[shared_resource_conflict]: ');
    const words = '--take-over agent.front-desk --env production --local --state team-state.json';
    expect(refused.stderr).toContain(`\`voxform rollback\` takes no --take-over: review \`voxform plan ${words}\`, then run \`voxform apply ${words}\`.`);
    expect(refused.stderr).toContain('`voxform state rm default@local --state team-state.json` forgets what its last apply set');
  });

  it('on PostgreSQL too', async () => {
    const { url } = await freshDatabase();
    const cwd = await projectMovedToEnvironments(['--state', url]);
    expect((await cli(cwd, 'state', 'rm', 'default@local', '--force', '--state', url)).stdout).toContain('Removed the state of workspace default@local from postgres://');
    const plan = await cli(cwd, 'plan', '--local', '--env', 'production', '--state', url);
    expect(plan.stderr).toBe('');
    expect(plan.code).toBe(0);
    expect(JSON.parse((await cli(cwd, 'history', '--local', '--format', 'json', '--state', url)).stdout).records).toHaveLength(1);
  });

  it("a removed environment's later runs name `state rm` as a cause of the missing state; the others warn of nothing", async () => {
    const overlays = `environments:\n  staging: { agents: { front-desk: { id: ${STAGING_FRONT_DESK_ID} } } }\n  production: {}\n`;
    const cwd = await tempDir({ 'voxform.yaml': `${MANIFEST}${overlays}` });
    for (const environment of ['staging', 'production']) expect((await cli(cwd, 'apply', '--local', '--env', environment, '--auto-approve')).code).toBe(0);
    expect((await cli(cwd, 'state', 'rm', 'staging@local', '--force')).code).toBe(0);
    await writeFile(path.join(cwd, 'voxform.yaml'), `${MANIFEST.replace('Hello one', 'Hello two')}${overlays}`);

    const cause = 'the state was deleted, reset or is not the one those applies wrote, or the workspace was removed with `voxform state rm`.';
    const advice = 'Restore the state (from version control or your CI cache, or name it with --state (or VOXFORM_STATE)) before `voxform apply`, unless the workspace was removed on purpose:';
    for (const command of ['plan', 'drift']) {
      const text = (await cli(cwd, command, '--local', '--env', 'staging')).stdout;
      expect(text, command).toContain(`holds nothing of workspace staging@local, though its history records applies of it (the last `);
      expect(text, command).toContain(cause);
      expect(text, command).toContain(advice);
      const markdown = (await cli(cwd, command, '--local', '--env', 'staging', '--format', 'markdown')).stdout;
      expect(markdown, command).toContain('or the workspace was removed with `voxform state rm`.');
    }
    const status = await cli(cwd, 'status', '--local', '--env', 'staging');
    expect(status.stdout).toMatch(/^State: +\.voxform\/state\.json \(lost, or removed with `voxform state rm`: it holds nothing of workspace staging@local, though its history records applies of it; unless removed on purpose, restore it/m);
    const apply = await cli(cwd, 'apply', '--local', '--env', 'staging', '--auto-approve');
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain(cause);
    expect(apply.stderr).toContain('To apply without it on purpose (a workspace removed with `voxform state rm`, or the service emptied), pass --allow-missing-state');

    for (const command of ['plan', 'drift', 'status', 'history']) {
      const production = await cli(cwd, command, '--local', '--env', 'production');
      expect(production.stdout + production.stderr, command).not.toMatch(/holds nothing of workspace|Restore the state|restore it/);
    }
  });

  it('refuses a workspace the backend does not hold, naming those it holds', async () => {
    const cwd = await projectMovedToEnvironments();
    const unknown = await cli(cwd, 'state', 'rm', 'staging@local', '--force');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe('error[workspace_unknown]: .voxform/state.json holds no workspace staging@local.\n  hint: Workspaces: default@local, production@local.\n');
  });

  it('refuses while the lock is held, naming the holder; nothing is removed', async () => {
    const cwd = await projectMovedToEnvironments();
    const stateFile = path.join(cwd, '.voxform/state.json');
    const before = await readFile(stateFile, 'utf8');
    const lock = await acquireStateLock(stateFile, { command: 'voxform apply (hung)', timeoutSeconds: 0, warn: () => undefined });
    try {
      const refused = await cli(cwd, 'state', 'rm', 'default@local', '--force', '--state', '.voxform/state.json');
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain(`error[state_locked]: The state file ${stateFile} is locked by `);
      // Both commands of the hint paste as they are: the workspace, --force and --state as typed.
      expect(refused.stderr).toContain(
        `hint: Wait for it to finish, then run \`voxform state rm --force default@local --state .voxform/state.json\` again. If that run hangs or no longer runs, \`voxform state unlock --force ${lock.lockId} --state .voxform/state.json\` opens the lock.`,
      );
    } finally {
      await lock.release();
    }
    expect(await readFile(stateFile, 'utf8')).toBe(before);
  });

  it('asks on a terminal (only "yes" removes), and needs --force without one', async () => {
    const cwd = await projectMovedToEnvironments();
    const stateFile = path.join(cwd, '.voxform/state.json');
    const before = await readFile(stateFile, 'utf8');
    const noTerminal = await cli(cwd, 'state', 'rm', 'default@local');
    expect(noTerminal.code).toBe(1);
    expect(noTerminal.stderr).toBe(
      'error[approval_required]: Refusing to remove the state of workspace default@local without approval: there is no terminal to ask on.\n  hint: Pass --force: `voxform state rm --force default@local`.\n',
    );

    const asked: string[] = [];
    const declined = makeContext({ cwd, confirm: async (question) => (asked.push(question), false) });
    expect(await runCommandLine(['state', 'rm', 'default@local'], declined.ctx)).toBe(1);
    await declined.close();
    expect(asked).toEqual([
      'Remove the state of workspace default@local (1 agent, 0 phones, 0 campaigns, 0 knowledge files, 0 credentials) from .voxform/state.json? Its deploy history is kept; nothing on the service changes.',
    ]);
    expect(declined.captured.stderr).toBe('Nothing was removed.\n');
    expect(await readFile(stateFile, 'utf8')).toBe(before);

    const accepted = makeContext({ cwd, confirm: async () => true });
    expect(await runCommandLine(['state', 'rm', 'default@local'], accepted.ctx)).toBe(0);
    await accepted.close();
    expect(accepted.captured.stdout).toContain('Removed the state of workspace default@local');
    expect(Object.keys(JSON.parse(await readFile(stateFile, 'utf8')).workspaces)).toEqual(['production@local']);
  });

  it('Ctrl-C at the question removes nothing and says so, exit 130; a signal meanwhile says the same', async () => {
    const cwd = await projectMovedToEnvironments();
    const stateFile = path.join(cwd, '.voxform/state.json');
    const before = await readFile(stateFile, 'utf8');
    let atQuestion: StopAtOnce | undefined;
    let leaves: StopAtOnce | undefined;
    // The real prompt, on a stream driven as a terminal (raw keys), answered with Ctrl-C.
    const input = new PassThrough();
    const confirm = (question: string) => {
      atQuestion = leaves;
      const answer = askYesNo(question, { input, output: new PassThrough(), terminal: true });
      setImmediate(() => input.write('\x03'));
      return answer;
    };
    const stopped = makeContext({ cwd, confirm });
    stopped.ctx.stopLeaves = (atOnce) => void (leaves = atOnce);
    expect(await runCommandLine(['state', 'rm', 'default@local', '--state', '.voxform/state.json'], stopped.ctx)).toBe(130);
    await stopped.close();
    expect(stopped.captured.stderr).toBe('Nothing was removed.\n');
    expect(await readFile(stateFile, 'utf8')).toBe(before);
    // What a signal while the question is asked stops the run with (its error: "voxform stopped at your request; nothing was removed.").
    expect(atQuestion).toEqual({ leftUndone: 'nothing was removed', hint: 'Run `voxform state rm default@local --state .voxform/state.json` to remove the state of workspace default@local.' });
  });
});
