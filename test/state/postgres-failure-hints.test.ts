/** A failed PostgreSQL step's hint fits its cause where the server (or the driver) says it; the generic one otherwise. */
import { afterEach, describe, expect, it } from 'vitest';
import type { StateBackend } from '../../src/state/backend.js';
import { openStateSpec } from '../../src/state/open.js';
import { MIGRATIONS } from '../../src/state/postgres/schema.js';
import { repoRoot } from '../helpers/cli.js';
import { asAdmin, databaseAtSchema, freshDatabase, PLANTED_DB_PASSWORD, silentDatabase } from '../helpers/postgres.js';

const WORKSPACE = 'default@local';
const WRONG_PASSWORD = 'wr0ng-planted-pw-5521';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function open(spec: string, env: Record<string, string> = {}): Promise<StateBackend> {
  const backend = await openStateSpec(spec, { env, cwd: repoRoot, registerSecret: () => undefined });
  cleanups.push(() => backend.close());
  return backend;
}

async function readFailure(spec: string, env: Record<string, string> = {}): Promise<{ code?: unknown; message: string; hint?: unknown }> {
  return (await open(spec, env)).readWorkspace(WORKSPACE).then(
    () => { throw new Error('the read succeeded'); },
    (error: { code?: unknown; message: string; hint?: unknown }) => error,
  );
}

describe('the hint of a failed PostgreSQL step', () => {
  it('of a refused password names where voxform takes a password from, and which gave this one, never its value', async () => {
    const { url } = await freshDatabase();
    const inUrl = new URL(url);
    inUrl.password = WRONG_PASSWORD;
    const withoutPassword = new URL(url);
    withoutPassword.password = '';
    for (const [spec, env, source] of [
      [inUrl.href, {}, 'the URL'],
      [withoutPassword.href, { PGPASSWORD: WRONG_PASSWORD }, 'PGPASSWORD'],
    ] as const) {
      const failure = await readFailure(spec, env);
      expect(failure).toMatchObject({
        code: 'state_backend_failed',
        message: expect.stringContaining('password authentication failed'),
        hint: expect.stringMatching(new RegExp(`^The server refused the password\\. voxform takes it from the URL .*, else PGPASSWORD, else ~/\\.pgpass .*; this run's came from ${source}`)),
      });
      expect(`${failure.message} ${String(failure.hint)}`).not.toContain(WRONG_PASSWORD);
    }
  });

  it("of a server that does not answer says how long it waited and that the URL's connect_timeout sets it", async () => {
    const database = await silentDatabase();
    cleanups.push(database.close);
    const failure = await readFailure(`postgres://voxform:${WRONG_PASSWORD}@127.0.0.1:${database.port}/voxform?connect_timeout=1`);
    expect(failure).toMatchObject({
      code: 'state_backend_failed',
      message: `The state database postgres://voxform@127.0.0.1:${database.port}/voxform?connect_timeout=1 did not answer: this run waited 1 s without an answer to connect.`,
      hint: expect.stringContaining('connect_timeout=SECONDS in the URL sets how long a connection is waited for'),
    });
  });

  it('of a database that does not exist says to check its name in the URL', async () => {
    const { url } = await freshDatabase();
    const elsewhere = new URL(url);
    elsewhere.pathname = '/vx_no_such_database';
    expect(await readFailure(elsewhere.href)).toMatchObject({
      code: 'state_backend_failed',
      message: expect.stringContaining('database "vx_no_such_database" does not exist'),
      hint: expect.stringContaining('Check the database name in the URL'),
    });
  });

  it("of a table the role may not use names the table, the GRANT and the permissions' section", async () => {
    const { url, database } = await databaseAtSchema(MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0);
    const role = `${database}_reader`;
    await asAdmin((client) => client.query(`CREATE ROLE ${role} LOGIN PASSWORD ${client.escapeLiteral(PLANTED_DB_PASSWORD)}`));
    await asAdmin((client) => client.query(`GRANT SELECT ON voxform_schema_version TO ${role}`), database);
    const asReader = new URL(url);
    asReader.username = role;
    expect(await readFailure(asReader.href)).toMatchObject({
      code: 'state_backend_failed',
      message: expect.stringContaining('permission denied for table voxform_workspaces'),
      hint: expect.stringMatching(/^This role may not use voxform's table voxform_workspaces: as the tables' owner, GRANT SELECT, INSERT, UPDATE on .* \(docs\/state\.md#permissions\)\.$/),
    });
  });

  it('of `state rm` by a role with every privilege the other commands need names the DELETE it needs too', async () => {
    const { url, database } = await databaseAtSchema(MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0);
    const role = `${database}_ci`;
    await asAdmin((client) => client.query(`CREATE ROLE ${role} LOGIN PASSWORD ${client.escapeLiteral(PLANTED_DB_PASSWORD)}`));
    // docs/state.md#permissions, "After that": what every command but `state rm` needs.
    await asAdmin(async (client) => {
      await client.query(`GRANT SELECT, INSERT, UPDATE ON voxform_workspaces, voxform_locks, voxform_history, voxform_test_runs TO ${role}`);
      await client.query(`GRANT SELECT ON voxform_schema_version TO ${role}`);
    }, database);
    const asCi = new URL(url);
    asCi.username = role;
    const failure = await (await open(asCi.href)).removeWorkspace(WORKSPACE).then(
      () => { throw new Error('the removal succeeded'); },
      (error: { code?: unknown; message: string; hint?: unknown }) => error,
    );
    expect(failure).toMatchObject({
      code: 'state_backend_failed',
      message: expect.stringContaining('permission denied for table voxform_workspaces'),
      hint: expect.stringContaining('`voxform state rm` also needs DELETE on voxform_workspaces'),
    });
  });

  it('of another failure stays the generic one', async () => {
    const { url, database } = await databaseAtSchema(MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0);
    await asAdmin((client) => client.query('ALTER TABLE voxform_workspaces DROP COLUMN state'), database);
    expect(await readFailure(url)).toMatchObject({
      code: 'state_backend_failed',
      message: expect.stringContaining('column "state" does not exist'),
      hint: "Check the URL, the network, the role's privileges and the TLS options (docs/state.md).",
    });
  });
});
