/**
 * The tables of the PostgreSQL backend, created and upgraded by versioned migrations before the first
 * write of a run (never by a run that writes nothing). Each migration runs once, in a transaction,
 * under a transaction-level advisory lock, so two runs that start together against a new database do
 * not race; `voxform_schema_version` records which ran. Only `CREATE TABLE`/`CREATE INDEX`/`ALTER
 * TABLE … ADD COLUMN` on voxform's own tables in the connection's current schema: no superuser, no
 * extension. A read of an older schema sees it as the migrations would leave it (`presentSchema`).
 * docs/state.md ("Schema") lists the tables; a new version adds a migration here and a line there.
 */
import type pg from 'pg';
import { VoxformError } from '../../errors.js';
import { errorMessage } from '../../secrets/error-message.js';

// The PostgreSQL error codes (SQLSTATE) voxform tells apart, and how to read one off a driver or
// server error (node-postgres puts it in `code`). Kept here, where the command line's start already
// loads this module for `--version`'s schema version, so naming them costs start-up no module.
/** 28P01 invalid_password. */
export const INVALID_PASSWORD = '28P01';
/** 3D000 invalid_catalog_name: the database named does not exist. */
export const UNKNOWN_DATABASE = '3D000';
/** 42501 insufficient_privilege: a statement the role may not run (use a table, create in the schema, alter a table it does not own, make temporary objects). */
export const INSUFFICIENT_PRIVILEGE = '42501';
/** 25006 read_only_sql_transaction: a change refused by a read-only connection (a standby, `default_transaction_read_only`). */
const READ_ONLY_TRANSACTION = '25006';
/** 42P01 undefined_table. */
const UNDEFINED_TABLE = '42P01';
/** 42703 undefined_column. */
const UNDEFINED_COLUMN = '42703';
/** 22P02 invalid_text_representation: a text the server cannot read as the type asked for. */
export const INVALID_TEXT = '22P02';

/** The SQLSTATE of `error`, when it has one (anything else it holds in `code`, such as a socket's ECONNRESET, is returned too). */
export function sqlState(error: unknown): unknown {
  return (error as { code?: unknown } | undefined)?.code;
}

/** Columns by name, each with its SQL type. */
type Columns = Readonly<Record<string, string>>;

interface Migration {
  version: number;
  sql: string;
  /**
   * What the migration adds, for a run that reads a database without it: its new tables (with no
   * rows) and its new nullable columns on tables of before (null). `undefined` for a migration that
   * changes what is there: a read of a database before it is refused until the database is upgraded.
   */
  adds: { tables?: Readonly<Record<string, Columns>>; columns?: Readonly<Record<string, Columns>> } | undefined;
  /**
   * The state format (src/state/format-version.ts) the rows may hold from this version on. A voxform
   * refuses a schema newer than it knows: that is how an older one is kept from rows of a newer state
   * format, which it would read without the fields it does not know and write back without them.
   */
  stateFormat?: number;
}

