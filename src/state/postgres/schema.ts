/**
 * The tables of the PostgreSQL backend, created on first use by versioned migrations. Each
 * migration runs once, in a transaction, under a transaction-level advisory lock, so two runs that
 * start together against a new database do not race; `voxform_schema_version` records which ran.
 * Only `CREATE TABLE`/`CREATE INDEX`/`ALTER TABLE … ADD COLUMN` on voxform's own tables in the
 * connection's current schema: no superuser, no extension.
 * docs/state.md ("Schema") lists the tables; a new version adds a migration here and a line there.
 */
import type pg from 'pg';
import { VoxformError } from '../../errors.js';

/**
 * `stateFormat`: the state format (src/state/format-version.ts) the rows may hold from this version
 * on. A voxform refuses a schema newer than it knows: that is how an older one is kept from rows of a
 * newer state format, which it would read without the fields it does not know and write back without them.
 */
export const MIGRATIONS: ReadonlyArray<{ version: number; stateFormat?: number; sql: string }> = [
  {
    version: 1,
    sql: `
      CREATE TABLE voxform_workspaces (
        workspace text PRIMARY KEY,
        serial bigint NOT NULL,
        state text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      -- The state is rewritten whole on every write during an apply, and a large account's state is
      -- large: stored as text out of line, uncompressed, it costs the server a copy, not a jsonb
      -- parse and a compression each time.
      ALTER TABLE voxform_workspaces ALTER COLUMN state SET STORAGE EXTERNAL;
      CREATE TABLE voxform_locks (
        workspace text PRIMARY KEY,
        generation bigint NOT NULL DEFAULT 0,
        lock_id text UNIQUE,
        holder jsonb,
        backend_pid integer,
        acquired_at timestamptz
      );
      CREATE TABLE voxform_history (
        id text PRIMARY KEY,
        workspace text NOT NULL,
        at timestamptz NOT NULL,
        record jsonb NOT NULL
      );
      CREATE INDEX voxform_history_by_workspace ON voxform_history (workspace, id);
    `,
  },
  {
    version: 2,
    sql: `
      CREATE TABLE voxform_test_runs (
        id text PRIMARY KEY,
        workspace text NOT NULL,
        at timestamptz NOT NULL,
        record jsonb NOT NULL
      );
      CREATE INDEX voxform_test_runs_by_workspace ON voxform_test_runs (workspace, id);
    `,
  },
  {
    version: 3,
    // Who forced a workspace's lock open last, and when: the holder that loses it names them. Rows
    // of older versions keep NULL there (no forced open recorded).
    sql: `
      ALTER TABLE voxform_locks
        ADD COLUMN last_forced_lock_id text,
        ADD COLUMN last_forced_by jsonb,
        ADD COLUMN last_forced_at timestamptz;
    `,
  },
  {
    version: 4,
    // No table changes: the rows may hold state format 2 from now on, which a voxform knowing up to
    // schema 3 must not read. Nothing to do but record the version (no privilege beyond that).
    stateFormat: 2,
    sql: 'SELECT 1',
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** A constant key for the migration's transaction-level advisory lock ("voxform" in ASCII). */
const MIGRATION_LOCK_KEY = '0x766f78666f726d';

/** Brings the schema to `SCHEMA_VERSION`; cheap (one query) when it is there already. */
export async function ensureSchema(client: pg.ClientBase): Promise<void> {
  const current = await currentVersion(client);
  if (current === SCHEMA_VERSION) return;
  if (current !== undefined && current > SCHEMA_VERSION) throw newerSchema(current);
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${BigInt(MIGRATION_LOCK_KEY).toString()})`);
    await client.query('CREATE TABLE IF NOT EXISTS voxform_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const locked = (await currentVersion(client)) ?? 0;
    if (locked > SCHEMA_VERSION) throw newerSchema(locked);
    for (const migration of MIGRATIONS.filter((m) => m.version > locked)) {
      await client.query(migration.sql);
      await client.query('INSERT INTO voxform_schema_version (version) VALUES ($1)', [migration.version]);
    }
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** The schema version recorded, or undefined before the first migration (one round trip either way). */
async function currentVersion(client: pg.ClientBase): Promise<number | undefined> {
  try {
    const result = await client.query<{ version: number | null }>('SELECT max(version) AS version FROM voxform_schema_version');
    return result.rows[0]?.version ?? undefined;
  } catch (error) {
    // 42P01 undefined_table: a database voxform has not used yet.
    if ((error as { code?: string }).code === '42P01') return undefined;
    throw error;
  }
}

function newerSchema(version: number): VoxformError {
  return new VoxformError('state_backend_failed', `The state database has schema version ${version}, made by a newer voxform (this one knows up to ${SCHEMA_VERSION}).`, {
    hint: 'Upgrade voxform; every run against this database must use a voxform that knows its schema.',
  });
}
