/**
 * The PostgreSQL schema across voxform versions: a run that writes nothing never migrates (older
 * voxforms keep using the database), and reads an older schema as its migrations would leave it; the
 * first write migrates; a role that may not upgrade is told who must, and how.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { HistoryRecord } from '../../src/history/types.js';
import type { StateBackend } from '../../src/state/backend.js';
import { openStateSpec } from '../../src/state/open.js';
import { MIGRATIONS, SCHEMA_VERSION } from '../../src/state/postgres/schema.js';
import { emptyWorkspace } from '../../src/state/types.js';
import { repoRoot } from '../helpers/cli.js';
import { asAdmin, databaseAtSchema, freshDatabase, PLANTED_DB_PASSWORD } from '../helpers/postgres.js';
import { ledgerRecords, oneAgentApply, TEST_SEAL_KEY } from '../helpers/ledger.js';

const WORKSPACE = 'default@local';
const RECORD_ID = '20261123T120000000Z-a1b2c3';
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length > 0) await cleanups.pop()?.();
});

async function open(spec: string, source?: string): Promise<StateBackend> {
  const backend = await openStateSpec(spec, { env: process.env, cwd: repoRoot, registerSecret: () => undefined, source });
  cleanups.push(() => backend.close());
  return backend;
}

const record: HistoryRecord = { id: RECORD_ID, ...oneAgentApply(WORKSPACE) };

/** A database as the voxform of schema `version` left it (0: never used), with a workspace, a record and a lock row when it has their tables. */
async function databaseAt(version: number): Promise<{ url: string; database: string; role: string }> {
  if (version === 0) return freshDatabase();
  const made = await databaseAtSchema(version);
  const client = new pg.Client({ connectionString: made.url });
  await client.connect();
  try {
    await client.query('INSERT INTO voxform_workspaces (workspace, serial, state) VALUES ($1, 4, $2)', [WORKSPACE, JSON.stringify(emptyWorkspace())]);
    await client.query('INSERT INTO voxform_history (id, workspace, at, record) VALUES ($1, $2, $3, $4)', [record.id, record.workspace, record.at, JSON.stringify(record)]);
    await client.query('INSERT INTO voxform_locks (workspace, generation) VALUES ($1, 2)', [WORKSPACE]);
  } finally {
    await client.end();
  }
  return made;
}

/** The schema versions recorded, and voxform's tables, as the superuser sees them. */
function schemaOf(database: string): Promise<{ versions: number[]; tables: string[] }> {
  return asAdmin(async (client) => {
    const tables = await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE tablename LIKE 'voxform_%' ORDER BY 1");
    const names = tables.rows.map((r) => r.tablename);
    const versions = names.includes('voxform_schema_version') ? (await client.query<{ version: number }>('SELECT version FROM voxform_schema_version ORDER BY 1')).rows.map((r) => r.version) : [];
    return { versions, tables: names };
  }, database);
}

/** Everything a run that writes nothing reads: status, history, plan, state list. */
async function readEverything(backend: StateBackend) {
  return {
    workspace: await backend.readWorkspace(WORKSPACE),
    workspaces: await backend.listWorkspaces(),
    lock: await backend.readLock(WORKSPACE),
    lastForcedOpen: await backend.readLastForcedOpen(WORKSPACE),
    history: await ledgerRecords(backend.history, { workspace: WORKSPACE }),
    testRuns: await backend.history.listTestRuns({ workspace: WORKSPACE }),
    exported: await backend.exportHistory(),
    exportedTestRuns: await backend.exportTestRuns(),
  };
}

/** A role like CI's: reads and writes the rows of the tables an owner made, owns none. */
async function ciRole(database: string, url: string): Promise<string> {
  const role = `${database}_ci`;
  await asAdmin((client) => client.query(`CREATE ROLE ${role} LOGIN PASSWORD ${client.escapeLiteral(PLANTED_DB_PASSWORD)}`));
  await asAdmin(async (client) => {
    await client.query(`GRANT SELECT, INSERT, UPDATE ON voxform_workspaces, voxform_locks, voxform_history TO ${role}`);
    await client.query(`GRANT SELECT ON voxform_schema_version TO ${role}`);
  }, database);
  const ci = new URL(url);
  ci.username = role;
  return ci.href;
}

