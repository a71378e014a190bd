/** `voxform state …` on the file backend (PostgreSQL: test/e2e/postgres-state.test.ts). */
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import type { GracefulStop } from '../../src/cli/context.js';
import { runCommandLine } from '../../src/cli/run-command.js';
import { acquireStateLock } from '../../src/state/lock.js';
import { osUser } from '../../src/util/run-identity.js';
import { startExampleProject, type ExampleProject } from '../helpers/project.js';
import { runCliInProcess, runPrinted, spawnCli, useTempDirs } from '../helpers/cli.js';
import { makeContext } from '../helpers/context.js';

/** Every key of a JSON value, at every depth. */
function keysOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(keysOf);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => [key, ...keysOf(inner)]);
}

let project: ExampleProject | undefined;
afterEach(async () => {
  await project?.close();
  project = undefined;
});

describe('voxform state (file backend)', () => {
  it('lists and shows the workspace an apply made, and refuses an unknown one naming those there are', async () => {
    project = await startExampleProject();
    const p = project;
    const empty = await p.cliInProcess(['state', 'list']);
    expect(empty.stdout).toContain('No workspace yet');
    const none = await p.cliInProcess(['state', 'show']);
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(`error[workspace_unknown]: ${path.join('.voxform', 'state.json')} holds no workspace yet.\n  hint: Nothing was applied with this backend yet: the first \`voxform apply\` makes a workspace.\n`);
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const workspace = `default@${p.url}`;
    const list = await p.cliInProcess(['state', 'list']);
    expect(list.stdout).toContain(`State: ${path.join('.voxform', 'state.json')} (file)`);
    expect(list.stdout).toMatch(new RegExp(`${workspace.replace(/[.:/]/g, '\\$&')}  serial \\d+, last apply applied at .* not locked`));
    const show = await p.cliInProcess(['state', 'show']);
    expect(show.stdout).toContain(`Workspace ${workspace}`);
    expect(show.stdout).toContain('agent.front-desk: -OKdqbqetEcM4ak369ym');
    expect(show.stdout).toContain('  Records: 2 agents, 2 phones, 1 campaign, 1 knowledge file, 1 credential\n');
    const json = JSON.parse((await p.cliInProcess(['state', 'show', workspace, '--format', 'json'])).stdout);
    expect(json).toMatchObject({ workspace, lock: null, state: { agents: { 'agent.front-desk': { id: '-OKdqbqetEcM4ak369ym' } } } });
    const unknown = await p.cliInProcess(['state', 'show', 'staging@local']);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('holds no workspace staging@local');
    expect(unknown.stderr).toContain(`Workspaces: ${workspace}.`);
  });

  it("a refused apply's unlock command names the --state it was given, and opens that lock when pasted", async () => {
    project = await startExampleProject();
    const p = project;
    const stateFile = path.join(p.dir, 'team state/s.json');
    await mkdir(path.dirname(stateFile));
    const lock = await acquireStateLock(stateFile, { command: 'voxform apply (hung)', timeoutSeconds: 0, warn: () => undefined });
    try {
      const refused = await p.cliInProcess(['apply', '--auto-approve', '--state', 'team state/s.json']);
      expect(refused.code).toBe(1);
      const unlock = /`(voxform state unlock [^`]*)` opens the lock/.exec(refused.stderr)?.[1];
      expect(unlock).toBe(`voxform state unlock --force ${lock.lockId} --state 'team state/s.json'`);
      const opened = await runPrinted(unlock ?? '', { cwd: p.dir, env: p.env });
      expect(opened.code, opened.stderr).toBe(0);
      expect(await lock.stillHeld()).toBe(false);
    } finally {
      await lock.release();
    }
  });

  it('unlock needs --force and a lock id that is held; with both it opens the lock', async () => {
    project = await startExampleProject();
    const p = project;
    const stateFile = path.join(p.dir, '.voxform/state.json');
    const lock = await acquireStateLock(stateFile, { command: 'voxform apply (hung)', timeoutSeconds: 0, warn: () => undefined });
    try {
      const list = await p.cliInProcess(['state', 'list', '--format', 'json']);
      expect(JSON.parse(list.stdout)).toMatchObject({ backend: 'file', workspaces: [] });
      const noForce = await p.cliInProcess(['state', 'unlock', lock.lockId]);
      expect(noForce.code).toBe(1);
      expect(noForce.stderr).toContain(`error[invalid_argument]: Opening someone else's lock needs --force: \`voxform state unlock --force ${lock.lockId}\`.`);
      const noForceElsewhere = await p.cliInProcess(['state', 'unlock', '--state', '.voxform/state.json', lock.lockId]);
      expect(noForceElsewhere.stderr).toContain(`needs --force: \`voxform state unlock --force --state .voxform/state.json ${lock.lockId}\`.`);
      const noForceNotAnId = await p.cliInProcess(['state', 'unlock', 'hk_planted_secret']);
      expect(noForceNotAnId.stderr).toContain('needs --force: `voxform state unlock --force LOCK_ID`.');
      expect(noForceNotAnId.stderr).not.toContain('hk_planted_secret');
      // A database URL that cannot be parsed is not read before this refusal: nothing of it is repeated, its password least of all.
      const noForceBadUrl = await p.cliInProcess(['state', 'unlock', '--state', 'postgres://u:pl#nted@db/x', lock.lockId]);
      expect(noForceBadUrl.stderr).toContain(`needs --force: \`voxform state unlock --force --state postgres://USER:PASSWORD@HOST/DATABASE ${lock.lockId}\`.`);
      expect(noForceBadUrl.stderr).not.toContain('pl#nted');
      const wrong = await p.cliInProcess(['state', 'unlock', '--force', '00000000deadbeef']);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('No lock with id 00000000deadbeef');
      // Nothing a lock id could be: said as such, the text not repeated (it may be anything typed in the wrong place).
      const notLock = await p.cliInProcess(['state', 'unlock', '--force', '3f9a\nerror[forged]: x']);
      expect(notLock.code).toBe(1);
      expect(notLock.stderr).toBe('error[invalid_argument]: The lock id given is not one: a lock id is hexadecimal, as `voxform state list` and a refused run name it (lock 3f9a2c0d11b84e7a).\n  hint: Copy the id of the lock to open from `voxform state list`.\n');
      // Empty: the command line refuses it as every empty naming value (empty-values.ts).
      const empty = await p.cliInProcess(['state', 'unlock', '--force', '']);
      expect(empty.stderr).toMatch(/^error\[invalid_argument\]: The <lock-id> given to `voxform state unlock` is empty: it takes a lock id/);
      const refused = await p.cliInProcess(['apply', '--auto-approve']);
      expect(refused.stderr).toContain(`voxform state unlock --force ${lock.lockId}`);
      // Typed in upper case, as hexadecimal may be, the id is the same lock's.
      const opened = await p.cliInProcess(['state', 'unlock', '--force', lock.lockId.toUpperCase()]);
      expect(opened.code).toBe(0);
      expect(opened.stdout).toContain(`Opened the lock ${lock.lockId} held by`);
      expect(existsSync(`${stateFile}.lock`)).toBe(false);
      expect(await lock.stillHeld()).toBe(false);
      expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    } finally {
      await lock.release();
    }
  });

  it('an apply whose lock is forced open stops, and says where its state is in the words of a file, not of a database', async () => {
    project = await startExampleProject();
    const p = project;
    p.emulator.control.setFaults([{ path: '**', latencyMs: 300 }]);
    const running = p.cliInProcess(['apply', '--auto-approve', '--parallelism', '1']);
    const lockDir = path.join(p.dir, '.voxform/state.json.lock');
    // Once a first change is applied, open the lock as an operator would.
    while (p.requests.filter((r) => r.method !== 'GET').length < 2) await delay(20);
    const holderFile = (await readdir(lockDir)).find((name) => name.startsWith('holder-')) ?? '';
    const lockId = /^holder-([0-9a-f]+)\.json$/.exec(holderFile)?.[1] ?? '';
    const job = 'https://ci.example.test/jobs/31';
    expect((await p.cliInProcess(['state', 'unlock', '--force', lockId], { VOXFORM_CI_JOB_URL: job })).code).toBe(0);
    const result = await running;
    // The operator who opened it, as `unlock` recorded itself (in process here: this process's pid).
    const by = `${osUser()}@${hostname()} (pid ${process.pid}, "voxform state unlock --force", job ${job})`;
    const at = /was forced open by .* at (\S+)\. /.exec(result.stdout)?.[1] ?? '';
    expect(result.stdout).toContain(`Apply stopped: the state lock ${lockId} was forced open by ${by} at ${at}.`);
    expect(Date.parse(at)).not.toBeNaN();
    const forced = { lockId, by: { user: osUser(), host: hostname(), pid: process.pid, command: 'voxform state unlock --force', ciJobUrl: job }, at };
    expect((await p.cliInProcess(['status'])).stdout).toContain(`Lock:        not held; last forced open: lock ${lockId} by ${by} at ${at}\n`);
    const forcedJson = { lock_id: lockId, at, by: { user: osUser(), host: hostname(), pid: process.pid, command: 'voxform state unlock --force', ci_job_url: job } };
    expect(JSON.parse((await p.cliInProcess(['status', '--format', 'json'])).stdout)).toMatchObject({ lock: { held: false }, last_forced_open: forcedJson });
    expect((await p.cliInProcess(['state', 'show'])).stdout).toContain(`  Lock: not held\n  Last forced open: lock ${lockId} by ${by} at ${at}\n`);
    expect(JSON.parse((await p.cliInProcess(['state', 'show', '--format', 'json'])).stdout)).toMatchObject({ lock: null, lastForcedOpen: forced });
    expect((await p.cliInProcess(['state', 'list'])).stdout).toContain(`; not locked; last forced open: lock ${lockId} by ${by} at ${at}\n`);
    const listed = JSON.parse((await p.cliInProcess(['state', 'list', '--format', 'json'])).stdout) as { workspaces: unknown[] };
    expect(listed.workspaces).toEqual([expect.objectContaining({ workspace: `default@${p.url}`, lock: null, last_forced_open: forcedJson })]);
    expect(result.stdout).toContain('What was recorded before the loss is in .voxform/state.json; run `voxform plan` to see where things stand, then apply again.\n');
    expect(result.stdout).not.toContain('database');
    expect(result.code).toBe(1);
  }, 90_000);

  it("an apply whose lock is forced open names, in its error's hint, the plan of its own environment and state", async () => {
    project = await startExampleProject();
    const p = project;
    await mkdir(path.join(p.dir, 'team state'));
    const held = p.hold('PUT', '/agents/');
    const running = p.cliInProcess(['apply', '--auto-approve', '--env', 'staging', '--state', 'team state/s.json']);
    await held.arrived();
    const holderFile = (await readdir(path.join(p.dir, 'team state/s.json.lock'))).find((name) => name.startsWith('holder-')) ?? '';
    const lockId = /^holder-([0-9a-f]+)\.json$/.exec(holderFile)?.[1] ?? '';
    expect((await p.cliInProcess(['state', 'unlock', '--force', lockId, '--state', 'team state/s.json'])).code).toBe(0);
    held.release();
    const result = await running;
    expect(result.code).toBe(1);
    // The command the summary names, and the error's hint below it: the same, with this run's options.
    const plan = "voxform plan --env staging --state 'team state/s.json'";
    expect(result.stdout).toContain(`run \`${plan}\` to see where things stand, then apply again.\n`);
    expect(result.stderr).toMatch(/\nerror\[state_lock_lost\]: The state lock of .* is no longer held by this run: /);
    expect(result.stderr).toContain(`\n  hint: Nothing more is written; run \`${plan}\` to see where things stand.\n`);
    // What reached the service is in no record: the ledger has none of this run, and it says so.
    expect(result.stdout).toMatch(/^ {2}applied, not recorded in the state: agent\./m);
    expect(result.stderr).toContain('warning: this apply was not recorded in the history: it lost its lock, and without it nothing more is written (`voxform rollback previous` and `voxform report` do not see what it applied)\n');
    expect((await p.cliInProcess(['history', '--env', 'staging', '--state', 'team state/s.json'])).stdout).toMatch(/^No history for staging@/);
  });

  it('an apply whose lock is forced open says at once that it stops for that, without the offer of a second Ctrl-C nobody pressed', async () => {
    project = await startExampleProject();
    const p = project;
    const held = p.hold('PUT', '/agents/');
    const run = spawnCli(p.dir, p.env, ['apply', '--auto-approve']);
    await held.arrived();
    const holderFile = (await readdir(path.join(p.dir, '.voxform/state.json.lock'))).find((name) => name.startsWith('holder-')) ?? '';
    const lockId = /^holder-([0-9a-f]+)\.json$/.exec(holderFile)?.[1] ?? '';
    expect((await p.cliInProcess(['state', 'unlock', '--force', lockId])).code).toBe(0);
    // The run finds the lock gone while its writes are held on the wire, then waits for them.
    await run.stderrShows('Stopping');
    held.release();
    expect(await run.exited).toBe(1);
    const by = `${osUser()}@${hostname()} \\(pid \\d+, "voxform state unlock --force"\\) at \\S+`;
    expect(run.output.stderr).toMatch(new RegExp(`^Stopping: the state lock ${lockId} was forced open by ${by}\\. No new write is sent; the run stops after the [1-9]\\d* in flight…$`, 'm'));
    expect(run.output.stderr).not.toContain('Ctrl-C');
  }, 60_000);

  it('a lock left by a run that no longer runs: state migrate and state rm take it over with the warning apply gives', async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const deadPid = 2 ** 22 + 12345;
    const leaveDeadLock = async () => {
      const lockDir = path.join(p.dir, '.voxform/state.json.lock');
      await mkdir(lockDir);
      await writeFile(path.join(lockDir, 'holder-0123456789abcdef.json'), JSON.stringify({ pid: deadPid, host: hostname(), user: 'x', command: 'voxform apply', since: 'then' }));
    };
    const warning = `warning: Taking over the state lock left by x@${hostname()} (pid ${deadPid}, "voxform apply", since then, lock 0123456789abcdef), which no longer runs.\n`;
    await leaveDeadLock();
    const migrated = await p.cliInProcess(['state', 'migrate', '--to', 'moved/state.json']);
    expect(migrated.stderr).toBe(warning);
    expect(migrated.code).toBe(0);
    await leaveDeadLock();
    const workspace = JSON.parse((await p.cliInProcess(['state', 'list', '--format', 'json'])).stdout).workspaces[0].workspace as string;
    const removed = await p.cliInProcess(['state', 'rm', '--force', workspace]);
    expect(removed.stderr).toBe(warning);
    expect(removed.code).toBe(0);
  });

  it('a lock whose holder file cannot be read: apply, status and state list all say it is held, by a run they cannot name, and how to open it', async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const lockDir = path.join(p.dir, '.voxform/state.json.lock');
    await mkdir(lockDir);
    await writeFile(path.join(lockDir, 'holder-abcdef0123456789.json'), 'garbage');
    const who = 'an unknown run (its holder file holder-abcdef0123456789.json is not one voxform wrote, lock abcdef0123456789)';
    const apply = await p.cliInProcess(['apply', '--auto-approve']);
    expect(apply.stderr).toContain(`is locked by ${who}.`);
    expect(apply.stderr).toContain('If that run hangs or no longer runs, `voxform state unlock --force abcdef0123456789` opens the lock.');
    expect(apply.code).toBe(1);
    expect((await p.cliInProcess(['status'])).stdout).toContain(`Lock:        held by ${who}\n`);
    expect(JSON.parse((await p.cliInProcess(['status', '--format', 'json'])).stdout).lock).toMatchObject({ held: true, lock_id: 'abcdef0123456789', unreadable: 'its holder file holder-abcdef0123456789.json is not one voxform wrote' });
    expect((await p.cliInProcess(['state', 'list'])).stdout).toContain(`; locked by ${who}\n`);
    // One key style, as every other JSON output of voxform writes: snake_case, nested objects included.
    const listed = JSON.parse((await p.cliInProcess(['state', 'list', '--format', 'json'])).stdout) as { workspaces: Array<Record<string, unknown>> };
    expect(listed).toMatchObject({ format_version: 1, backend: 'file' });
    expect(listed.workspaces[0]).toMatchObject({ lock: { lock_id: 'abcdef0123456789', unreadable: 'its holder file holder-abcdef0123456789.json is not one voxform wrote' }, last_apply: { outcome: 'applied', partly_applied: 0, not_applied: 0 } });
    expect(keysOf(listed).filter((key) => !/^[a-z]+(_[a-z]+)*$/.test(key))).toEqual([]);
    const opened = await p.cliInProcess(['state', 'unlock', '--force', 'abcdef0123456789']);
    expect(opened.stdout).toContain(`Opened the lock abcdef0123456789 held by ${who}.`);
    expect((await p.cliInProcess(['status'])).stdout).toContain('Lock:        not held; last forced open: lock abcdef0123456789 by ');

    // A lock folder holding something else than a holder file: refused at once (it was a busy loop), held for status too.
    await mkdir(lockDir);
    await writeFile(path.join(lockDir, 'notes.txt'), 'mine');
    const refused = await p.cliInProcess(['apply', '--auto-approve']);
    expect(refused.stderr).toContain('is locked by an unknown run (the lock folder holds no holder file).');
    expect(refused.stderr).toContain(`If that run hangs or no longer runs, removing ${lockDir} opens it.`);
    expect((await p.cliInProcess(['status'])).stdout).toContain('Lock:        held by an unknown run (the lock folder holds no holder file); last forced open: lock abcdef0123456789 by ');
  });

  it('prints no control character the state or a lock holder file holds (a terminal escape sequence is shown as ?)', async () => {
    project = await startExampleProject();
    const p = project;
    const ESC = '\u001b';
    const lastApply = { at: '2026-11-25T10:00:00.000Z', by: `ana${ESC}]0;owned\u0007@laptop`, command: `voxform apply${ESC}[2J`, outcome: 'applied', applied: 1, failed: 0, skipped: 0 };
    const workspace = { agents: { [`agent.${ESC}[31mred`]: { id: `a${ESC}[1m1`, applied: {} } }, lastApply };
    await mkdir(path.join(p.dir, '.voxform/state.json.lock'), { recursive: true });
    await writeFile(path.join(p.dir, '.voxform/state.json'), JSON.stringify({ version: 1, serial: 2, workspaces: { [`evil@http://127.0.0.1:9/${ESC}[2J`]: workspace } }));
    const holder = { pid: 1, host: `elsewhere${ESC}[5m.invalid`, user: 'ana', command: `voxform apply${ESC}[2J`, since: 'then' };
    await writeFile(path.join(p.dir, '.voxform/state.json.lock/holder-abcdef0123456789.json'), JSON.stringify(holder));
    const runs = [['state', 'list'], ['state', 'show'], ['status'], ['apply', '--auto-approve'], ['state', 'migrate', '--to', 'moved/state.json']];
    for (const args of runs) {
      const result = await p.cliInProcess(args);
      expect(`${result.stdout}${result.stderr}`, args.join(' ')).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    }
    expect((await p.cliInProcess(['state', 'list'])).stdout).toContain('  evil@http://127.0.0.1:9/?[2J  serial 2, last apply applied at 2026-11-25T10:00:00.000Z by ana?]0;owned?@laptop; locked by ana@elsewhere?[5m.invalid');
  });

  it('migrates one state file to another, and refuses the source itself as the target', async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const moved = await p.cliInProcess(['state', 'migrate', '--to', 'moved/state.json']);
    expect(moved.stdout).toContain('Copied 1 workspace, 1 history record and 0 test runs ');
    expect(moved.code).toBe(0);
    // The state was the default file: either way of naming the copy from now on does.
    expect(moved.stdout).toContain('Point --state (or VOXFORM_STATE) at moved/state.json from now on; .voxform/state.json is left as it was.');
    // Named with VOXFORM_STATE, the line says to point that at the copy.
    const fromEnvironment = await p.cliInProcess(['state', 'migrate', '--to', 'again/state.json'], { VOXFORM_STATE: 'moved/state.json' });
    expect(fromEnvironment.stdout).toContain('Point VOXFORM_STATE at again/state.json from now on; moved/state.json is left as it was.');
    expect((await p.cliInProcess(['plan', '--detailed-exitcode', '--state', 'moved/state.json'])).code).toBe(0);
    const itself = await p.cliInProcess(['state', 'migrate', '--to', '.voxform/state.json']);
    expect(itself.code).toBe(1);
    expect(itself.stderr).toContain('is the source itself');
    const nowhere = await p.cliInProcess(['state', 'migrate']);
    expect(nowhere.code).toBe(1);
    expect(nowhere.stderr).toContain('error[invalid_argument]: `voxform state migrate` needs --to');
  });

  it('a migration stopped by Ctrl-C says what each side holds and the command to paste, which migrates', async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const stopped = await runCliInProcess(['state', 'migrate', '--state', '.voxform/state.json', '--to', 'moved/state.json'], { cwd: p.dir, env: p.env, interrupted: Promise.resolve() });
    expect(stopped.code).toBe(130);
    expect(stopped.stderr).toBe(
      [
        'Stopping: the migration stops once the step under way is done (Ctrl-C again ends it at once).',
        'error[interrupted]: Migration interrupted before anything was copied: .voxform/state.json and moved/state.json are as they were.',
        '  hint: Run `voxform state migrate --state .voxform/state.json --to moved/state.json` to migrate.',
        '',
      ].join('\n'),
    );
    const pasted = await runPrinted('voxform state migrate --state .voxform/state.json --to moved/state.json', { cwd: p.dir, env: p.env });
    expect(pasted.stdout).toContain('Copied 1 workspace, 1 history record and 0 test runs ');
    expect(pasted.code).toBe(0);
  });

  it('a migration stopped at once (a second Ctrl-C) says the same as one stopped between steps: the source unchanged, the command with --force', async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    // What the second signal's error says is what the command gives its graceful stop (main prints it).
    let graceful: GracefulStop | undefined;
    const { ctx, close } = makeContext({ cwd: p.dir, env: p.env });
    ctx.interrupted = (stop) => ((graceful = stop), new Promise<never>(() => undefined));
    expect(await runCommandLine(['state', 'migrate', '--state', '.voxform/state.json', '--to', 'moved/state.json'], ctx)).toBe(0);
    await close();
    expect(graceful?.atOnce).toEqual({
      leftUndone: '.voxform/state.json is left as it was and is still the state to use; moved/state.json may hold part of the copy',
      hint: 'Run `voxform state migrate --state .voxform/state.json --to moved/state.json --force` to copy everything again and check the copy (--force: the target now holds what was copied so far); once it says identical, point --state at the target.',
    });
  });

  it('a migration refused by a lock says to wait and migrate again (migrate takes no --lock-timeout), and how to open that lock', async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    for (const [role, stateFile, unlock] of [
      ['source', '.voxform/state.json', ''],
      ['target', 'moved/state.json', ' --state moved/state.json'],
    ] as const) {
      const lock = await acquireStateLock(path.join(p.dir, stateFile), { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
      try {
        const refused = await p.cliInProcess(['state', 'migrate', '--to', 'moved/state.json']);
        expect(refused.stderr, role).toContain(`error[state_locked]: The state file ${path.join(p.dir, stateFile)} is locked by `);
        expect(refused.stderr, role).toContain(
          `  hint: Wait for it to finish, then migrate again. If that run hangs or no longer runs, \`voxform state unlock --force ${lock.lockId}${unlock}\` opens the lock.\n`,
        );
        expect(refused.stderr).not.toContain('--lock-timeout');
        expect(refused.code).toBe(1);
      } finally {
        await lock.release();
      }
    }
  });

  it('a migration refused by the lock of a source named with --state prints the unlock command with that --state, which opens the lock when pasted', async () => {
    project = await startExampleProject();
    const p = project;
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    expect((await p.cliInProcess(['state', 'migrate', '--to', 'moved/state.json'])).code).toBe(0);
    const lock = await acquireStateLock(path.join(p.dir, 'moved/state.json'), { command: 'voxform apply', timeoutSeconds: 0, warn: () => undefined });
    try {
      const refused = await p.cliInProcess(['state', 'migrate', '--state', 'moved/state.json', '--to', 'third/state.json']);
      const unlock = `voxform state unlock --force ${lock.lockId} --state moved/state.json`;
      expect(refused.stderr).toContain(`If that run hangs or no longer runs, \`${unlock}\` opens the lock.\n`);
      expect(refused.code).toBe(1);
      const pasted = await runPrinted(unlock, { cwd: p.dir, env: p.env });
      expect(pasted.stdout).toContain(`Opened the lock ${lock.lockId} held by `);
      expect(pasted.code).toBe(0);
    } finally {
      await lock.release();
    }
  });

  it('refuses to migrate from a source that holds nothing (a mistyped --state), writing nothing', async () => {
    project = await startExampleProject();
    const p = project;
    const empty = await p.cliInProcess(['state', 'migrate', '--state', 'nowhere/state.json', '--to', 'moved/state.json']);
    expect(empty.stderr).toBe(
      [
        'error[state_migrate_refused]: The migration source nowhere/state.json holds no workspace and no history record: there is nothing to migrate, and nothing was written.',
        '  hint: Check the --state given: name the state to copy with it.',
        '',
      ].join('\n'),
    );
    expect(empty.stdout).toBe('');
    expect(empty.code).toBe(1);
    expect(existsSync(path.join(p.dir, 'moved'))).toBe(false);
  });
});

