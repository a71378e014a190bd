/**
 * The PostgreSQL state backend end to end: the built CLI, the emulator, and a real PostgreSQL
 * database (one server per test run; a fresh database and a role without superuser per test) whose
 * password is planted and must never be printed. Each test's own command runs as a process; the runs
 * that only set the scene (an apply that holds a lock for another to meet) or read back what it left
 * run in the test's process (`cliInProcess`): the same commands and redaction, without the start-up.
 */
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { repoRoot, runCli, runCliInProcess, runPrinted, spawnCli, type CliResult } from '../helpers/cli.js';
import { MIGRATIONS } from '../../src/state/postgres/schema.js';
import { asAdmin, databaseAtSchema, freshDatabase, PLANTED_DB_PASSWORD, schemaVersionsOf, silentDatabase } from '../helpers/postgres.js';
import { callService, SECRETS, startExampleProject, type ExampleProject } from '../helpers/project.js';

let project: ExampleProject | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await project?.close();
  project = undefined;
  while (cleanups.length > 0) await cleanups.pop()?.();
});

/** Neither the password nor any form of it appears in what a run printed. */
function expectNoPassword(...results: CliResult[]): void {
  for (const result of results) {
    for (const form of [PLANTED_DB_PASSWORD, encodeURIComponent(PLANTED_DB_PASSWORD)]) {
      expect(result.stdout).not.toContain(form);
      expect(result.stderr).not.toContain(form);
    }
  }
}

/** A second folder with the same manifests, talking to the same service. */
async function secondFolder(p: ExampleProject): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'voxform-e2e-second-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  await cp(path.join(p.dir, 'voxform.yaml'), path.join(dir, 'voxform.yaml'));
  await cp(path.join(p.dir, 'example'), path.join(dir, 'example'), { recursive: true });
  return dir;
}

/** The lock holder row of the database, once an apply holds it; asked over one connection, not a new one each time. */
async function waitForHolder(database: string): Promise<{ pid: number; lockId: string; backendPid: number }> {
  return asAdmin(async (client) => {
    for (let i = 0; i < 600; i++) {
      // The table does not exist until the apply opens the state: no row yet.
      const row = await client.query<{ holder: { pid: number; lockId: string }; backend_pid: number }>('SELECT holder, backend_pid FROM voxform_locks WHERE lock_id IS NOT NULL').catch(() => ({ rows: [] }));
      const found = row.rows[0];
      if (found) return { pid: found.holder.pid, lockId: found.holder.lockId, backendPid: found.backend_pid };
      await delay(50);
    }
    throw new Error('no apply took the lock');
  }, database);
}