describe('the PostgreSQL schema of an older voxform', () => {
  it.each([1, 2])('is read, never migrated, by a run that writes nothing (schema %i): missing tables have no rows, missing columns are null', async (version) => {
    const { url, database } = await databaseAt(version);
    const before = await schemaOf(database);
    const read = await readEverything(await open(url));
    expect(read).toMatchObject({
      workspace: { serial: 4, exists: true },
      workspaces: [{ key: WORKSPACE, serial: 4, lock: undefined, lastForcedOpen: undefined }],
      lock: undefined,
      lastForcedOpen: undefined,
      history: [{ id: RECORD_ID }],
      testRuns: [],
      exported: [{ id: RECORD_ID }],
      exportedTestRuns: [],
    });
    // The older voxform that made it still finds the version it knows.
    expect(await schemaOf(database)).toEqual(before);
  });

  it('is not made by a run that writes nothing against a database voxform never used', async () => {
    const { url, database } = await databaseAt(0);
    const read = await readEverything(await open(url));
    expect(read).toMatchObject({ workspace: { serial: 0, exists: false }, workspaces: [], history: [], testRuns: [], exported: [], exportedTestRuns: [] });
    expect(await schemaOf(database)).toEqual({ versions: [], tables: [] });
  });

  it('is migrated by the first write, which lands in the real tables even after reads of the older schema', async () => {
    const { url, database } = await databaseAt(1);
    const backend = await open(url);
    expect(await backend.history.listTestRuns({ workspace: WORKSPACE })).toEqual([]);
    expect(await backend.readLastForcedOpen(WORKSPACE)).toBeUndefined();
    const stored = await backend.history.appendTestRun({
      workspace: WORKSPACE,
      at: '2026-11-23T12:00:00.000Z',
      by: 'ana@laptop',
      command: 'voxform test --against live',
      source: { commit: 'a'.repeat(40), uncommitted: false },
      agents: { front: { id: 'a1', configHash: `sha256:${'1'.repeat(64)}` } },
      summary: { passed: 1, failed: 0, skipped: 0, errors: 0 },
      tests: [{ file: 'tests/front.test.yaml', agent: 'front', name: 'greets', status: 'passed', passes: 1, runs: 1, passRate: 1 }],
    }, TEST_SEAL_KEY);
    expect((await backend.history.listTestRuns({ workspace: WORKSPACE })).map((r) => r.id)).toEqual([stored.id]);
    expect((await schemaOf(database)).versions).toEqual(MIGRATIONS.map((m) => m.version));
    const rows = await asAdmin((client) => client.query<{ id: string }>('SELECT id FROM voxform_test_runs'), database);
    expect(rows.rows).toEqual([{ id: stored.id }]);
  });

  it("is read by a role that may not upgrade it; that role's first write says the owner must upgrade it, and how", async () => {
    const { url, database } = await databaseAt(1);
    const ciUrl = await ciRole(database, url);
    const ci = await open(ciUrl);
    expect((await ci.readWorkspace(WORKSPACE)).serial).toBe(4);
    const refused = await ci.writeWorkspace(WORKSPACE, emptyWorkspace(), 4).catch((error: unknown) => error);
    expect(refused).toMatchObject({
      code: 'state_schema_outdated',
      message: expect.stringMatching(/^The state database postgres:\/\/\S+ is at schema version 1; this voxform needs version \d+, and this role may not upgrade it \(permission denied for schema public\)\.$/),
      hint: expect.stringContaining('run `voxform state upgrade` (with the same --state (or VOXFORM_STATE)) once as the role that owns voxform\'s tables'),
    });
    // Named with VOXFORM_STATE, the upgrade is named with it; a migration's target (--to) is named with --state.
    const fromEnvironment = await open(ciUrl, 'VOXFORM_STATE');
    await expect(fromEnvironment.writeWorkspace(WORKSPACE, emptyWorkspace(), 4)).rejects.toMatchObject({ hint: expect.stringContaining('run `voxform state upgrade` (with the same VOXFORM_STATE) once') });
    const target = await open(ciUrl, '--to');
    await expect(target.writeWorkspace(WORKSPACE, emptyWorkspace(), 4)).rejects.toMatchObject({ hint: expect.stringContaining('run `voxform state upgrade` (with --state naming this database) once') });
    expect((await schemaOf(database)).versions).toEqual([1]);
  });

  it('is refused, naming the upgrade, to a read that cannot show it: the role may not make temporary views', async () => {
    const { url, database } = await databaseAt(2);
    const ci = await ciRole(database, url);
    await asAdmin((client) => client.query(`REVOKE TEMPORARY ON DATABASE ${database} FROM PUBLIC`));
    await expect(open(ci).then((backend) => backend.listWorkspaces())).rejects.toMatchObject({
      code: 'state_schema_outdated',
      message: expect.stringContaining(`is at schema version 2; this voxform needs version ${SCHEMA_VERSION}, and this connection may not make the temporary views that show it`),
      hint: expect.stringContaining('`voxform state upgrade`'),
    });
  });
});