export const MIGRATIONS: readonly Migration[] = [
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
    adds: {
      tables: {
        voxform_workspaces: { workspace: 'text', serial: 'bigint', state: 'text', updated_at: 'timestamptz' },
        voxform_locks: { workspace: 'text', generation: 'bigint', lock_id: 'text', holder: 'jsonb', backend_pid: 'integer', acquired_at: 'timestamptz' },
        voxform_history: { id: 'text', workspace: 'text', at: 'timestamptz', record: 'jsonb' },
      },
    },
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
    adds: { tables: { voxform_test_runs: { id: 'text', workspace: 'text', at: 'timestamptz', record: 'jsonb' } } },
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
    adds: { columns: { voxform_locks: { last_forced_lock_id: 'text', last_forced_by: 'jsonb', last_forced_at: 'timestamptz' } } },
  },
  {
    version: 4,
    // No table changes: the rows may hold state format 2 from now on, which a voxform knowing up to
    // schema 3 must not read. Nothing to do but record the version (no privilege beyond that).
    stateFormat: 2,
    sql: 'SELECT 1',
    // A database before it reads as it is: its rows hold format 1, which this voxform reads.
    adds: {},
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;

/** A constant key for the migration's transaction-level advisory lock ("voxform" in ASCII). */
export const MIGRATION_LOCK_KEY = '0x766f78666f726d';

/**
 * Brings the schema to `SCHEMA_VERSION`, before a run's first write; cheap (one query) when it is
 * there already. `where`: the database as it may be shown; `chosenWith`: what named it (`StateBackend.chosenWith`). Resolves to the version it was at (0: no tables yet).
 */
export async function ensureSchema(client: pg.ClientBase, where: string, chosenWith: string): Promise<number> {
  const current = await currentVersion(client, where);
  if (current === SCHEMA_VERSION) return current;
  if (current !== undefined && current > SCHEMA_VERSION) throw newerSchema(where, current);
  await client.query('BEGIN');
  try {
    await client.query(`SELECT pg_advisory_xact_lock(${BigInt(MIGRATION_LOCK_KEY).toString()})`);
    await client.query('CREATE TABLE IF NOT EXISTS voxform_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    const locked = (await currentVersion(client, where)) ?? 0;
    if (locked > SCHEMA_VERSION) throw newerSchema(where, locked);
    for (const migration of MIGRATIONS.filter((m) => m.version > locked)) {
      await client.query(migration.sql);
      await client.query('INSERT INTO voxform_schema_version (version) VALUES ($1)', [migration.version]);
    }
    await client.query('COMMIT');
    return locked;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    if (sqlState(error) === INSUFFICIENT_PRIVILEGE) throw outdatedSchema(where, chosenWith, current ?? 0, `this role may not upgrade it (${errorMessage(error)})`);
    throw error;
  }
}

/**
 * For a run that writes nothing: never migrates. A database at `SCHEMA_VERSION` is read as it is
 * (false). One of an older schema is shown, on this connection only, as its migrations would leave it
 * (true): temporary views, put first on the search path, stand for the tables, a table not made yet
 * with no rows and a column not added yet null; nothing changes for any other run, so a voxform of
 * the database's own version goes on using it. Where that cannot be done (the role may not make
 * temporary views, the connection is read-only, a migration since is not one a read can show), the
 * run is refused, naming the upgrade.
 */
export async function presentSchema(client: pg.ClientBase, where: string, chosenWith: string): Promise<boolean> {
  const current = (await currentVersion(client, where)) ?? 0;
  if (current === SCHEMA_VERSION) return false;
  if (current > SCHEMA_VERSION) throw newerSchema(where, current);
  const views = viewsSince(current);
  if (!views) throw outdatedSchema(where, chosenWith, current, 'a migration since changes its tables in a way a read cannot show without it');
  try {
    for (const [table, view] of views) await client.query(await viewSql(client, table, view));
    await client.query("SELECT set_config('search_path', 'pg_temp, ' || current_setting('search_path'), false)");
  } catch (error) {
    const code = sqlState(error);
    if (code !== INSUFFICIENT_PRIVILEGE && code !== READ_ONLY_TRANSACTION) throw error;
    throw outdatedSchema(where, chosenWith, current, `this connection may not make the temporary views that show it as version ${SCHEMA_VERSION} (${errorMessage(error)})`);
  }
  return true;
}

/** A table as a read of an older schema sees it: over the table as it is (`overTable`), or standing for a table not made yet; the columns it lacks. */
interface PresentedTable {
  overTable: boolean;
  columns: Record<string, string>;
}

/** The tables the migrations after `version` make or add columns to; undefined when one of them cannot be shown so. */
function viewsSince(version: number): Map<string, PresentedTable> | undefined {
  const views = new Map<string, PresentedTable>();
  for (const migration of MIGRATIONS.filter((m) => m.version > version)) {
    if (!migration.adds) return undefined;
    for (const [table, columns] of Object.entries(migration.adds.tables ?? {})) views.set(table, { overTable: false, columns: { ...columns } });
    for (const [table, columns] of Object.entries(migration.adds.columns ?? {})) {
      const view = views.get(table) ?? { overTable: true, columns: {} };
      Object.assign(view.columns, columns);
      views.set(table, view);
    }
  }
  return views;
}

/** The statement making a table's temporary view (names and types are the migrations' own, never input). */
async function viewSql(client: pg.ClientBase, table: string, view: PresentedTable): Promise<string> {
  const missing = Object.entries(view.columns).map(([name, type]) => `NULL::${type} AS ${name}`).join(', ');
  if (!view.overTable) return `CREATE TEMP VIEW ${table} AS SELECT ${missing} WHERE false`;
  // The table the run's queries name, by its schema: the view of the same name hides it from them.
  const found = await client.query<{ name: string }>("SELECT format('%I.%I', n.nspname, c.relname) AS name FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE c.oid = to_regclass($1)", [table]);
  const name = found.rows[0]?.name;
  if (name === undefined) throw new VoxformError('state_backend_failed', `The state database has no table ${table}, which its schema version says it has.`, { hint: 'Restore the database from a backup, or point --state at another one.' });
  return `CREATE TEMP VIEW ${table} AS SELECT *, ${missing} FROM ${name}`;
}

/**
 * The schema version recorded, or undefined before the first migration: one round trip where the
 * database is at a version this voxform knows or newer. Below it, a table of voxform's name that the
 * migrations still to run would make is another's (one more round trip): refused, where a read
 * would hide it behind an empty view and a migration would stop on it half-way.
 */
async function currentVersion(client: pg.ClientBase, where: string): Promise<number | undefined> {
  let recorded: unknown;
  try {
    const result = await client.query<{ version: unknown }>('SELECT max(version) AS version FROM voxform_schema_version');
    recorded = result.rows[0]?.version ?? undefined;
  } catch (error) {
    // A database voxform has not used yet.
    if (sqlState(error) === UNDEFINED_TABLE) {
      await refuseForeignTables(client, where, 0);
      return undefined;
    }
    // A voxform_schema_version without voxform's column.
    if (sqlState(error) === UNDEFINED_COLUMN) throw foreignTable(where, 'voxform_schema_version', 'it has no column version');
    throw error;
  }
  // voxform's column is an integer; node-postgres gives any other type (text, bigint, numeric) as a string.
  if (recorded !== undefined && typeof recorded !== 'number') throw foreignTable(where, 'voxform_schema_version', 'its column version is not an integer');
  const version = recorded as number | undefined;
  if ((version ?? 0) < SCHEMA_VERSION) await refuseForeignTables(client, where, version ?? 0);
  return version;
}

/** The tables the migrations after `version` make, as they name them. */
function tablesMadeAfter(version: number): string[] {
  return MIGRATIONS.filter((m) => m.version > version).flatMap((m) => Object.keys(m.adds?.tables ?? {}));
}

/** Refuses a database where a table the migrations after `version` make is there already (a table of this connection's own, temporary, aside). */
async function refuseForeignTables(client: pg.ClientBase, where: string, version: number): Promise<void> {
  const found = await client.query<{ name: string }>(
    "SELECT t.name FROM unnest($1::text[]) WITH ORDINALITY AS t(name, position) JOIN pg_class c ON c.oid = to_regclass(t.name) WHERE c.relpersistence <> 't' ORDER BY t.position LIMIT 1",
    [tablesMadeAfter(version)],
  );
  const name = found.rows[0]?.name;
  if (name === undefined) return;
  const why = version === 0 ? 'no voxform_schema_version records voxform\'s tables' : `the database is at schema version ${version}, and voxform makes ${name} in a later one`;
  throw foreignTable(where, name, why);
}

/** A table of voxform's name that voxform did not make: neither read nor written over. */
function foreignTable(where: string, table: string, why: string): VoxformError {
  return new VoxformError('state_table_foreign', `The state database ${where} holds a table ${table} that voxform did not make (${why}). Nothing was read or written.`, {
    hint: `Keep voxform's tables apart from others': point --state at another database, or give voxform a schema of its own (CREATE SCHEMA voxform; then ALTER ROLE YOUR_ROLE SET search_path = voxform, or add options=-csearch_path%3Dvoxform to the URL) (docs/state.md#schema-and-migrations).`,
  });
}

/** The database is older than this voxform needs, and this run cannot use it as it is: the upgrade is the owner's, once. */
function outdatedSchema(where: string, chosenWith: string, version: number, why: string): VoxformError {
  const what = version === 0 ? 'has no voxform tables yet' : `is at schema version ${version}`;
  return new VoxformError('state_schema_outdated', `The state database ${where} ${what}; this voxform needs version ${SCHEMA_VERSION}, and ${why}.`, {
    hint: `Once every run against it uses this voxform, run \`voxform state upgrade\` (${naming(chosenWith)}) once as the role that owns voxform's tables (the database owner for the first use), then grant them to the other roles (docs/state.md#permissions).`,
  });
}

/** How the upgrade names this database: with what named it for this run; a migration's target (`--to`) with --state. */
function naming(chosenWith: string): string {
  return chosenWith === '--to' ? 'with --state naming this database' : `with the same ${chosenWith}`;
}

function newerSchema(where: string, version: number): VoxformError {
  return new VoxformError('state_backend_failed', `The state database ${where} has schema version ${version}, made by a newer voxform (this one knows up to ${SCHEMA_VERSION}).`, {
    hint: 'Upgrade voxform; every run against this database must use a voxform that knows its schema.',
  });
}