describe('the PostgreSQL state backend, end to end', () => {
  it('two applies from two folders sharing one database: one runs, the other is refused naming the holder', async () => {
    project = await startExampleProject();
    const p = project;
    const { url, database } = await freshDatabase();
    const second = await secondFolder(p);
    // Slow enough that the first apply still holds the lock when the second one starts, on a busy machine too.
    p.emulator.control.setFaults([{ path: '**', latencyMs: 500 }]);
    const first = p.cli(['apply', '--auto-approve', '--parallelism', '1'], { VOXFORM_STATE: url });
    const holder = await waitForHolder(database);
    const refused = await runCli(['apply', '--auto-approve', '--lock-timeout', '1'], { cwd: second, env: { ...p.env, VOXFORM_STATE: url } });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`is locked by`);
    expect(refused.stderr).toContain(`pid ${holder.pid}`);
    expect(refused.stderr).toContain(`voxform state unlock --force ${holder.lockId}\` opens the lock`);
    // It said it waits, for whom and how long, and then that it waited: --lock-timeout was given.
    expect(refused.stderr).toContain(`is locked by `);
    expect(refused.stderr).toContain('; waiting up to 1 s for it to finish (--lock-timeout).');
    expect(refused.stderr).toContain('hint: This run waited 1 s for it to finish (--lock-timeout 1)');
    expect(refused.stderr).not.toContain('pass --lock-timeout SECONDS');
    // The refusal is seen: the first apply need not be slow any more (its rest takes moments, not seconds).
    p.emulator.control.clearFaults();
    const done = await first;
    expect(done.stdout).toContain('Apply complete');
    expect(done.code).toBe(0);
    // The second folder plans against what the first applied: the shared baseline.
    const plan = await runCliInProcess(['plan', '--detailed-exitcode'], { cwd: second, env: { ...p.env, VOXFORM_STATE: url } });
    expect(plan.code).toBe(0);
    const list = await p.cliInProcess(['state', 'list'], { VOXFORM_STATE: url });
    expect(list.stdout).toContain(`default@${p.url}  serial`);
    expect(list.stdout).toContain('last apply applied');
    expectNoPassword(refused, done, plan, list);
  }, 90_000);

  /** The `writeOrder` each workspace recorded for the example's campaign. */
  async function campaignWriteOrders(database: string): Promise<Record<string, number | undefined>> {
    const rows = await asAdmin((client) => client.query<{ workspace: string; state: string }>('SELECT workspace, state FROM voxform_workspaces'), database);
    return Object.fromEntries(rows.rows.map((row) => [row.workspace.split('@')[0], (JSON.parse(row.state) as { campaigns: Record<string, { writeOrder?: number }> }).campaigns['campaign.recall-reminders']?.writeOrder]));
  }

  describe.each([
    { production: 'changes the campaign', takeOver: [], outcome: 'is refused with shared_resource_conflict once it may plan, and the campaign keeps staging\'s value' },
    { production: 'takes the campaign over too', takeOver: ['--take-over', 'campaign.recall-reminders'], outcome: 'applies after it, with a write order above staging\'s, and staging\'s next plan sees production\'s' },
  ])('two environments of one service applying at once: staging takes the campaign over, production $production meanwhile', ({ takeOver, outcome }) => {
    it(`production waits for staging's apply to end, then ${outcome}`, async () => {
      project = await startExampleProject();
      const p = project;
      const { url, database } = await freshDatabase();
      const manifest = path.join(p.dir, 'voxform.yaml');
      const base = await readFile(manifest, 'utf8');
      const overlays = (productionName: string) => `${base}    campaigns: { recall-reminders: { name: Staging reminders } }\n  production:\n    campaigns: { recall-reminders: { name: ${productionName} } }\n`;
      await writeFile(manifest, overlays('Production reminders'));
      const env = { ...p.env, VOXFORM_STATE: url };
      expect((await runCliInProcess(['apply', '--env', 'production', '--auto-approve'], { cwd: p.dir, env })).code).toBe(0);
      // Staging's campaign write is kept on the wire while production's apply starts.
      const campaignWrites = p.hold('PUT', '/campaigns/');
      // Staging only holds the service's lock for production to meet: it runs in the test's process.
      const staging = runCliInProcess(['apply', '--env', 'staging', '--take-over', 'campaign.recall-reminders', '--auto-approve'], { cwd: p.dir, env });
      await campaignWrites.arrived(1);
      await writeFile(manifest, overlays('Production reminders 2'));
      const production = spawnCli(p.dir, env, ['apply', '--env', 'production', ...takeOver, '--auto-approve', '--lock-timeout', '120']);
      // Production waits for the service's lock; without it, it would plan and send its own write.
      const seen = await Promise.race([production.stderrShows('waiting up to 120 s').then(() => 'waiting'), campaignWrites.arrived(2).then(() => 'second write')]);
      campaignWrites.release();
      expect(seen).toBe('waiting');
      expect(production.output.stderr).toContain(`Service ${p.url} is locked by `);
      expect(production.output.stderr).toContain(`: its apply of workspace staging@${p.url} holds what the environments of the service share`);
      const stagingDone = await staging;
      expect(stagingDone.stdout).toContain('Apply complete');
      const productionCode = await production.exited;
      const liveName = () => p.emulator.control.state().campaigns.find((c) => c.id === 'cmp_recall_2026')?.name;
      const orders = await campaignWriteOrders(database);
      if (takeOver.length === 0) {
        expect(productionCode).toBe(1);
        expect(production.output.stderr).toContain('error[shared_resource_conflict]: ');
        expect(production.output.stderr).toContain('campaign.recall-reminders: the last apply of environment staging set name to Staging reminders; this plan would set Production reminders 2.');
        expect(liveName()).toBe('Staging reminders');
        expect(orders.staging).toBeGreaterThan(orders.production ?? 0);
      } else {
        expect(productionCode).toBe(0);
        expect(liveName()).toBe('Production reminders 2');
        expect(orders.production).toBeGreaterThan(orders.staging ?? 0);
        // Staging's take-over was undone on purpose, and staging's plan knows it: refused, not "No changes".
        const plan = await runCli(['plan', '--env', 'staging'], { cwd: p.dir, env });
        expect(plan.code).toBe(1);
        expect(plan.stderr).toContain('error[shared_resource_conflict]: ');
      }
    }, 120_000);
  });

  it('a lost database connection during apply stops new requests and reports what was applied', async () => {
    project = await startExampleProject();
    const p = project;
    const { url, database } = await freshDatabase();
    p.emulator.control.setFaults([{ path: '**', latencyMs: 300 }]);
    const running = p.cli(['apply', '--auto-approve', '--parallelism', '1'], { VOXFORM_STATE: url });
    const holder = await waitForHolder(database);
    // Let a first change apply, then end the lock's connection from an administrator's session.
    while (p.requests.filter((r) => r.method !== 'GET').length < 2) await delay(20);
    await asAdmin((client) => client.query('SELECT pg_terminate_backend($1)', [holder.backendPid]), database);
    const result = await running;
    expect(result.code).toBe(1);
    expect(result.stdout).toContain('Apply stopped: the connection to the state database was lost');
    expect(result.stdout).toContain('not applied:');
    expect(result.stdout).toMatch(/applied: (agent|knowledge|credential|phone|campaign)\./);
    expectNoPassword(result);
    p.emulator.control.clearFaults();
    // Nothing is left locked: the next apply finishes the work.
    const again = await p.cliInProcess(['apply', '--auto-approve'], { VOXFORM_STATE: url });
    expect(again.code).toBe(0);
  }, 90_000);

  it('migrates a file state to PostgreSQL, checks the copy, refuses a non-empty target, and plans from the copy', async () => {
    project = await startExampleProject();
    const p = project;
    const { url } = await freshDatabase();
    expect((await p.cliInProcess(['apply', '--auto-approve'])).code).toBe(0);
    const migrated = await p.cli(['state', 'migrate', '--to', url]);
    expect(migrated.code).toBe(0);
    expect(migrated.stdout).toContain('Copied 1 workspace, 1 history record and 0 test runs ');
    expect(migrated.stdout).toContain('read them back: identical');
    // A line to paste, the password left for the operator to fill in (printed, it would be redacted).
    expect(migrated.stdout).toMatch(/Point --state \(or VOXFORM_STATE\) at postgres:\/\/vx_role_\w+:PASSWORD@127\.0\.0\.1:\d+\/vx_db_\w+ \(with the database password in place of PASSWORD\) from now on/);
    const again = await p.cli(['state', 'migrate', '--to', url]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('already holds 1 workspace, 1 history record and 0 test runs; nothing was copied.');
    expect((await p.cliInProcess(['state', 'migrate', '--to', url, '--force'])).code).toBe(0);
    const plan = await p.cli(['plan', '--detailed-exitcode', '--state', url]);
    expect(plan.code).toBe(0);
    const show = await p.cliInProcess(['state', 'show', '--format', 'json'], { VOXFORM_STATE: url });
    expect(JSON.parse(show.stdout)).toMatchObject({ workspace: `default@${p.url}`, lock: null });
    const status = await p.cliInProcess(['status', '--format', 'json', '--state', url]);
    expect(JSON.parse(status.stdout).state).toMatchObject({ backend: 'postgres', exists: true, file: expect.stringMatching(/^postgres:\/\/vx_role_\w+@127\.0\.0\.1:\d+\/vx_db_\w+$/) });
    expectNoPassword(migrated, again, plan, show, status);
  }, 90_000);

  it('opens a hung holder\'s lock with state unlock --force, and never prints the password, not even in errors', async () => {
    project = await startExampleProject();
    const p = project;
    const { url, database } = await freshDatabase();
    // Slow enough that the apply still runs after three more CLI runs; the unlock ends it early.
    p.emulator.control.setFaults([{ path: '**', latencyMs: 800 }]);
    const running = p.cli(['apply', '--auto-approve', '--parallelism', '1'], { VOXFORM_STATE: url });
    const holder = await waitForHolder(database);
    const list = await p.cliInProcess(['state', 'list', '--format', 'json'], { VOXFORM_STATE: url });
    expect(JSON.parse(list.stdout).workspaces[0].lock).toMatchObject({ lock_id: holder.lockId, pid: holder.pid });
    const refusedWithoutForce = await p.cliInProcess(['state', 'unlock', holder.lockId], { VOXFORM_STATE: url });
    expect(refusedWithoutForce.code).toBe(1);
    // The password on the unlock's command line: what it records of itself must not hold it.
    const job = 'https://ci.example.test/jobs/77';
    const unlocked = await p.cli(['state', 'unlock', '--force', holder.lockId, '--state', url], { VOXFORM_CI_JOB_URL: job });
    expect(unlocked.code).toBe(0);
    expect(unlocked.stdout).toContain(`Opened the lock ${holder.lockId}`);
    const stopped = await running;
    expect(stopped.code).toBe(1);
    // Told who forced the lock open and when, not that the database is down: while it planned (before
    // anything was applied) or while it applied, as the emulator's pace decides.
    const recorded = await asAdmin((client) => client.query<{ last_forced_by: { pid: number } }>('SELECT last_forced_by FROM voxform_locks'), database);
    const forcedBy = recorded.rows[0]?.last_forced_by;
    expect(forcedBy).toMatchObject({ command: 'voxform state unlock --force', ciJobUrl: job });
    const statusJson = await p.cliInProcess(['status', '--format', 'json'], { VOXFORM_STATE: url });
    const shown = JSON.parse(statusJson.stdout).last_forced_open as { at: string };
    // The row keeps the state's words; status writes its JSON snake_case.
    const { ciJobUrl, ...run } = forcedBy as unknown as Record<string, unknown>;
    expect(shown).toMatchObject({ lock_id: holder.lockId, by: { ...run, ci_job_url: ciJobUrl }, at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/) });
    const by = `\\S+@\\S+ \\(pid ${forcedBy?.pid}, "voxform state unlock --force", job ${job.replace(/\./g, '\\.')}\\) at ${shown.at}`;
    const told = stopped.stdout + stopped.stderr;
    expect(told).toMatch(new RegExp(`Apply stopped( before anything was applied)?: the lock ${holder.lockId} was forced open by ${by}\\.`));
    expect(told).not.toContain('once the database is back');
    const status = await p.cliInProcess(['status'], { VOXFORM_STATE: url });
    expect(status.stdout).toMatch(new RegExp(`^Lock: +not held; last forced open: lock ${holder.lockId} by ${by}$`, 'm'));
    // state list and show name it too, also when the apply was stopped before it wrote its workspace.
    const workspace = `default@${p.url}`;
    const listed = await p.cliInProcess(['state', 'list'], { VOXFORM_STATE: url });
    expect(listed.stdout).toMatch(new RegExp(`; not locked; last forced open: lock ${holder.lockId} by ${by}$`, 'm'));
    const listedJson = JSON.parse((await p.cliInProcess(['state', 'list', '--format', 'json'], { VOXFORM_STATE: url })).stdout) as { workspaces: Array<{ workspace: string; last_forced_open: unknown }> };
    expect(listedJson.workspaces.find((w) => w.workspace === workspace)?.last_forced_open).toMatchObject({ lock_id: holder.lockId, at: shown.at, by: { command: 'voxform state unlock --force', ci_job_url: job } });
    const show = await p.cliInProcess(['state', 'show', workspace], { VOXFORM_STATE: url });
    expect(show.stdout).toMatch(new RegExp(`^  Last forced open: lock ${holder.lockId} by ${by}$`, 'm'));
    expect(JSON.stringify(recorded.rows)).not.toContain(encodeURIComponent(PLANTED_DB_PASSWORD));
    expect(JSON.stringify(recorded.rows)).not.toContain(PLANTED_DB_PASSWORD);
    const wrongPassword = await p.cli(['state', 'list'], { VOXFORM_STATE: url.replace(encodeURIComponent(PLANTED_DB_PASSWORD), encodeURIComponent(`${PLANTED_DB_PASSWORD}-wrong`)) });
    expect(wrongPassword.code).toBe(1);
    expect(wrongPassword.stderr).toContain('error[state_backend_failed]: The state database postgres://');
    const broken = await p.cli(['state', 'list', '--state', `postgres://someone:${PLANTED_DB_PASSWORD}@[bad/db`]);
    expect(broken.code).toBe(1);
    expectNoPassword(list, refusedWithoutForce, unlocked, stopped, status, statusJson, listed, show, wrongPassword, broken);
  }, 90_000);

  it('keeps the deploy ledger in the database: apply v1, apply v2, rollback previous, three records', async () => {
    project = await startExampleProject();
    const p = project;
    const { url } = await freshDatabase();
    const env = { VOXFORM_STATE: url };
    const frontDesk = async () => ((await callService(p, 'GET', `/agents/${encodeURIComponent('-OKdqbqetEcM4ak369ym')}`)) as { config: { prompt?: string } }).config.prompt;
    const results: CliResult[] = [];
    // The first apply only sets the scene; the second and the rollback are the processes whose records are kept.
    const run = async (args: string[], how: 'process' | 'in-process' = 'process') => {
      const result = how === 'process' ? await p.cli(args, env) : await p.cliInProcess(args, env);
      results.push(result);
      expect({ args, code: result.code, stderr: result.code === 0 ? '' : result.stderr }).toEqual({ args, code: 0, stderr: '' });
      return result;
    };
    await run(['apply', '--auto-approve'], 'in-process');
    const v1 = await frontDesk();
    const promptFile = path.join(p.dir, 'example/prompts/front-desk.md');
    await writeFile(promptFile, `${await readFile(promptFile, 'utf8')}\n- Always end politely.\n`);
    await run(['apply', '--auto-approve']);
    expect(await frontDesk()).not.toBe(v1);
    await run(['rollback', 'previous', '--auto-approve']);
    expect(await frontDesk()).toBe(v1);
    const history = JSON.parse((await run(['history', '--format', 'json'], 'in-process')).stdout) as { records: Array<{ id: string; command: string; source: { rollback_of: string | null } }> };
    expect(history.records.map((r) => r.command)).toEqual(['voxform rollback previous', 'voxform apply', 'voxform apply']);
    expect(history.records[0]?.source.rollback_of).toBe(history.records[2]?.id);
    // Nothing beside the manifests: state and ledger are in the database.
    expect(existsSync(path.join(p.dir, '.voxform/history'))).toBe(false);
    expect(existsSync(path.join(p.dir, '.voxform/state.json'))).toBe(false);
    expectNoPassword(...results);
    for (const secret of Object.values(SECRETS)) for (const r of results) expect(r.stdout + r.stderr).not.toContain(secret);
  }, 120_000);

  it('leaves an older voxform\'s schema to commands that write nothing; state upgrade, once, brings it up to date', async () => {
    project = await startExampleProject();
    const p = project;
    const { url, database } = await databaseAtSchema(1);
    const env = { VOXFORM_STATE: url };
    // plan as a process; the other commands that write nothing in the test's process, the same code.
    const results = [await p.cliInProcess(['status'], env), await p.cliInProcess(['history'], env), await p.cli(['plan'], env), await p.cliInProcess(['state', 'list'], env)];
    for (const result of results) expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    // A voxform that knows up to schema 1 still finds the database as it left it.
    expect(await schemaVersionsOf(database)).toEqual([1]);
    const upgraded = await p.cli(['state', 'upgrade'], env);
    expect(upgraded.stdout).toMatch(/^State: postgres:\/\/\S+ was at schema version 1; it is at version \d+ now\.\n$/);
    expect(await schemaVersionsOf(database)).toEqual(MIGRATIONS.map((m) => m.version));
    expect((await p.cliInProcess(['state', 'upgrade'], env)).stdout).toMatch(/^State: postgres:\/\/\S+ is at schema version \d+ already\.\n$/);
    expectNoPassword(...results, upgraded);
  }, 90_000);

  it('applies with a role allowed one connection: the history record goes over the lock\'s', async () => {
    project = await startExampleProject();
    const p = project;
    const { url, role } = await freshDatabase();
    await asAdmin((client) => client.query(`ALTER ROLE ${role} CONNECTION LIMIT 1`));
    const applied = await p.cli(['apply', '--auto-approve'], { VOXFORM_STATE: url });
    expect(applied.stderr).not.toContain('not recorded in the history');
    expect(applied.stdout + applied.stderr).toContain('Apply complete');
    expect(applied.code).toBe(0);
    const history = await p.cliInProcess(['history', '--format', 'json'], { VOXFORM_STATE: url });
    expect((JSON.parse(history.stdout) as { records: unknown[] }).records).toHaveLength(1);
    expectNoPassword(applied, history);
  }, 90_000);

  it('stops at once on Ctrl-C while connecting to a database that does not answer (exit 130)', async () => {
    project = await startExampleProject();
    const p = project;
    const database = await silentDatabase();
    const silent = database.server;
    cleanups.push(database.close);
    const state = `postgres://voxform:x@127.0.0.1:${database.port}/voxform`;
    for (const args of [['apply', '--auto-approve'], ['plan'], ['status'], ['state', 'list']]) {
      const connected = new Promise<void>((resolve) => silent.once('connection', () => resolve()));
      const child = spawn(process.execPath, [path.join(repoRoot, 'bin/voxform.cjs'), ...args, '--state', state], { cwd: p.dir, env: { PATH: process.env.PATH ?? '', NO_COLOR: '1', ...p.env }, stdio: ['ignore', 'pipe', 'pipe'] });
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? -1)));
      await connected;
      child.kill('SIGINT');
      expect({ args, code: await exited }).toEqual({ args, code: 130 });
      expect(output).not.toContain('timeout expired');
    }
  }, 90_000);

  it('says a password is missing when the URL state migrate names gives none', async () => {
    project = await startExampleProject();
    const p = project;
    const { url } = await freshDatabase();
    const withoutPassword = new URL(url);
    withoutPassword.password = '';
    withoutPassword.search = 'sslmode=disable';
    const plan = await p.cli(['plan'], { VOXFORM_STATE: withoutPassword.href, PGPASSFILE: path.join(p.dir, 'no-such-pgpass') });
    expect(plan.code).toBe(1);
    expect(plan.stderr).toContain(`error[state_password_missing]: The state database ${withoutPassword.href} asks for a password, and none was given.`);
    expect(plan.stderr).not.toContain('SASL');
    // PGPASSWORD is where node-postgres looks next, as the hint says.
    const withEnv = await p.cliInProcess(['plan'], { VOXFORM_STATE: withoutPassword.href, PGPASSWORD: PLANTED_DB_PASSWORD });
    expect(withEnv.code).toBe(0);
    expectNoPassword(plan, withEnv);
  }, 90_000);

  it('prints an unlock command that works when pasted with the password filled in, never the password', async () => {
    project = await startExampleProject();
    const p = project;
    const { url, database } = await freshDatabase();
    p.emulator.control.setFaults([{ path: '**', latencyMs: 800 }]);
    // The holder only holds the lock: it runs in the test's process; the refused apply and the paste are processes.
    const running = p.cliInProcess(['apply', '--auto-approve', '--parallelism', '1', '--state', url]);
    const holder = await waitForHolder(database);
    const refused = await p.cli(['apply', '--auto-approve', '--state', url]);
    expect(refused.code).toBe(1);
    const printed = /`(voxform state unlock --force \S+ --state [^`]+)` \(with the database password in place of PASSWORD\)/.exec(refused.stderr)?.[1];
    expect(printed, refused.stderr).toContain('--state postgres://');
    expect(printed).toContain(':PASSWORD@');
    const unlocked = await runPrinted((printed as string).replace('PASSWORD', encodeURIComponent(PLANTED_DB_PASSWORD)), { cwd: p.dir, env: p.env });
    expect(unlocked.stdout).toContain(`Opened the lock ${holder.lockId}`);
    expect(unlocked.code).toBe(0);
    p.emulator.control.clearFaults();
    expect((await running).code).toBe(1);
    expectNoPassword(refused);
  }, 90_000);
});