describe('the migrations', () => {
  it('declare what they add as the tables they make hold it (a read of an older schema shows those columns)', async () => {
    const { url, database } = await databaseAt(0);
    expect(await (await open(url)).upgradeSchema?.()).toEqual({ from: 0, to: SCHEMA_VERSION });
    const made = await asAdmin(
      (client) => client.query<{ table_name: string; column_name: string; type: string }>(
        "SELECT table_name, column_name, format_type(atttypid, atttypmod) AS type FROM information_schema.columns JOIN pg_attribute ON attrelid = (table_schema || '.' || table_name)::regclass AND attname = column_name WHERE table_name LIKE 'voxform\\_%' AND table_name <> 'voxform_schema_version'",
      ),
      database,
    );
    const declared = new Map<string, string>();
    for (const migration of MIGRATIONS) {
      for (const [table, columns] of [...Object.entries(migration.adds?.tables ?? {}), ...Object.entries(migration.adds?.columns ?? {})]) {
        for (const [column, type] of Object.entries(columns)) declared.set(`${table}.${column}`, type);
      }
    }
    const actual = new Map(made.rows.map((row) => [`${row.table_name}.${row.column_name}`, row.type === 'timestamp with time zone' ? 'timestamptz' : row.type]));
    expect(Object.fromEntries([...actual].sort())).toEqual(Object.fromEntries([...declared].sort()));
    expect(await (await open(url)).upgradeSchema?.()).toEqual({ from: SCHEMA_VERSION, to: SCHEMA_VERSION });
  });
});

describe('a database holding a table named like voxform\'s that voxform did not make', () => {
  /** A fresh database where the role made `sql`'s tables, and what it holds then, as the superuser sees it. */
  async function databaseWith(sql: string): Promise<{ url: string; database: string; before: unknown }> {
    const made = await freshDatabase();
    const client = new pg.Client({ connectionString: made.url });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
    return { ...made, before: await contentsOf(made.database) };
  }

  function contentsOf(database: string): Promise<unknown> {
    return asAdmin(async (client) => {
      const tables = (await client.query<{ tablename: string }>("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY 1")).rows.map((r) => r.tablename);
      const rows: Record<string, unknown[]> = {};
      for (const table of tables) rows[table] = (await client.query(`SELECT * FROM ${table} ORDER BY 1`)).rows;
      return rows;
    }, database);
  }

  it.each([
    ['voxform_workspaces, and no voxform_schema_version', "CREATE TABLE voxform_workspaces (name text PRIMARY KEY, data jsonb); INSERT INTO voxform_workspaces VALUES ('default@local', '{}')", 'voxform_workspaces'],
    ['voxform_schema_version of another shape', "CREATE TABLE voxform_schema_version (id serial, name text); INSERT INTO voxform_schema_version (name) VALUES ('v1')", 'voxform_schema_version'],
    ['voxform_schema_version whose version is text', "CREATE TABLE voxform_schema_version (version text); INSERT INTO voxform_schema_version VALUES ('1.0')", 'voxform_schema_version'],
    ['voxform_test_runs before the migration that makes it', `CREATE TABLE voxform_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now()); ${MIGRATIONS[0]?.sql}; INSERT INTO voxform_schema_version (version) VALUES (1); CREATE TABLE voxform_test_runs (run text)`, 'voxform_test_runs'],
  ])('%s: every read and write is refused, naming the table, and nothing is written', async (_name, sql, table) => {
    const { url, database, before } = await databaseWith(sql);
    const refusal = {
      code: 'state_table_foreign',
      message: expect.stringMatching(new RegExp(`^The state database postgres://\\S+/${database} holds a table ${table} that voxform did not make \\(.+\\)\\. Nothing was read or written\\.$`)),
      hint: expect.stringContaining('point --state at another database, or give voxform a schema of its own'),
    };
    await expect(readEverything(await open(url))).rejects.toMatchObject(refusal);
    await expect((await open(url)).writeWorkspace(WORKSPACE, emptyWorkspace(), 0)).rejects.toMatchObject(refusal);
    await expect((await open(url)).upgradeSchema?.()).rejects.toMatchObject(refusal);
    expect(await contentsOf(database)).toEqual(before);
  });

  it('is left alone where voxform is given a schema of its own in the URL, as the hint says', async () => {
    const { url, database, before } = await databaseWith("CREATE TABLE voxform_workspaces (name text PRIMARY KEY, data jsonb); CREATE SCHEMA voxform");
    const own = `${url}?options=-csearch_path%3Dvoxform`;
    await (await open(own)).writeWorkspace(WORKSPACE, emptyWorkspace(), 0);
    expect((await (await open(own)).readWorkspace(WORKSPACE)).serial).toBe(1);
    expect(await contentsOf(database)).toEqual(before);
  });
});

describe('a database of a newer voxform', () => {
  it('is refused, naming the database', async () => {
    const { url, database } = await databaseAt(SCHEMA_VERSION);
    await asAdmin((client) => client.query('INSERT INTO voxform_schema_version (version) VALUES ($1)', [SCHEMA_VERSION + 3]), database);
    const refusal = { code: 'state_backend_failed', message: expect.stringMatching(new RegExp(`^The state database postgres://\\S+/${database} has schema version ${SCHEMA_VERSION + 3}, made by a newer voxform \\(this one knows up to ${SCHEMA_VERSION}\\)\\.$`)) };
    await expect((await open(url)).listWorkspaces()).rejects.toMatchObject(refusal);
    await expect((await open(url)).writeWorkspace(WORKSPACE, emptyWorkspace(), 4)).rejects.toMatchObject(refusal);
  });
});