describe('a state file whose folder cannot be made (a file is in its way)', () => {
  const tempDir = useTempDirs();

  it('the hint names the option that named it: --to for a migration target, VOXFORM_STATE when it chose the file', async () => {
    const cwd = await tempDir({ 'state.json': JSON.stringify({ version: 2, serial: 1, workspaces: { 'default@local': {} } }), 'a-file': 'not a folder\n' });
    const migrate = await runCliInProcess(['state', 'migrate', '--state', 'state.json', '--to', 'a-file/state.json'], { cwd });
    expect(migrate.code).toBe(1);
    expect(migrate.stderr).toMatch(/^error\[state_lock_failed\]: Could not take the state lock \S+a-file\/state\.json\.lock: a part of its folder is a file, not a folder\.\n  hint: Check that the folder of the state file exists and is writable; --to names the state file\.\n$/);
    const apply = await runCliInProcess(['apply', '--local', '--auto-approve'], { cwd: await tempDir({ 'voxform.yaml': 'version: 1\nagents:\n  front-desk: { id: -OKdqbqetEcM4ak369ym }\n', 'a-file': 'x\n' }), env: { VOXFORM_STATE: 'a-file/state.json' } });
    expect(apply.code).toBe(1);
    expect(apply.stderr).toContain('; VOXFORM_STATE names the state file.\n');
  });
});

