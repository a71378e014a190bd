/**
 * Databases on the test run's PostgreSQL server (started once by test/helpers/postgres-global-setup.ts).
 * Each `freshDatabase()` is a new database owned by a new role that is no superuser, with a password
 * planted to prove it is never printed: what a managed PostgreSQL gives a team.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { inject } from 'vitest';
import { MIGRATIONS } from '../../src/state/postgres/schema.js';

/** The planted database password: characters that must be percent-encoded in a URL included. */
export const PLANTED_DB_PASSWORD = 'pl@nted:Db%s3cret-4417';

/** The superuser URL of the run's server, once it is up; throws the reason it could not start. */
export async function postgresAdminUrl(): Promise<string> {
  const file = inject('postgresStatusFile');
  const deadline = Date.now() + 120_000;
  for (;;) {
    const status = await readFile(file, 'utf8').then((text) => JSON.parse(text) as { adminUrl?: string; error?: string }, () => undefined);
    if (status?.adminUrl) return status.adminUrl;
    if (status?.error) throw new Error(`The test PostgreSQL server could not start: ${status.error}`);
    if (Date.now() > deadline) throw new Error('The test PostgreSQL server did not start within 120 s.');
    await delay(100);
  }
}

/** Runs SQL as the superuser. */
export async function asAdmin<T>(work: (client: pg.Client) => Promise<T>, database = 'postgres'): Promise<T> {
  const url = new URL(await postgresAdminUrl());
  url.pathname = `/${database}`;
  const client = new pg.Client({ connectionString: url.href });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A database and the role that owns it, as a `postgres://` URL with the planted password. */
interface TestDatabase {
  url: string;
  database: string;
  role: string;
}

/** Makes a login role without superuser, whose password is the planted one. */
async function createRole(client: pg.Client, role: string): Promise<void> {
  await client.query(`CREATE ROLE ${role} LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE PASSWORD ${client.escapeLiteral(PLANTED_DB_PASSWORD)}`);
}

async function testDatabase(role: string, database: string): Promise<TestDatabase> {
  const admin = new URL(await postgresAdminUrl());
  return { url: `postgres://${role}:${encodeURIComponent(PLANTED_DB_PASSWORD)}@${admin.host}/${database}`, database, role };
}

/** A new, empty database owned by a new role without superuser, as a `postgres://` URL with the planted password. */
export async function freshDatabase(): Promise<TestDatabase> {
  const suffix = randomBytes(5).toString('hex');
  const role = `vx_role_${suffix}`;
  const database = `vx_db_${suffix}`;
  await asAdmin(async (client) => {
    await createRole(client, role);
    await client.query(`CREATE DATABASE ${database} OWNER ${role}`);
  });
  return testDatabase(role, database);
}

/**
 * New, empty databases as `freshDatabase` makes them, all owned by one role without superuser and
 * made over one admin connection kept open until `end()`: each connection and role costs a password
 * exchange, and a database copied file by file is made in a fraction of the time a copy written to
 * the WAL takes. For a test file whose tests do not change their role (one that does makes its own
 * with `freshDatabase`).
 */
export function databasesOfOneRole(): { fresh(): Promise<TestDatabase>; end(): Promise<void> } {
  let made: Promise<{ admin: pg.Client; role: string; strategy: string }> | undefined;
  return {
    async fresh() {
      made ??= (async () => {
        const admin = new pg.Client({ connectionString: await postgresAdminUrl() });
        await admin.connect();
        const role = `vx_role_${randomBytes(5).toString('hex')}`;
        await createRole(admin, role);
        // STRATEGY came with PostgreSQL 15; before it every copy was a file copy.
        const { rows } = await admin.query<{ server_version_num: string }>('SHOW server_version_num');
        return { admin, role, strategy: Number(rows[0]?.server_version_num) >= 150000 ? ' STRATEGY FILE_COPY' : '' };
      })();
      const { admin, role, strategy } = await made;
      const database = `vx_db_${randomBytes(5).toString('hex')}`;
      await admin.query(`CREATE DATABASE ${database} OWNER ${role}${strategy}`);
      return testDatabase(role, database);
    },
    async end() {
      if (made) await (await made).admin.end();
    },
  };
}

/** A fresh database (`freshDatabase`) with the tables of schema `version`, as the voxform that knew up to it made them. */
export async function databaseAtSchema(version: number): Promise<TestDatabase> {
  const made = await freshDatabase();
  const client = new pg.Client({ connectionString: made.url });
  await client.connect();
  try {
    await client.query('CREATE TABLE voxform_schema_version (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())');
    for (const migration of MIGRATIONS.filter((m) => m.version <= version)) {
      await client.query(migration.sql);
      await client.query('INSERT INTO voxform_schema_version (version) VALUES ($1)', [migration.version]);
    }
  } finally {
    await client.end();
  }
  return made;
}

/** The schema versions a database records (none before its first migration). */
export async function schemaVersionsOf(database: string): Promise<number[]> {
  return asAdmin(async (client) => {
    const found = await client.query<{ version: number }>("SELECT version FROM voxform_schema_version ORDER BY 1").catch(() => ({ rows: [] }));
    return found.rows.map((row) => row.version);
  }, database);
}

/**
 * A TCP server on loopback that takes connections and never answers: a database that does not
 * respond. `close()` ends the connections it holds and the server.
 */
export async function silentDatabase(): Promise<{ port: number; server: Server; close: () => Promise<void> }> {
  const accepted: Socket[] = [];
  const server = createServer((socket) => void accepted.push(socket));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const close = async () => {
    for (const socket of accepted) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  };
  return { port: (server.address() as AddressInfo).port, server, close };
}