describe('voxform state show, of a state of several workspaces', () => {
  const STATE = JSON.stringify({ version: 2, serial: 3, workspaces: { 'default@local': {}, 'staging@local': {}, 'staging@https://api-west.millis.ai': {} } });

  const tempDir = useTempDirs();
  const projectWithWorkspaces = () => tempDir({ '.voxform/state.json': STATE });

  it('without a workspace asks for one (invalid_argument), naming them and the command to name one with', async () => {
    const cwd = await projectWithWorkspaces();
    const none = await runCliInProcess(['state', 'show'], { cwd });
    expect(none.code).toBe(1);
    expect(none.stderr).toBe(
      'error[invalid_argument]: `voxform state show` needs a workspace: .voxform/state.json holds 3.\n' +
        '  hint: Name one, as in `voxform state show default@local`: default@local, staging@local, staging@https://api-west.millis.ai.\n',
    );
    const chosen = await runCliInProcess(['state', 'show', '--state', '.voxform/state.json'], { cwd });
    expect(chosen.stderr).toContain('as in `voxform state show default@local --state .voxform/state.json`');
  });

  it("given an environment's name, says a workspace is ENVIRONMENT@SERVICE and names that environment's workspaces", async () => {
    const cwd = await projectWithWorkspaces();
    const staging = await runCliInProcess(['state', 'show', 'staging'], { cwd });
    expect(staging.code).toBe(1);
    expect(staging.stderr).toBe(
      'error[workspace_unknown]: .voxform/state.json holds no workspace staging: a workspace is ENVIRONMENT@SERVICE.\n' +
        "  hint: Environment staging's: staging@local, staging@https://api-west.millis.ai. Workspaces: default@local, staging@local, staging@https://api-west.millis.ai.\n",
    );
    const removing = await runCliInProcess(['state', 'rm', 'staging', '--force'], { cwd });
    expect(removing.stderr).toContain("hint: Environment staging's: staging@local, staging@https://api-west.millis.ai.");
    const production = await runCliInProcess(['state', 'show', 'production'], { cwd });
    expect(production.stderr).toBe(
      'error[workspace_unknown]: .voxform/state.json holds no workspace production: a workspace is ENVIRONMENT@SERVICE.\n' +
        '  hint: Workspaces: default@local, staging@local, staging@https://api-west.millis.ai.\n',
    );
  });
});
